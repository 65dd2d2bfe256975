#!/usr/bin/env python3
"""The GL preload's drain of mutexes destroyed while held, on the race in
Mesa llvmpipe's fences that once crashed an arena (docs/shim.md,
"Mutexes destroyed while held").

A test preload (fence_race_probe.c) holds the race's window open: each
llvmpipe rasterizer thread sleeps DELAY_US before every condition-variable
broadcast, which it makes between counting a fence done and unlocking the
fence's mutex. It counts the mutexes destroyed while another thread held
them and those still held when the destroy returned (the caller frees them
next, and the holder's unlock then writes freed memory).

The arena draws FRAMES frames at high, ROUNDS times with the preload
disabled (BATON_DISABLE=1) and ROUNDS times enabled, alternating, the
probe first in LD_PRELOAD so that it sees each destroy before the preload
does. Checks:
  - disabled: mutexes are destroyed while held (else this Mesa has no such
    race and the test is skipped, exit 77); a run may crash, as the arena
    once did (reported, not required);
  - enabled: no mutex is still held when its destroy returns, in any run,
    while some were held when it was called (the drain had work), and
    every run exits 0.
Standard library only.

usage: fence_race_e2e.py --arena PATH --shim PATH --probe PATH [--xvfb PATH]
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from xvfb import Xvfb  # noqa: E402
import crashable  # noqa: E402

ROUNDS = 3
FRAMES = 60
DELAY_US = 2000
# A run takes 8 s on two shared cores; one that takes this long is stuck.
RUN_LIMIT_S = 120
OUTCOME_S = 10
SKIP = 77


class Fail(Exception):
    pass


def run_once(args, env, tmp, disabled, i):
    out = os.path.join(tmp, "probe-%s-%d.txt" % (
        "off" if disabled else "on", i))
    renv = dict(env, BATON_PROBE_OUT=out, BATON_PROBE_DELAY_US=str(DELAY_US),
                BATON_DISABLE="1" if disabled else "0",
                LD_PRELOAD="%s %s" % (args.probe, args.shim))
    proc = crashable.start([args.arena, "--frames", str(FRAMES), "--level",
                            "2"], renv, tmp)
    # Without the drain, once a mutex was freed while held the rest is
    # undefined: the run may finish, crash or deadlock. Its outcome is
    # awaited OUTCOME_S more, not the whole limit.
    start = time.monotonic()
    limit = RUN_LIMIT_S
    hung = False
    while proc.poll() is None:
        if disabled and limit == RUN_LIMIT_S and \
                read_counts(out)["destroyed_while_held"]:
            limit = time.monotonic() - start + OUTCOME_S
        if time.monotonic() - start > limit:
            hung = True
            proc.kill()
            break
        time.sleep(0.2)
    err = proc.communicate()[1]
    counts = read_counts(out)
    counts.update(hung=hung, rc=proc.returncode, stderr=err.strip())
    return counts


def read_counts(out):
    counts = {"destroys": 0, "held_at_destroy": 0, "destroyed_while_held": 0}
    try:
        with open(out) as f:
            for field in f.read().split():
                key, _, value = field.partition("=")
                counts[key] = int(value)
    except (OSError, ValueError):
        pass  # not written yet, or being written
    return counts


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--arena", required=True)
    p.add_argument("--shim", required=True)
    p.add_argument("--probe", required=True)
    p.add_argument("--xvfb", default="Xvfb")
    args = p.parse_args()
    # Absolute: the crash runs start in the scratch folder.
    args.arena = os.path.abspath(args.arena)
    args.shim = os.path.abspath(args.shim)
    args.probe = os.path.abspath(args.probe)
    runs = {True: [], False: []}
    try:
        with tempfile.TemporaryDirectory(prefix="baton-fence-race-") as tmp, \
                Xvfb(args.xvfb) as x:
            env = dict(os.environ, DISPLAY=x.display,
                       BATON_SOCKET=os.path.join(tmp, "none.sock"))
            env.pop("BATON_LOG", None)
            for i in range(ROUNDS):
                for disabled in ((True, False) if i % 2 == 0
                                 else (False, True)):
                    r = run_once(args, env, tmp, disabled, i)
                    runs[disabled].append(r)
                    print("%s: %s, %d destroys, %d held at the call, "
                          "%d still held at the return" % (
                              "disabled" if disabled else "enabled",
                              "stuck, killed" if r["hung"] else
                              "exit %d" % r["rc"], r["destroys"],
                              r["held_at_destroy"],
                              r["destroyed_while_held"]))
        off, on = runs[True], runs[False]
        if sum(r["destroyed_while_held"] for r in off) == 0:
            print("SKIP: no mutex was destroyed while held without the "
                  "drain: this Mesa shows no such race")
            return SKIP
        crashed = [r for r in off if r["rc"] != 0 and not r["hung"]]
        print("without the drain: %d of %d runs crashed, %d stuck%s" % (
            len(crashed), len(off), sum(r["hung"] for r in off),
            (" (%s)" % crashed[0]["stderr"].splitlines()[0])
            if crashed and crashed[0]["stderr"] else ""))
        for r in on:
            if r["hung"]:
                raise Fail("with the drain the arena was still running "
                           "after %d s" % RUN_LIMIT_S)
            if r["rc"] != 0:
                raise Fail("with the drain the arena exited %d: %s" % (
                    r["rc"], r["stderr"]))
            if r["destroyed_while_held"]:
                raise Fail("with the drain %d mutexes were still held when "
                           "their destroy returned" %
                           r["destroyed_while_held"])
        if sum(r["held_at_destroy"] for r in on) == 0:
            raise Fail("with the drain no destroy found its mutex held: "
                       "the race was not provoked in those runs")
    except Fail as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
