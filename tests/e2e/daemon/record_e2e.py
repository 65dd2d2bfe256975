#!/usr/bin/env python3
"""batond --record end to end: a real batond records while glxgears runs
under `baton run` on a private Xvfb for about 6 s; then the history file
must hold about one line per wall second batond ran (one per second, none
twice), glxgears with a frame rate above 0, and `baton report` must read
it (exit 0, glxgears in its JSON) and draw a PNG.

Prints batond's own account of the recording (its log at info): seconds
queued, the mean and largest time one queued copy took on the tick."""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      gears_args, terminate_on_sigterm)

RUN_S = 6.0
# Lines against whole wall seconds batond ran: the first and the last
# second are partial.
SLACK = 2


def run(argv, env):
    r = subprocess.run(argv, env=env, capture_output=True, text=True,
                       timeout=60)
    return r.returncode, r.stdout, r.stderr


def check_file(path, seconds):
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    times = [r["t"] for r in lines]
    print("%d lines over %.1f s of batond, %d bytes" % (
        len(lines), seconds, os.path.getsize(path)))
    check(abs(len(lines) - seconds) <= SLACK,
          "%d lines for %.1f s: not one a second" % (len(lines), seconds))
    check(all(b > a for a, b in zip(times, times[1:])),
          "a second recorded twice or out of order: %s" % times)
    fps = [t["fps"] for r in lines for t in r["tenants"]
           if t["name"] == "glxgears"]
    print("glxgears per second:", fps)
    check(sum(1 for v in fps if v and v > 0) >= 3,
          "glxgears has no frame rate in the history: %s" % fps)
    return lines


def check_report(args, path, png, env):
    rc, out, err = run([args.baton, "report", path, "--json"], env)
    check(rc == 0, "baton report --json exited %d: %s" % (rc, err))
    rep = json.loads(out)
    games = {t["name"]: t for t in rep["tenants"]}
    check("glxgears" in games, "no glxgears in the report: %s" % out)
    check(games["glxgears"]["fps_median"] > 0,
          "glxgears median FPS %s" % games["glxgears"]["fps_median"])
    rc, out, err = run([args.baton, "report", path, "--plot", png], env)
    print(out, end="")
    check(rc == 0, "baton report --plot exited %d: %s" % (rc, err))
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "%s is not a PNG" % png)
    print("baton report: exit 0, %s written (%d bytes)" % (
        os.path.basename(png), os.path.getsize(png)))


def main():
    terminate_on_sigterm()
    args = gears_args(__doc__)
    try:
        with tempfile.TemporaryDirectory(prefix="baton-record-") as tmp, \
                Xvfb(args.xvfb) as x:
            sock = os.path.join(tmp, "batond.sock")
            hist = os.path.join(tmp, "history.jsonl")
            env = x.env(BATON_SOCKET=sock)
            d = Batond(args.batond, args.baton, sock,
                       ["--sla", "30", "--record", hist], env)
            d.env["BATON_LOG"] = "info"
            t0 = time.monotonic()
            with d:
                with Client([args.baton, "run", "--", args.glxgears], env):
                    d.wait_tenants(["glxgears"], 15)
                    time.sleep(RUN_S)
            seconds = time.monotonic() - t0
            for line in d.log:
                if "record" in line:
                    print("batond:", line)
            check(os.stat(hist).st_mode & 0o777 == 0o600,
                  "the history file is not 0600")
            check_file(hist, seconds)
            check_report(args, hist, os.path.join(tmp, "report.png"), env)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
