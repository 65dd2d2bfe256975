#!/usr/bin/env python3
"""The OpenCL launch gate with no game registered: an unmodified program
it was not tuned to (cl-hash, two shapes: few long work-items and many
short ones) runs at (near) its free speed under `baton run --be`, with
and without BATON_CL_SPLIT, and the gate logs no "no window" line.

  gate_free_e2e.py --baton B --batond D --hash H [--seconds S]

With no game, batond's harvesting stage is in GPU grid's continuous mode
(docs/harvesting.md): best-effort work gets the whole device less the
budget's 5 % margin. For each shape the program runs free (no gate),
then twice in turn through the gate split and whole, each gated run
followed by a free one, each for S seconds under the same batond; each
way's gated rates are set against the means of the free runs just
before and after them (a shared machine's speed moves by up to 2x over a
minute): rates are taken over the program's own progress lines after
its first half second (its warm-up left out), so the ratio does not
depend on how fast this machine is.
Asserted: every gated rate at least MIN_RATIO of its free rate (the
benchmark's target is 90 %: docs/harvesting.md, "The gate with no
game"), no "no window" line, and batond's status showing the tenant
continuous. Batond yields a CPU device to load no tenant reports and the
free program does not, so a rate between NEAR and MIN_RATIO measured
while other processes used more than OTHERS_SKIP cores is skipped, as
batonbed's timing checks are under steal; a lower one fails anyway. Exit
0, 1 on a failed check, 77 with no OpenCL device or so skipped."""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
from batonbed import Batond, Client, Fail, Steal, check, kill_group  # noqa

PROGRESS = re.compile(r"cl-hash: progress ([\d.]+) (\d+)")
SUMMARY = re.compile(r"cl-hash: ([\d.]+) items/s")
# (name, items, steps): the two shapes, about 0.1 s and 20 ms a
# launch on two cores
SHAPES = (("long", 4096, 15000), ("short", 65536, 200))
# the gated rate against the free rate measured just before it, each
# over a few seconds of a shared machine: 0.9 is the target, and the
# noise between two such phases is a few per cent
MIN_RATIO = 0.85
# other processes' load (cores) past which a rate that fails is skipped
OTHERS_SKIP = 0.25
# a ratio above this may be that load's doing (batond gives best-effort
# work what the others leave: with 1.5 of 2 cores theirs, a fifth of
# the machine); under it, it fails anyway (the unmodified gate split a
# launch down to 0.7-27 % of the free rate)
NEAR = 0.2
SLOW = "rate: "
# gated runs per shape and way, each between two free runs
ROUNDS = 2


def rate(lines):
    """items/s between the first and the last progress line; with fewer
    than three (a program this slow), its own summary over the run."""
    pts = [(float(m.group(1)), int(m.group(2)))
           for m in map(PROGRESS.search, lines) if m]
    if len(pts) >= 3:
        (t0, n0), (t1, n1) = pts[0], pts[-1]
        return (n1 - n0) / (t1 - t0)
    m = next(filter(None, map(SUMMARY.search, lines)), None)
    check(m, "no rate from the program:\n%s" % "\n".join(lines))
    return float(m.group(1))


def run(argv, env, seconds, daemon=None, name=None):
    """Runs argv to its end; its output lines, and the modes batond's
    status showed for tenant name while it ran."""
    modes = []
    c = Client(argv, env).__enter__()
    try:
        deadline = time.monotonic() + seconds + 60
        while c.proc.poll() is None:
            check(time.monotonic() < deadline, "%s did not end" % argv)
            time.sleep(0.5)
            if daemon and c.proc.poll() is None:
                try:
                    st = daemon.status(timeout=2)
                except (Fail, ValueError):
                    continue
                modes += [b.get("mode") for b in st.get("be", [])
                          if b.get("name") == name]
        c.proc.wait()
    finally:
        kill_group(c.proc)
    with c._cond:
        c._cond.wait_for(lambda: c._eof, timeout=5)
        lines = list(c.lines)
    check(c.proc.returncode == 0, "%s exited %d:\n%s" % (
        " ".join(argv), c.proc.returncode, "\n".join(lines[-20:])))
    return lines, modes


def settle(d, timeout=6.0):
    """Waits until batond no longer counts the free run just ended as
    load no tenant reports: on a CPU device that load (smoothed over a
    second) shrinks every best-effort budget, rightly, and a gated run
    started at once would pay for the free one before it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if d.status(timeout=2).get("other_util", 0.0) < 0.1:
                return
        except (Fail, ValueError):
            pass
        time.sleep(0.2)


def judge_shape(a, d, env, shape, items, steps):
    """One shape: free, then ROUNDS times split and whole through the
    gate, each followed by a free run; each way's gated rates against
    the means of the free runs around them. The failures, [] if none."""
    prog = [a.hash, "--items", str(items), "--steps", str(steps),
            "--seconds", "%g" % a.seconds, "--progress-every", "0.5"]
    frees = [rate(run(prog, env, a.seconds)[0])]
    got = {}  # way -> [(gated rate, free around it, lines, modes)]
    for _ in range(ROUNDS):
        for way in ("split", "whole"):
            genv = dict(env)
            if way == "split":
                genv["BATON_CL_SPLIT"] = "hash_chain"
            name = "%s-%s" % (shape, way)
            settle(d)
            lines, modes = run([a.baton, "run", "--be", "--name", name,
                                "--"] + prog, genv, a.seconds, d, name)
            frees.append(rate(run(prog, env, a.seconds)[0]))
            got.setdefault(way, []).append(
                (rate(lines), (frees[-2] + frees[-1]) / 2, lines, modes))
    bad = []
    for way, runs in got.items():
        name = "%s-%s" % (shape, way)
        r = sum(g for g, _, _, _ in runs) / sum(f for _, f, _, _ in runs)
        spam = [ln for _, _, lines, _ in runs for ln in lines
                if "no window" in ln]
        modes = [m for _, _, _, ms in runs for m in ms]
        cont = (sum(m == "continuous" for m in modes) / len(modes)
                if modes else 0.0)
        print("%s: gated %s items/s, free around them %s: %.1f %%; "
              "continuous in %.0f %% of batond's samples; %d 'no "
              "window' lines" % (
                  name, ", ".join("%.0f" % g for g, _, _, _ in runs),
                  ", ".join("%.0f" % f for _, f, _, _ in runs), r * 100,
                  cont * 100, len(spam)))
        sys.stdout.flush()
        if r < MIN_RATIO:
            # under another's load only a near miss may be the load's
            bad.append((SLOW if r >= NEAR else "") +
                       "%s: %.1f %% of the free rate, under %.0f %%" % (
                name, r * 100, MIN_RATIO * 100))
        if spam:
            bad.append("%s: the gate logged %r with no game" % (name,
                                                                 spam[0]))
        if cont < 0.5:
            bad.append("%s: batond had it continuous in %.0f %% of its "
                       "samples" % (name, cont * 100))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baton", required=True)
    ap.add_argument("--batond", required=True)
    ap.add_argument("--hash", required=True)
    ap.add_argument("--seconds", type=float, default=2.5)
    a = ap.parse_args()
    probe = subprocess.run([a.hash, "--items", "64", "--steps", "4",
                            "--launches", "1", "--quiet"],
                           capture_output=True)
    if probe.returncode == 77:
        print("no OpenCL device: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="baton-gate-free-")
    sock = os.path.join(tmp, "batond.sock")
    env = dict(os.environ, BATON_SOCKET=sock)
    env.pop("LD_PRELOAD", None)
    env.pop("BATON_CL_SPLIT", None)
    d = Batond(a.batond, a.baton, sock, [], env)
    bad = []
    try:
        d.start()
        with Steal(d.proc.pid) as steal:
            for shape, items, steps in SHAPES:
                bad += judge_shape(a, d, env, shape, items, steps)
        print(steal)
    finally:
        d.stop()
        try:
            os.rmdir(tmp)
        except OSError:
            pass
    # Batond yields a CPU device to load no tenant reports (its
    # other_util), the free program does not: with other processes'
    # work on the machine a rate check says nothing of the gate, and is
    # skipped as the other timing checks are (batonbed.timing_verdict).
    busy = steal.others is not None and steal.others > OTHERS_SKIP
    if busy and bad and all(b.startswith(SLOW) for b in bad):
        for b in bad:
            print("SKIP: %s, while other processes used %.2f cores" % (
                b[len(SLOW):], steal.others))
        return 77
    for b in bad:
        print("FAIL: %s" % b[len(SLOW):] if b.startswith(SLOW) else
              "FAIL: %s" % b)
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
