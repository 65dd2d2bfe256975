#!/usr/bin/env python3
"""Placement end to end: `baton run` without --gpu asks batond where the
session goes, on one batond with two logical GPUs on llvmpipe ("left" on
the first CPU, "right" on the rest), and glxgears lands there.

  place_e2e.py --baton B --batond D --xvfb X --glxgears G

Checks:
  spread    placement = "spread": three glxgears started one after the
            other go left, right, left (the emptiest GPU; the loads are
            equal while no sampling period has ended, cap_period_s = 60,
            so the sessions on each decide, then the first); status puts
            each tenant there and its threads run on that GPU's CPUs;
  affinity  a fourth started under taskset on the right GPU's CPUs goes
            right: a session its CPUs already confine is placed there;
  pack      placement = "pack": two glxgears both go left (the fullest);
  full      placement = "pack", apps "huge" (100 ms a frame at 30 FPS:
            3 GPUs' worth) and "small" (1 ms): once both GPUs admit (a
            period ended, quiet since),
            `baton run --name huge` exits 5 naming each GPU's reason
            (total load plus the newcomer's would reach U_l) and starts
            nothing; `--name small` starts, with BATON_GPU the GPU batond
            chose; `--name bigvram` (1 ms, but 4 GiB of VRAM on GPUs of
            2 GiB each) exits 5 naming VRAM for each GPU;
  together  placement = "spread": two sessions placed back to back, the
            first not yet registered (a shell that only prints its
            BATON_GPU), go left, then right: the first one's seat is
            held; with place_hold_ms = 0 both go left.
Exit 0, 1 on a failed check, 77 with one CPU."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      child_or_self, cpu_list, kill_group,
                      terminate_on_sigterm, thread_cpus, wait_for)


def config(path, left, right, placement, period, apps="", vram=None):
    """vram: the two GPUs' vram_mb, or None for neither."""
    sizes = ["vram_mb = %d; " % v for v in vram] if vram else ["", ""]
    with open(path, "w") as f:
        f.write('gpus = ( { name = "left"; cpus = "%s"; %s},\n'
                '         { name = "right"; cpus = "%s"; %s} );\n'
                'placement = "%s";\n'
                'params = { cap_period_s = %r; };\n%s'
                % (left, sizes[0], right, sizes[1], placement,
                   float(period), apps))
    return path


def start(a, env, name, prefix=()):
    return Client(list(prefix) + [a.baton, "run", "--name", name, "--",
                                  a.glxgears], env).__enter__()


def placed_in_turn(a, daemon, env, names, prefix=()):
    """Starts one glxgears per name, each once the one before has
    registered (placement sees it); returns the clients."""
    clients = []
    for n in names:
        clients.append(start(a, env, n, prefix))
        daemon.wait_tenants([n], 20)
    return clients


def check_on(daemon, clients, want, cpus):
    on = {t["name"]: t["gpu"] for t in daemon.status()["tenants"]}
    check(on == want, "tenants on %s, want %s" % (on, want))
    for c, name in clients:
        pid = child_or_self(c.proc.pid)
        got = thread_cpus(pid)
        check(got == {cpus[want[name]]},
              "%s (pid %d) on CPUs %s, want %s" % (name, pid, got,
                                                   cpus[want[name]]))


def phase(a, x, tmp, conf_args, body):
    sock = os.path.join(tmp, "batond.sock")
    env = x.env(BATON_SOCKET=sock)
    env.pop("BATON_GPU", None)
    daemon = Batond(a.batond, a.baton, sock,
                    ["--policy", "sa", "--sla", "30", "--config",
                     config(os.path.join(tmp, "batond.conf"), *conf_args)],
                    env)
    daemon.start()
    clients = []
    try:
        body(daemon, env, clients)
    finally:
        for c in clients:
            kill_group(c.proc)
        daemon.stop()


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for a in ("baton", "batond", "xvfb", "glxgears"):
        p.add_argument("--" + a, required=True)
    a = p.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        print("SKIP: one CPU, no two core sets")
        return 77
    left, right = cpu_list(cpus[:1]), cpu_list(cpus[1:])
    sets = {"left": left, "right": right}
    with tempfile.TemporaryDirectory(prefix="baton-place-") as tmp, \
            Xvfb(a.xvfb) as x:

        def spread(daemon, env, clients):
            names = ["s1", "s2", "s3"]
            clients += placed_in_turn(a, daemon, env, names)
            clients += placed_in_turn(a, daemon, env, ["s4"],
                                      ("taskset", "-c", right))
            want = {"s1": "left", "s2": "right", "s3": "left",
                    "s4": "right"}
            check_on(daemon, zip(clients, names + ["s4"]), want, sets)
            print("spread, affinity: ok (%s)" % want)
        phase(a, x, tmp, (left, right, "spread", 60), spread)

        def pack(daemon, env, clients):
            names = ["p1", "p2"]
            clients += placed_in_turn(a, daemon, env, names)
            want = {"p1": "left", "p2": "left"}
            check_on(daemon, zip(clients, names), want, sets)
            print("pack: ok (%s)" % want)
        phase(a, x, tmp, (left, right, "pack", 60), pack)

        apps = ('apps = ( { name = "huge"; cost_ms = 100.0; sla = 30.0; },\n'
                '         { name = "small"; cost_ms = 1.0; sla = 30.0; },\n'
                '         { name = "bigvram"; cost_ms = 1.0; sla = 30.0;\n'
                '           vram_mb = 4096; } );\n')

        def full(daemon, env, clients):
            # admission's own precondition: a period ended, quiet since
            wait_for("both GPUs admitting a 1 ms session", lambda: all(
                g.get("fits") for g in capacity(a, env)), 15)
            marker = os.path.join(tmp, "started")
            r = subprocess.run(
                [a.baton, "run", "--name", "huge", "--", "sh", "-c",
                 'echo "$BATON_GPU" > %s' % marker], env=env,
                capture_output=True, text=True, timeout=30)
            check(r.returncode == 5 and not os.path.exists(marker),
                  "huge: exit %d, started %s: %s" % (
                      r.returncode, os.path.exists(marker), r.stderr))
            reason = "total load plus the newcomer's would reach U_l"
            for g in ("left", "right"):
                check("  %s: %s" % (g, reason) in r.stderr,
                      "huge: no reason for %s in %r" % (g, r.stderr))
            check("no GPU admits the session" in r.stderr,
                  "huge: %r" % r.stderr)
            print("full: ok (exit 5: %s)" % " / ".join(
                r.stderr.strip().splitlines()[:3]))
            r = subprocess.run(
                [a.baton, "run", "--name", "small", "--", "sh", "-c",
                 'echo "$BATON_GPU" > %s' % marker], env=env,
                capture_output=True, text=True, timeout=30)
            got = open(marker).read().strip() if os.path.exists(
                marker) else None
            check(r.returncode == 0 and got in ("left", "right"),
                  "small: exit %d, BATON_GPU %r: %s" % (
                      r.returncode, got, r.stderr))
            print("fits: ok (small placed on %s)" % got)
            # VRAM counts as capacity's does: neither GPU (2 GiB each)
            # holds a 4-GiB session, though both admit its 1 ms
            r = subprocess.run(
                [a.baton, "run", "--name", "bigvram", "--", "sh", "-c",
                 'echo "$BATON_GPU" > %s.vram' % marker], env=env,
                capture_output=True, text=True, timeout=30)
            check(r.returncode == 5 and not os.path.exists(marker +
                                                           ".vram"),
                  "bigvram: exit %d: %s" % (r.returncode, r.stderr))
            for g in ("left", "right"):
                check("  %s: VRAM:" % g in r.stderr,
                      "bigvram: no VRAM reason for %s in %r" % (
                          g, r.stderr))
            print("vram: ok (bigvram refused: %s)" % " / ".join(
                r.stderr.strip().splitlines()[1:3]))
        phase(a, x, tmp, (left, right, "pack", 1, apps, (2048, 2048)), full)

        def together(want):
            def body(daemon, env, clients):
                got = [placed_gpu(a, env, tmp, n) for n in ("t1", "t2")]
                check(got == want, "placed on %s, want %s" % (got, want))
                print("together: ok (%s)" % got)
            return body
        phase(a, x, tmp, (left, right, "spread", 60),
              together(["left", "right"]))
        phase(a, x, tmp, (left, right, "spread", 60, "place_hold_ms = 0;\n"),
              together(["left", "left"]))
    return 0


def placed_gpu(a, env, tmp, name):
    """Where `baton run` places a session that never registers: the
    BATON_GPU its command saw."""
    marker = os.path.join(tmp, name + ".gpu")
    r = subprocess.run([a.baton, "run", "--name", name, "--", "sh", "-c",
                        'echo "$BATON_GPU" > %s' % marker], env=env,
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 0 and os.path.exists(marker),
          "%s: exit %d: %s" % (name, r.returncode, r.stderr))
    with open(marker) as f:
        return f.read().strip()


def capacity(a, env):
    """Each GPU's answer to baton capacity for a 1 ms session."""
    r = subprocess.run([a.baton, "capacity", "--cost", "1", "--sla", "30",
                        "--json"], env=env, capture_output=True, text=True,
                       timeout=30)
    return json.loads(r.stdout).get("gpus", []) if r.stdout else []


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
