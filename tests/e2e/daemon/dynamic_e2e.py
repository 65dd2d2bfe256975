#!/usr/bin/env python3
"""Baton against static 30 FPS caps on a workload that changes: the
scenario of bench/dynamic.py (glmark2, glmark2-es2 and vkcube tenants that
arrive at different times, one leaving halfway, glmark2 scenes whose cost
changes), once under each static cap and once under each of batond's SA,
FSA and ESA (SLA 30), back to back. Frames are timed outside every
limiter (bench/swap_probe.c, xcb_probe.c).

    dynamic_e2e.py --baton EXE --batond EXE --probe LIB --xcb-probe LIB
                   [--xvfb P] [--glmark2 P] [--glmark2-es2 P] [--vkcube P]
                   [--seconds N]

The static caps at 30 are Baton's own pin (`baton run --fps 30`) and,
where MangoHud 0.6.8 is installed, its fps_limit=30 (what users run
today). Shapes, not absolute numbers (they depend on the machine):
  - SA and FSA: the worst tenant's seconds under the SLA no more than a
    static cap's, plus one. A count of one-second windows in a 36 s run
    is noisy: a paced game has about 2 % of slack above the threshold, and
    whether a glmark2 scene load costs a neighbour one second under it or
    none is chance. The two static caps, the same policy implemented twice,
    have differed by 2 s here, and one cap's rerun by 1 s; so SA and FSA
    are held to the worse of the two caps measured in the same run, plus
    one window;
  - ESA: the tenants' mean FPS above every static cap's.
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
    statics = [n for n in ("mh30", "pin30") if n in args.all_limiters]
    names = statics + ["sa", "fsa", "esa"]
    if a.quiet_wait > 0:
        quiet, busy = wait_quiet(a.quiet_wait)
        print("machine %s: %.0f%% of the CPU busy before the test (load "
              "%s)" % ("quiet" if quiet else "BUSY", busy * 100, load()))
    try:
        with tempfile.TemporaryDirectory(prefix="baton-dynamic-e2e-") as tmp:
            args.tmp = args.out = tmp
            with Steal() as st:
                runs, _, _ = dynamic.benchmark(args, names)
            print("over the %d runs: %s" % (len(names), st))
            for r in runs:
                if r["errors"]:
                    raise Fail("%s: %s" % (r["limiter"], r["errors"][0]))
                if r["limiter"] not in statics:
                    # What the controller did, for a failure's diagnosis.
                    with open(os.path.join(tmp, r["limiter"] + ".log")) as f:
                        log = f.read()
                    print("---- %s.log (per-second FPS)" % r["limiter"])
                    print(log.split("\n# batond status")[0])
        by = {r["limiter"]: r for r in runs}
        caps = ", ".join("%s %d s" % (n, by[n]["worst_below_s"])
                         for n in statics)
        worse_cap = max(by[n]["worst_below_s"] for n in statics)
        for pol in ("sa", "fsa"):
            print("%s: worst tenant %d s under the SLA; static 30: %s" % (
                pol, by[pol]["worst_below_s"], caps))
        best_mean = max(mean_fps(by[n]) for n in statics)
        print("esa: mean %.1f FPS; static 30: %s" % (
            mean_fps(by["esa"]), ", ".join(
                "%s %.1f" % (n, mean_fps(by[n])) for n in statics)))
        for pol in ("sa", "fsa"):
            check_timing(
                by[pol]["worst_below_s"] <= worse_cap + BELOW_SLACK_S,
                "%s: worst tenant %d s under the SLA, static 30: %s" % (
                    pol, by[pol]["worst_below_s"], caps))
        check_timing(mean_fps(by["esa"]) > best_mean,
                     "esa: mean %.1f FPS is not above static 30's %.1f" % (
                         mean_fps(by["esa"]), best_mean))
    except TimingFail as e:
        return batonbed.timing_verdict(e)
    except Fail as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
