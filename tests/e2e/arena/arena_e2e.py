#!/usr/bin/env python3
"""examples/arena end to end on Mesa llvmpipe under a private Xvfb.

Checks, on short stretches of the camera path at each quality level:
  - two runs with the same seed and level write byte-identical frames
    (the world and the path depend on seed and frame number only);
  - the levels give different images, and so does another seed;
  - --capture-every N captures every Nth frame, as binary P6 at 640x360;
  - the --log CSV has its header and one well-formed row per frame (its
    finish_s, frame start to glFinish, within cpu_ms; on llvmpipe cost_s
    is the process's CPU time over the cores), the
    area following the path (town -> panorama at frame 200, dungeon at
    400) and objects drawn;
  - --help exits 0, a bad argument exits 2 and names the argument;
  - a fatal signal mid-run is reported on stderr (signal, thread,
    backtrace through arena's own code) and still ends the process by
    that signal.
Standard library only.

usage: arena_e2e.py --arena PATH [--xvfb PATH]
"""

import argparse
import csv
import os
import subprocess
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from xvfb import Xvfb  # noqa: E402
import crashable  # noqa: E402

# The mesh types, each counted per apparent size and in the sun's view
# (render.h).
TYPES = ["%s_%s" % (t, s)
         for t in ("tile", "crate", "house", "wall", "tree", "statue")
         for s in ("xl", "l", "m", "s", "xs", "sun_l", "sun_s")]
COLUMNS = ["frame", "level", "area", "gpu_ms", "cpu_ms", "cost_s",
           "finish_s", "proc_cpu_s"] + \
    ["active_" + t for t in TYPES]
# Two stretches that cross an area boundary each.
STRETCHES = [(198, 4, ["town", "town", "panorama", "panorama"]),
             (399, 2, ["panorama", "dungeon"])]


class Fail(Exception):
    pass


def run(args, env, argv, expect_rc=0):
    p = subprocess.run([args.arena] + argv, env=env, capture_output=True,
                       text=True, timeout=120)
    if p.returncode != expect_rc:
        raise Fail("arena %s: exit %d (expected %d): %s" %
                   (" ".join(argv), p.returncode, expect_rc,
                    p.stderr.strip()))
    return p


def capture(args, env, tmp, name, seed, level, start, frames, every=1):
    out = os.path.join(tmp, name)
    os.mkdir(out)
    log = os.path.join(out, "log.csv")
    run(args, env, ["--seed", str(seed), "--level", str(level),
                    "--start-frame", str(start), "--frames", str(frames),
                    "--capture", out, "--capture-every", str(every),
                    "--log", log])
    return out, log


def frame_bytes(out, frame):
    with open(os.path.join(out, "frame_%06d.ppm" % frame), "rb") as f:
        return f.read()


def check_log(log, level, start, areas):
    with open(log, newline="") as f:
        rows = list(csv.reader(f))
    if rows[0] != COLUMNS:
        raise Fail("%s: header %s, expected %s" % (log, rows[0], COLUMNS))
    rows = rows[1:]
    if len(rows) != len(areas):
        raise Fail("%s: %d rows for %d frames" % (log, len(rows), len(areas)))
    for i, row in enumerate(rows):
        if len(row) != len(COLUMNS):
            raise Fail("%s: row %d has %d columns" % (log, i, len(row)))
        if int(row[0]) != start + i or int(row[1]) != level or \
                row[2] != areas[i]:
            raise Fail("%s: row %s, expected frame %d level %d area %s" %
                       (log, row, start + i, level, areas[i]))
        gpu, cpu, cost = float(row[3]), float(row[4]), float(row[5])
        finish, proc = float(row[6]), float(row[7])
        # llvmpipe: cost_s is the process's CPU time over the cores
        if not (gpu == -1 or gpu >= 0) or cpu <= 0 or \
                not 0 < finish <= cpu / 1e3 or not proc > 0 or \
                not 0 < cost <= proc * 1.0001:
            raise Fail("%s: bad times in %s" % (log, row))
        if sum(int(c) for c in row[8:]) == 0:
            raise Fail("%s: no object drawn in %s" % (log, row))


def check_crash_report(args, env, tmp):
    """SIGSEGV while drawing: the report names the signal and the thread,
    the backtrace reaches arena's own frames, and the exit is by the
    signal (the default action, with its core where cores are kept)."""
    log = os.path.join(tmp, "crash.csv")
    proc = crashable.start([args.arena, "--frames", "100000", "--log", log],
                           env, tmp)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if os.path.exists(log) and os.path.getsize(log) > 2048:
            break  # the header and some rows: frames are being drawn
        time.sleep(0.1)
    proc.send_signal(signal.SIGSEGV)
    _, err = proc.communicate(timeout=60)
    if proc.returncode != -signal.SIGSEGV:
        raise Fail("after SIGSEGV: exit %d, expected -%d: %s" %
                   (proc.returncode, signal.SIGSEGV, err.strip()))
    if "AddressSanitizer" in err:
        return  # a sanitizer build: its own report
    lines = err.splitlines()
    head = [i for i, ln in enumerate(lines)
            if ln.startswith("arena: fatal signal 11 (SEGV, code ") and
            "in thread" in ln and ln.endswith("backtrace:")]
    if not head or not any("/arena(" in ln for ln in lines[head[0] + 1:]):
        raise Fail("no crash report with a backtrace through arena on "
                   "SIGSEGV: %s" % err.strip())


def check(args, env, tmp):
    check_crash_report(args, env, tmp)
    p = run(args, env, ["--help"])
    if "--seed" not in p.stdout:
        raise Fail("--help does not list --seed")
    for bad, named in [(["--level", "3"], "--level"),
                       (["--frames", "x"], "--frames"),
                       (["--bogus"], "--bogus"), (["--seed"], "--seed")]:
        p = run(args, env, bad, expect_rc=2)
        if named not in p.stderr:
            raise Fail("%s: stderr does not name %s: %s" %
                       (bad, named, p.stderr.strip()))

    firsts = {}
    for level in range(3):
        for start, frames, areas in STRETCHES:
            a, log = capture(args, env, tmp, "a%d-%d" % (level, start), 5,
                             level, start, frames)
            b, _ = capture(args, env, tmp, "b%d-%d" % (level, start), 5,
                           level, start, frames)
            check_log(log, level, start, areas)
            for k in range(frames):
                fa = frame_bytes(a, start + k)
                if not fa.startswith(b"P6\n640 360\n255\n") or \
                        len(fa) != len(b"P6\n640 360\n255\n") + 640 * 360 * 3:
                    raise Fail("frame %d: not a 640x360 P6" % (start + k))
                if fa != frame_bytes(b, start + k):
                    raise Fail("level %d frame %d: two runs differ" %
                               (level, start + k))
            firsts.setdefault(start, []).append(frame_bytes(a, start))
    for start, images in firsts.items():
        for i in range(3):
            for j in range(i + 1, 3):
                if images[i] == images[j]:
                    raise Fail("frame %d: levels %d and %d give the same "
                               "image" % (start, i, j))
    other, _ = capture(args, env, tmp, "seed6", 6, 0, 198, 1)
    if frame_bytes(other, 198) == firsts[198][0]:
        raise Fail("seeds 5 and 6 give the same frame 198")
    every, _ = capture(args, env, tmp, "every", 5, 0, 10, 5, every=2)
    got = sorted(n for n in os.listdir(every) if n.endswith(".ppm"))
    want = ["frame_%06d.ppm" % f for f in (10, 12, 14)]
    if got != want:
        raise Fail("--capture-every 2: %s, expected %s" % (got, want))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--arena", required=True)
    p.add_argument("--xvfb", default="Xvfb")
    args = p.parse_args()
    # Absolute: the crash runs start in the scratch folder.
    args.arena = os.path.abspath(args.arena)
    try:
        with tempfile.TemporaryDirectory(prefix="baton-arena-e2e-") as tmp, \
                Xvfb(args.xvfb) as x:
            env = dict(os.environ, DISPLAY=x.display,
                       BATON_SOCKET=os.path.join(tmp, "none.sock"))
            check(args, env, tmp)
    except Fail as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
