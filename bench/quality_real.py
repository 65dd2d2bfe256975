#!/usr/bin/env python3
"""The quality lever on real clients: profiles arena
(`baton profile`, the models of this run's machine), then runs
tests/e2e/daemon/quality_e2e.py's experiment with every configuration
(the lever, all-hi, all-me, all-lo: 1 to --max arena instances joining
one by one under batond on llvmpipe) and prints one table:

    flock /tmp/baton-cpu.lock bench/quality_real.py [BUILD] [--max N]
        [--join-s S] [--hold-s S] [--models DIR] [--out DIR]
        [--configs LIST]

BUILD defaults to build/. --models reuses a directory with arena.json
(and profile.json) instead of profiling. Results go to --out (default
BUILD/bench/quality): results.json, profile.json, arena.json; the plot
is drawn by bench/quality_plot.py (scripts/bench does both). --configs
runs some of them (comma-separated; lever-noreach is the lever with
quality_reach_headroom = 0, for side-by-side runs), for example the lever
alone over long windows: a 1 % share of seconds below needs windows of 100 s or more
before one second can be told from none."""

import argparse
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e", "daemon"))
import quality_e2e as qe  # noqa: E402
from batonbed import Xvfb, scratch_dir, scratch_done  # noqa: E402


def profile(args, out):
    """`baton profile` over arena's whole path, into out/arena.json and
    out/profile.json."""
    with Xvfb(args.xvfb) as x:
        env = x.env()
        env.pop("BATON_SOCKET", None)
        with open(os.path.join(out, "profile.json"), "w") as f:
            r = subprocess.run(
                [args.baton, "profile", "--game", "arena", "--json",
                 "--out", os.path.join(out, "arena.json"), "--",
                 args.arena, "--frames", "600"],
                env=env, stdout=f, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("baton profile exited %d:\n%s" % (r.returncode,
                                                   r.stderr[-2000:]))


def table(results):
    print("\n| configuration | SLA (FPS) | instances held | worst instance "
          "below SLA | mean SSIM | mean level per count |")
    print("|---|---|---|---|---|---|")
    for r in results:
        worst = max(r["below"].values(),
                    key=lambda bn: bn[0] / max(bn[1], 1), default=(0, 0))
        levels = " ".join("-" if c["mean_level"] is None else
                          "%.2f" % c["mean_level"] for c in r["per_count"])
        print("| %s | %.1f | %d | %d of %d s (%.1f %%) | %s | %s |" % (
            r["config"], r["sla"], r["density"], worst[0], worst[1],
            100.0 * worst[0] / max(worst[1], 1),
            "-" if r["ssim"] is None else "%.4f" % r["ssim"], levels))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build", nargs="?", default="build")
    p.add_argument("--max", type=int, default=6)
    p.add_argument("--join-s", type=float, default=20.0)
    p.add_argument("--hold-s", type=float, default=100.0,
                   help="all --max instances kept this long after the "
                   "last join's window, so that each runs 100 s or more "
                   "and one second below is 1 %% of its own, not 4 %%")
    p.add_argument("--models")
    p.add_argument("--out")
    p.add_argument("--configs", default="lever,all-hi,all-me,all-lo")
    a = p.parse_args()
    b = os.path.abspath(a.build)
    out = os.path.abspath(a.out or os.path.join(b, "bench", "quality"))
    os.makedirs(out, exist_ok=True)
    args = argparse.Namespace(
        baton=os.path.join(b, "src/cli/baton"),
        batond=os.path.join(b, "src/daemon/batond"),
        arena=os.path.join(b, "examples/arena/arena"), xvfb="Xvfb",
        max=a.max, join_s=a.join_s, hold_s=a.hold_s, sla=0.0, models=out,
        keep_going=True)
    if a.models:
        args.models = os.path.abspath(a.models)
    else:
        print("profiling arena (about 2 minutes)")
        profile(args, out)
    prof = os.path.join(args.models, "profile.json")
    if not os.path.isfile(prof):  # data/models names it after the game
        prof = os.path.join(args.models, "arena-profile.json")
    configs = a.configs.split(",")
    bad = [c for c in configs if c not in qe.LEVERS and c not in qe.LEVELS]
    if bad:
        p.error("--configs: unknown configuration %r (%s)" % (
            bad[0], ", ".join(list(qe.LEVERS) + list(qe.LEVELS))))
    tmp = scratch_dir("baton-quality-")
    try:
        results = qe.experiment(args, configs, tmp)
    except BaseException:
        scratch_done(tmp, 1)
        raise
    scratch_done(tmp, 0)
    qe.report(results, qe.profile_ssim(prof if os.path.isfile(prof)
                                       else None), allow_one=False)
    table(results)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("results in %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
