#!/usr/bin/env python3
"""Space harvesting's mechanism end to end
(docs/harvesting.md, "Space harvesting in batond"): a real game
(glxgears on llvmpipe, under `baton run`) and be-matmul through the BE
SDK on PoCL, under a batond that divides the CPUs (harvest.space_units =
the CPUs here). Standard library only.

  space_e2e.py --baton B --batond D --matmul M --xvfb X --glxgears G

Checks:
  divide    batond enters the integrated scheme (status "space": split
            > 0, BE units > 0); every thread of the game runs on the
            first CPUs only, every thread of be-matmul may use its own;
            be-matmul reports sub-launches run on the partition.
  killed    batond is killed (SIGKILL, as a crash): within a few seconds
            the game's threads and be-matmul's have every CPU back (the
            shim gives the partition up when the daemon stops writing,
            the SDK at its first sub-launch without it).
Exit 0, 1 on a failed check, 77 with one CPU or no OpenCL device."""

import argparse
import os
import re
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      child_or_self, cpu_list, kill_group,
                      terminate_on_sigterm, thread_cpus, wait_for)


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for a in ("baton", "batond", "matmul", "xvfb", "glxgears"):
        p.add_argument("--" + a, required=True)
    a = p.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        print("SKIP: one CPU, nothing to divide")
        return 77
    whole = cpu_list(cpus)
    with tempfile.TemporaryDirectory(prefix="baton-space-") as tmp, \
            Xvfb(a.xvfb) as x:
        sock = os.path.join(tmp, "batond.sock")
        conf = os.path.join(tmp, "batond.conf")
        with open(conf, "w") as f:
            # a short hold: the test is about the mechanism
            f.write("harvest = { space_units = %d; space_hold_ms = 300; "
                    "};\n" % len(cpus))
        env = x.env(BATON_SOCKET=sock)
        daemon = Batond(a.batond, a.baton, sock,
                        ["--policy", "sa", "--sla", "30", "--config", conf],
                        env)
        daemon.start()
        game = mm = None
        try:
            game = Client([a.baton, "run", "--name", "gears", "--",
                           a.glxgears], env).__enter__()
            daemon.wait_tenants(["gears"], 20)
            benv = dict(env)
            benv.pop("LD_PRELOAD", None)
            mm = Client([a.matmul, "--n", "256", "--seconds", "20",
                         "--name", "space-mm"], benv).__enter__()
            # be-matmul exits 77 without an OpenCL device
            time.sleep(1.0)
            if mm.proc.poll() == 77:
                print("SKIP: no OpenCL device")
                return 77

            def divided():
                sp = daemon.status().get("space", {})
                return sp if sp.get("split", 0) > 0 and \
                    sp.get("be_units", 0) > 0 else None
            sp = wait_for("batond divides the CPUs", divided, 20)
            split = sp["split"]
            games_cpus = cpu_list(cpus[:split])
            be_cpus = cpu_list(cpus[split:])
            gpid = child_or_self(game.proc.pid)
            wait_for("the game's threads on CPUs %s" % games_cpus,
                     lambda: thread_cpus(gpid) == {games_cpus}, 5)
            # be-matmul alternates: its own CPUs outside the games' slot,
            # every CPU in it
            seen = set()
            t_end = time.monotonic() + 5
            while time.monotonic() < t_end and be_cpus not in seen:
                seen |= thread_cpus(mm.proc.pid)
                time.sleep(0.005)
            check(be_cpus in seen, "be-matmul never confined to CPUs %s "
                  "(saw %s)" % (be_cpus, sorted(seen)))
            print("divide: ok (games on CPUs %s, best-effort on %s; "
                  "status %s)" % (games_cpus, be_cpus, sp))

            daemon.kill9()
            wait_for("the game's threads back on every CPU (%s) after "
                     "batond was killed" % whole,
                     lambda: thread_cpus(gpid) == {whole}, 8)
            wait_for("be-matmul back on every CPU after batond was killed",
                     lambda: thread_cpus(mm.proc.pid) == {whole}, 8)
            print("killed: ok (every CPU back)")
            rc = mm.wait_exit(120)
            out = mm.output()
            check(rc == 0, "be-matmul exited %d:\n%s" % (rc, out))
            m = re.search(r"\((\d+) on a partition[,)]", out)
            check(m and int(m.group(1)) > 0,
                  "be-matmul ran nothing on a partition:\n%s" % out)
            print("be-matmul: %s" % m.group(0))
        finally:
            for c in (mm, game):
                if c:
                    kill_group(c.proc)
            daemon.stop()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
