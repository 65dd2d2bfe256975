#!/usr/bin/env python3
"""The capacity stage on real clients: mitigation's
reaction to a glmark2 scene that turns heavy, and admission one session at
a time against equal shares and a static 2x oversubscription, under a real
batond (SA, SLA 30) on llvmpipe. Runs tests/e2e/daemon/capacity_e2e.py's
two experiments (the e2e tests daemon-capacity-mitigation and
daemon-capacity-admission) and prints their figures as tables:

    flock /tmp/baton-cpu.lock bench/capacity_real.py [BUILD] [--runs N]
                                                     [--json FILE]

BUILD defaults to build/. --runs repeats both experiments (the machine is
shared: one run's numbers can be another person's benchmark)."""

import argparse
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e", "daemon"))
import capacity_e2e as ce  # noqa: E402
from batonbed import Xvfb, wait_quiet  # noqa: E402


def f(v, nd=2):
    return "-" if v is None else "%.*f" % (nd, v)


def mitigation_table(rows):
    print("\nMitigation: a glmark2 tenant whose scene turns heavy (caps 0.5 "
          "each, cap_total 1, SA 30)")
    print("| run | heavy scene (load at 30) | its budget at the switch | "
          "detected (s) | lowest FPS after | first move (s) | donor / lightest | "
          "back at SLA (s) | budget at the end | FPS at the end | "
          "load-only control flagged | others (cores) |")
    print("|" + "---|" * 12)
    for i, r in enumerate(rows, 1):
        print("| %d | %s (%.3f) | %.3f | %s | %s | %s | %s / %s | %s | %.3f "
              "| %.1f | %s | %.2f |" % (
                  i, r["heavy_scene"], r["solo_load"][r["heavy_scene"]],
                  r["budgets_at_switch"]["heavy"], f(r["detect_s"]),
                  f(r.get("fps_after"), 1), f(r["rise_s"]), r["donor"],
                  r["lightest"], f(r["sla_s"]), r["budgets_end"]["heavy"],
                  r["fps_end"], {None: "-", True: "yes", False: "no"}[
                      r["control_overloaded"]], r["others_cores"] or 0))


def admission_table(rows):
    print("\nAdmission: glmark2 %s at %s, SLA 30, published cap %g each, "
          "held %.0f s" % (ce.ADMIT_SCENE, ce.SIZE, ce.CAP, ce.HOLD_S))
    print("| run | sessions | CPU busy | less others' | batond total load "
          "| worst tenant's seconds under SLA | mean FPS | others (cores) |")
    print("|" + "---|" * 8)
    for i, runs in enumerate(rows, 1):
        for r in runs:
            print("| %d %s | %d | %.1f %% | %.1f %% | %.2f | %d / %d | %.1f "
                  "| %.2f |" % (
                i, r["label"], r["sessions"], r["busy"] * 100,
                r["busy_ours"] * 100,
                r["total_load"], max(r["below"]), r["windows"],
                sum(r["fps"]) / len(r["fps"]), r["others_cores"] or 0))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build", nargs="?", default="build")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--json")
    a = p.parse_args()
    b = os.path.abspath(a.build)
    args = argparse.Namespace(
        baton=os.path.join(b, "src/cli/baton"),
        batond=os.path.join(b, "src/daemon/batond"),
        probe=os.path.join(b, "bench/libswap_probe.so"), xvfb="Xvfb",
        glxgears="glxgears", glmark2="glmark2", static2x=True)
    mit, adm = [], []
    for _ in range(a.runs):
        quiet, busy = wait_quiet(30)
        print("machine %s (busy %.0f %%)" % ("quiet" if quiet else "busy",
                                             busy * 100))
        with tempfile.TemporaryDirectory(prefix="baton-capreal-") as tmp, \
                Xvfb(args.xvfb) as x:
            os.chmod(tmp, 0o755)
            mit.append(ce.mitigation(args, x, tmp))
            ce.report_mitigation(mit[-1])
            adm.append(ce.admission(args, x, tmp))
            ce.report_admission(adm[-1])
    mitigation_table(mit)
    admission_table(adm)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"mitigation": mit, "admission": adm}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
