#!/usr/bin/env python3
"""Caps set through batond on real clients: 2-4 clients
(glxgears, glmark2's build scene, vkcube through the Vulkan layer) under
`baton run`, unpaced (policy none) so that only the caps hold them, capped
with `baton set --id N cap=C`; prints each client's measured share of the
device (CPU time of the client over its cores on llvmpipe, as
tests/e2e/gl's gl-cap-share measures it) against its cap, and the others'
load. Run it under the shared lock:

    flock /tmp/baton-cpu.lock bench/caps_daemon_share.py BUILD \
        [--clients gears,glmark2,vkcube] [CAP ...]

CLIENTS defaults to two glxgears; one cap per client (default 0.1 and 0.3
for two, 0.08 each for more). With --check (the e2e test
daemon-caps-share): exit 1 when a client whose cap binds (uncapped beside
the others it took more than cap + 0.05) lands more than 2 points off its
cap; 77 (skipped) when no cap binds or the machine was too busy to measure
(others' load over 0.15). With --status-within R as well: exit 1 when
batond's own figure for a client whose cap binds (status `gpu_share`,
the mean of polls every 0.5 s over the measured window) is off its
measured share by more than a ratio of R (the e2e test daemon-caps-heavy:
a frame longer than batond's epoch counted in full).
"""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e", "gl"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from glharness import Client, Noise, Share, Xvfb  # noqa: E402

SECONDS = 10.0
WARMUP = 3.0


def baton(build, sock, *args):
    r = subprocess.run([os.path.join(build, "src/cli/baton")] + list(args),
                       env=dict(os.environ, BATON_SOCKET=sock),
                       capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


@contextlib.contextmanager
def unpaced_batond(build, prefix):
    """A batond (policy none: only caps hold the clients) on a private
    socket for the block; yields the socket path; prints the tail of its
    log at the end."""
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    sock = os.path.join(d, "batond.sock")
    daemon = subprocess.Popen(
        [os.path.join(build, "src/daemon/batond"), "--socket", sock,
         "--metrics", "off", "--policy", "none"],
        stderr=open(os.path.join(d, "batond.log"), "w"))
    time.sleep(0.5)
    try:
        yield sock
    finally:
        daemon.terminate()
        daemon.wait(5)
        sys.stdout.write(open(os.path.join(d, "batond.log")).read()[-2000:])
        shutil.rmtree(d, ignore_errors=True)


def poll_seen(build, sock, pids, seconds):
    """batond's gpu_share for each pid, the mean of polls every 0.5 s
    for seconds."""
    sums, n = [0.0] * len(pids), 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        rc, out, err = baton(build, sock, "status", "--json")
        if rc == 0:
            by_pid = {t["pid"]: t.get("gpu_share", 0.0)
                      for t in json.loads(out)["tenants"]}
            sums = [a + by_pid.get(p, 0.0) for a, p in zip(sums, pids)]
            n += 1
        time.sleep(max(0.0, min(0.5, end - time.monotonic())))
    return [a / max(n, 1) for a in sums]


TOLERANCE = 0.02  # the caps' accuracy target, points of the device
NOISY = 0.15


CLIENT_ARGV = {
    "gears": ["glxgears"],
    # one scene longer than the run: no scene set-up in the window
    "glmark2": ["glmark2", "-s", "640x360", "-b", "build:duration=600"],
    "vkcube": ["vkcube"],
    # a heavy scene: frames of 0.1-0.3 s of both cores, longer than the
    # gate's 100-ms slot (src/core/gate.h)
    "terrain": ["glmark2", "-s", "640x360", "-b", "terrain:duration=600"],
}


def main():
    argv = [a for a in sys.argv[1:] if a != "--check"]
    check = len(argv) != len(sys.argv) - 1
    within = None
    if "--status-within" in argv:
        i = argv.index("--status-within")
        within = float(argv[i + 1])
        del argv[i:i + 2]
    names = ["gears", "gears"]
    if "--clients" in argv:
        i = argv.index("--clients")
        names = argv[i + 1].split(",")
        del argv[i:i + 2]
        unknown = [n for n in names if n not in CLIENT_ARGV]
        if unknown or not 2 <= len(names) <= 4:
            sys.exit("--clients: 2-4 of %s, not %s"
                     % (",".join(sorted(CLIENT_ARGV)), ",".join(names)))
    build = argv[0] if argv else "build"
    caps = [float(c) for c in argv[1:]]
    if not caps:
        caps = [0.1, 0.3] if len(names) == 2 else [0.08] * len(names)
    if len(caps) != len(names):
        sys.exit("%d caps for %d clients" % (len(caps), len(names)))
    with unpaced_batond(build, "baton-capd-") as sock:
        with Xvfb() as x:
            env = x.env(BATON_SOCKET=sock)
            run = [os.path.join(build, "src/cli/baton"), "run", "--"]
            with contextlib.ExitStack() as stack:
                procs = [stack.enter_context(Client(run + CLIENT_ARGV[n],
                                                    env))
                         for n in names]
                time.sleep(WARMUP)
                rc, out, err = baton(build, sock, "status", "--json")
                st = json.loads(out)
                ids = {t["pid"]: t["id"] for t in st["tenants"]}
                pids = [c.proc.pid for c in procs]
                missing = [n for n, p in zip(names, pids) if p not in ids]
                if missing:
                    print("FAIL: not registered with batond: %s"
                          % ",".join(missing))
                    return 1
                noise = Noise([os.getpid(), x.proc.pid] + pids)
                free = [Share(p) for p in pids]
                time.sleep(SECONDS / 2)
                free = [s.fraction() for s in free]
                for p, c in zip(pids, caps):
                    rc, out, err = baton(build, sock, "set", "--id",
                                         str(ids[p]), "cap=%g" % c)
                    assert rc == 0, err
                time.sleep(WARMUP)
                shares = [Share(p) for p in pids]
                seen = poll_seen(build, sock, pids, SECONDS)
                shares = [s.fraction() for s in shares]
                rc, out, err = baton(build, sock, "status")
                print(out)
                print("client     cap    uncapped  share   error (points)"
                      "  batond's")
                for i, (c, f, s) in enumerate(zip(caps, free, shares)):
                    print("%-9s  %.2f   %.4f    %.4f  %+.2f           %.4f"
                          % ("%s%d" % (names[i], i), c, f, s, (s - c) * 100,
                             seen[i]))
                others = noise.fraction()
                print("others' load over the run: %.3f" % others)
                bound = [(c, s) for c, f, s in zip(caps, free, shares)
                         if f > c + 0.05]
                bad = [(c, s) for c, s in bound if abs(s - c) > TOLERANCE]
                if check and bad and others <= NOISY:
                    print("FAIL: off the cap by more than %.0f points: %s"
                          % (TOLERANCE * 100, bad))
                    return 1
                off = [(s, b) for c, f, s, b in zip(caps, free, shares, seen)
                       if f > c + 0.05 and within and
                       not 1 / within <= b / max(s, 1e-9) <= within]
                if check and off and others <= NOISY:
                    print("FAIL: batond's figure off the measured share by "
                          "more than a ratio of %g: %s" % (within, off))
                    return 1
                if check and (not bound or others > NOISY):
                    print("SKIP: %s" % ("no cap binds" if not bound else
                                        "the machine was busy"))
                    return 77
                return 0


if __name__ == "__main__":
    sys.exit(main())
