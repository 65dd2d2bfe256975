#!/usr/bin/env python3
"""The harvesting benchmark over best-effort programs of different
shapes: bench/harvest_real.py once per program (be-matmul through the SDK
and the OpenCL gate; cl-hash, an unmodified OpenCL program, with few long
work-items and with many short ones, through the gate), then one table.

    flock /tmp/baton-cpu.lock bench/harvest_shapes.py [--build DIR]
        [--programs matmul,hash-long,hash-short] [--seconds 20]
        [--alone-seconds 12] [--out DIR] [-- harvest_real options]

Per program and gated phase: the harvest against the program's free rate
(its rate beside the games over its free rate alone times the idle share
the games leave, both measured in the same run), the same against its
dedicated rate under batond, each game's seconds under the SLA and frame
p99 against the games alone; and per program its rate alone through the
gate, no game registered, against its free rate (target >= 90 %).
Writes OUT/PROGRAM/ (harvest_real's files) and OUT/shapes.json."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def rows(program, res):
    """The table's lines for one program's results.json."""
    r, modes = res["result"], res["modes"]
    out = []
    for n in ("sdk", "gate", "space", "idle"):
        if "harvest_free_" + n not in r:
            continue
        games = "; ".join(
            "%s %d of %d s, p99 x%.2f" % (g, st["below"],
                                          len(st["windows"]),
                                          st["p99_ratio"])
            for g, st in sorted(modes[n]["games"].items()))
        out.append("| %s | %s | %.1f %% | %.1f %% | %s | %s |" % (
            program, n, r["harvest_free_" + n] * 100,
            r["harvest_" + n] * 100, games,
            "%.1f %%" % (r["gate_alone_ratio"] * 100)
            if "gate_alone_ratio" in r else "-"))
    return out


def main():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--programs", default="matmul,hash-long,hash-short")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--alone-seconds", type=float, default=12.0)
    p.add_argument("--out", default=None)
    p.add_argument("rest", nargs="*", help="more harvest_real.py options")
    a = p.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="baton-shapes-")
    table = ["| program | phase | harvest, free rate | harvest, dedicated "
             "rate | games: seconds under SLA, p99 vs alone | alone "
             "through the gate vs free |",
             "|---|---|---:|---:|---|---:|"]
    every = {}
    for prog in a.programs.split(","):
        d = os.path.join(out, prog)
        cmd = [sys.executable, os.path.join(HERE, "harvest_real.py"),
               "--build", a.build, "--be-program", prog,
               "--seconds", "%g" % a.seconds,
               "--alone-seconds", "%g" % a.alone_seconds,
               "--out", d] + a.rest
        print("# " + " ".join(cmd))
        sys.stdout.flush()
        rc = subprocess.call(cmd)
        if rc != 0:
            print("harvest_shapes: %s exited %d" % (prog, rc))
            return 1
        with open(os.path.join(d, "results.json")) as f:
            every[prog] = json.load(f)
        table += rows(prog, every[prog])
    print()
    print("\n".join(table))
    with open(os.path.join(out, "shapes.json"), "w") as f:
        json.dump({k: v["result"] for k, v in every.items()}, f, indent=1)
    print("files in %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
