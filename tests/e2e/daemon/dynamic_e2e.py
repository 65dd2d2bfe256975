#!/usr/bin/env python3
"""Baton against a static 30 FPS cap on a workload that changes: the
scenario of bench/dynamic.py (glmark2, glmark2-es2 and vkcube tenants that
arrive at different times, one leaving halfway, glmark2 scenes whose cost
changes), once under the static cap and once under each of batond's SA,
FSA and ESA (SLA 30), back to back. Frames are timed outside every
limiter (bench/swap_probe.c, xcb_probe.c).

    dynamic_e2e.py --baton EXE --batond EXE --probe LIB --xcb-probe LIB
                   [--xvfb P] [--glmark2 P] [--glmark2-es2 P] [--vkcube P]
                   [--seconds N]

The static cap is MangoHud's fps_limit=30 (what users run today) where
MangoHud 0.6.8 is installed, else Baton's own pin (`baton run --fps 30`).
Shapes, not absolute numbers (they depend on the machine):
  - SA and FSA: the worst tenant's seconds under the SLA no more than the
    static cap's (plus one: a window is one second, and one scheduling
    hiccup moves a count by one);
  - ESA: the tenants' mean FPS above the static cap's.
A failed check while the host stole over batonbed.STEAL_SKIP of the CPU is
reported as skipped (exit 77): the rates cannot be judged then.

Exit status 0 pass, 1 fail, 77 skipped."""

import argparse
import os
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench"))
import batonbed  # noqa: E402
from batonbed import (Fail, Steal, TimingFail, check_timing, load,  # noqa
                      terminate_on_sigterm, wait_quiet)
import dynamic  # noqa: E402

SECONDS = 36
# One window of slack: see the docstring.
BELOW_SLACK_S = 1
QUIET_WAIT_S = 30


def mean_fps(run):
    """The tenants' mean FPS, each over the seconds it was present."""
    ts = [s for s in run["tenants"].values() if s["windows"]]
    return sum(s["mean"] for s in ts) / len(ts) if ts else 0.0


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--probe", required=True)
    p.add_argument("--xcb-probe", required=True)
    p.add_argument("--xvfb", default="Xvfb")
    p.add_argument("--glmark2", default="glmark2")
    p.add_argument("--glmark2-es2", default="glmark2-es2")
    p.add_argument("--vkcube", default="vkcube")
    p.add_argument("--seconds", type=float, default=SECONDS)
    p.add_argument("--quiet-wait", type=float, default=QUIET_WAIT_S)
    a = p.parse_args()

    args = argparse.Namespace(
        baton=a.baton, batond=a.batond, xvfb=a.xvfb, seconds=a.seconds,
        probes={"gl": a.probe, "xcb": a.xcb_probe},
        exe={"glmark2": a.glmark2, "glmark2-es2": a.glmark2_es2,
             "vkcube": a.vkcube},
        no_solo=True)
    args.all_limiters = dynamic.limiters(None)
    static = "mh30" if "mh30" in args.all_limiters else "pin30"
    names = [static, "sa", "fsa", "esa"]
    if a.quiet_wait > 0:
        quiet, busy = wait_quiet(a.quiet_wait)
        print("machine %s: %.0f%% of the CPU busy before the test (load "
              "%s)" % ("quiet" if quiet else "BUSY", busy * 100, load()))
    try:
        with tempfile.TemporaryDirectory(prefix="baton-dynamic-e2e-") as tmp:
            args.tmp = args.out = tmp
            with Steal() as st:
                runs, _, _ = dynamic.benchmark(args, names)
            print("over the four runs: %s" % st)
            for r in runs:
                if r["errors"]:
                    raise Fail("%s: %s" % (r["limiter"], r["errors"][0]))
                if r["limiter"] != static:
                    # What the controller did, for a failure's diagnosis.
                    with open(os.path.join(tmp, r["limiter"] + ".log")) as f:
                        log = f.read()
                    print("---- %s.log (per-second FPS)" % r["limiter"])
                    print(log.split("\n# batond status")[0])
        by = {r["limiter"]: r for r in runs}
        s = by[static]
        for pol in ("sa", "fsa"):
            print("%s: worst tenant %d s under the SLA; static (%s) %d s" % (
                pol, by[pol]["worst_below_s"], static, s["worst_below_s"]))
        print("esa: mean %.1f FPS; static (%s) %.1f FPS" % (
            mean_fps(by["esa"]), static, mean_fps(s)))
        for pol in ("sa", "fsa"):
            check_timing(
                by[pol]["worst_below_s"] <= s["worst_below_s"] +
                BELOW_SLACK_S,
                "%s: worst tenant %d s under the SLA, static 30 (%s) %d s" % (
                    pol, by[pol]["worst_below_s"], static,
                    s["worst_below_s"]))
        check_timing(mean_fps(by["esa"]) > mean_fps(s),
                     "esa: mean %.1f FPS is not above static 30's %.1f" % (
                         mean_fps(by["esa"]), mean_fps(s)))
    except TimingFail as e:
        return batonbed.timing_verdict(e)
    except Fail as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
