#!/usr/bin/env python3
"""Caps set through batond on real clients (issue 9, item 6): two glxgears
under `baton run`, unpaced (policy none) so that only the caps hold them,
capped with `baton set --id N cap=C`; prints each client's measured share
of the device (CPU time of the client over its cores on llvmpipe, as
tests/e2e/gl's gl-cap-share measures it) against its cap, and the others'
load. Run it under the shared lock:

    flock /tmp/baton-cpu.lock bench/caps_daemon_share.py BUILD [CAP CAP]
"""
import json
import os
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


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    caps = [float(c) for c in sys.argv[2:4]] or [0.2, 0.4]
    d = tempfile.mkdtemp(prefix="baton-capd-")
    os.chmod(d, 0o755)
    sock = os.path.join(d, "batond.sock")
    daemon = subprocess.Popen(
        [os.path.join(build, "src/daemon/batond"), "--socket", sock,
         "--metrics", "off", "--policy", "none"],
        stderr=open(os.path.join(d, "batond.log"), "w"))
    time.sleep(0.5)
    try:
        with Xvfb() as x:
            env = x.env(BATON_SOCKET=sock)
            argv = [os.path.join(build, "src/cli/baton"), "run", "--",
                    "glxgears"]
            with Client(argv, env) as a, Client(argv, env) as b:
                time.sleep(WARMUP)
                rc, out, err = baton(build, sock, "status", "--json")
                st = json.loads(out)
                ids = {t["pid"]: t["id"] for t in st["tenants"]}
                pids = [a.proc.pid, b.proc.pid]
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
                time.sleep(SECONDS)
                shares = [s.fraction() for s in shares]
                rc, out, err = baton(build, sock, "status")
                print(out)
                print("client  cap    uncapped  share   error (points)")
                for i, (c, f, s) in enumerate(zip(caps, free, shares)):
                    print("gears%d  %.2f   %.4f    %.4f  %+.2f" %
                          (i, c, f, s, (s - c) * 100))
                print("others' load over the run: %.3f" % noise.fraction())
    finally:
        daemon.terminate()
        daemon.wait(5)
        sys.stdout.write(open(os.path.join(d, "batond.log")).read()[-2000:])


if __name__ == "__main__":
    main()
