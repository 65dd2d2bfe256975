#!/usr/bin/env python3
"""baton profile end to end: examples/arena on Mesa llvmpipe under a
private Xvfb, plus small fake games for the error paths.

Checks:
  - `baton profile -- arena` over 3 levels x 80 frames crossing town ->
    panorama writes a model file with 3 levels and 42 types; the best
    level's benefit estimate is 1 (its SSIM against itself), the lower
    levels have a lower measured SSIM and a lower cost than the best;
    the JSON table has every level x {town, panorama, all} with finite
    errors; --keep keeps each level's frames.csv and captures (and
    --from on them writes the same model file), and without it the
    temporary directory is removed;
  - the text table (a fake game whose cost is linear in its counts:
    held-out cost L1 under 0.1 %), and the errors: CMD not found (127),
    a game that writes no frames.csv (3), a game that fails (6), frame
    counts that differ between levels (3), a malformed CSV line (3, the
    line named), --help (0) and a bad option (2).
Standard library only.

usage: profile_e2e.py --baton PATH --arena PATH [--xvfb PATH]
       profile_e2e.py --fake MODE   (run as the fake game)
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from xvfb import Xvfb  # noqa: E402

HERE = os.path.abspath(__file__)


class Fail(Exception):
    pass


def fake_game(mode):
    """A game that follows the protocol with tiny 16x16 captures: level l
    blurs the image less the higher l is, and costs more."""
    level = int(os.environ["BATON_QUALITY_LEVEL"])
    out = os.environ["BATON_PROFILE_DIR"]
    if mode == "fail":
        return 1
    if mode == "nocsv":
        return 0
    frames = 32 + (level if mode == "count" else 0)
    with open(os.path.join(out, "frames.csv"), "w") as f:
        # active_z is never counted (a declared type never seen)
        f.write("frame,area,cost_s,active_a,active_b,active_z\n")
        for i in range(frames):
            # b varies within the even rows (the fit) and the odd rows
            a, b = 1 + i % 3, 2 + (i // 2) % 2
            cost = 0.001 * (level + 1) * (1 + a + 2 * b)
            area = "inside" if i < 16 else "outside"
            if mode == "bad" and i == 4:
                f.write("%d,%s,oops,%d,%d,0\n" % (i, area, a, b))
                continue
            f.write("%d,%s,%.6f,%d,%d,0\n" % (i, area, cost, a, b))
            px = bytearray()
            for y in range(16):
                for x in range(16):
                    v = ((x * 37 + y * 91 + i * 13) % 256)
                    if level < 2:  # lower levels: quantised
                        v = v // (8 * (2 - level)) * (8 * (2 - level))
                    px += bytes((v, v, v))
            with open(os.path.join(out, "frame_%06d.ppm" % i), "wb") as p:
                p.write(b"P6\n16 16\n255\n" + bytes(px))
    return 0


def profile(args, env, argv, expect_rc, needle=None):
    p = subprocess.run([args.baton, "profile"] + argv, env=env,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != expect_rc:
        raise Fail("baton profile %s: exit %d (expected %d): %s" %
                   (" ".join(argv), p.returncode, expect_rc,
                    p.stderr.strip()))
    if needle and needle not in p.stderr:
        raise Fail("baton profile %s: stderr lacks %r: %s" %
                   (" ".join(argv), needle, p.stderr.strip()))
    return p


def fake(mode):
    return ["--", sys.executable, HERE, "--fake", mode]


def check_errors(args, env, tmp):
    p = profile(args, env, ["--help"], 0)
    if "--levels" not in p.stdout:
        raise Fail("--help does not list --levels")
    profile(args, env, ["--bogus", "--", "true"], 2, "--bogus")
    profile(args, env, ["--levels", "1", "--", "true"], 2, "--levels")
    profile(args, env, ["--", "/nonexistent/game"], 127, "/nonexistent")
    out = ["--out", os.path.join(tmp, "x.json")]
    profile(args, env, out + ["--game", "g"] + fake("nocsv"), 3,
            "frames.csv")
    profile(args, env, out + ["--game", "g"] + fake("fail"), 6,
            "exited with status 1")
    profile(args, env, out + ["--game", "g"] + fake("count"), 3, "frames")
    profile(args, env, out + ["--game", "g"] + fake("bad"), 3,
            "frames.csv:6: cost_s 'oops'")
    if os.path.exists(os.path.join(tmp, "x.json")):
        raise Fail("a failed profile left a model file")
    p = profile(args, env, out + ["--game", "g"] + fake("ok"), 0)
    lines = p.stdout.splitlines()
    rows = [ln.split() for ln in lines if ln.split()[:1] in
            (["0"], ["1"], ["2"])]
    if len(rows) != 9 or not any(r[1] == "inside" for r in rows):
        raise Fail("text table: %s" % p.stdout)
    for r in rows:
        if len(r) != 15:
            raise Fail("text table: %d columns: %s" % (len(r), r))
        for v in r[2:]:
            if not math.isfinite(float(v.rstrip("%"))):
                raise Fail("text table: not finite: %s" % r)
        # the fake cost is linear in the counts: the fit recovers it, per
        # frame (column 6) and on epoch means (column 11; column 10 is the
        # epochs' count)
        if int(r[10]) < 1:
            raise Fail("text table: no epoch: %s" % r)
        for c in (6, 11):
            if float(r[c].rstrip("%")) > 0.1:
                raise Fail("text table: cost L1 %s on exact data: %s" %
                           (r[c], r))
    # Paper mode (OLS) fits too: the never-counted type is left out of the
    # fit (an all-zero column would make the design rank-deficient).
    paper = os.path.join(tmp, "paper.json")
    profile(args, env, ["--out", paper, "--game", "g", "--paper"] +
            fake("ok"), 0)
    with open(paper) as f:
        m = json.load(f)
    for lv in m["levels"]:
        if lv["cost"]["weights"][2] != 0 or lv["cost"]["kept"][2]:
            raise Fail("paper mode: the unseen type's cost %s" % lv["cost"])


def check_arena(args, env, tmp):
    keep = os.path.join(tmp, "keep")
    model = os.path.join(tmp, "arena.json")
    p = profile(args, env, ["--json", "--keep", keep, "--out", model, "--",
                            args.arena, "--seed", "3", "--start-frame",
                            "160", "--frames", "80"], 0)
    table = json.loads(p.stdout)
    with open(model) as f:
        m = json.load(f)
    if m["game"] != "arena" or len(m["levels"]) != 3 or m["n_types"] != 42:
        raise Fail("model: game %s, %d levels, %d types" %
                   (m["game"], len(m["levels"]), m["n_types"]))
    stats = {}
    for lv in table["levels"]:
        names = [a["area"] for a in lv["areas"]]
        if names != ["town", "panorama", "all"]:
            raise Fail("level %d: areas %s" % (lv["level"], names))
        for a in lv["areas"]:
            for k in ("cost_mean_s", "ssim_mean", "cost_l1", "cost_l2",
                      "benefit_l1", "benefit_l2"):
                if a[k] is None or not math.isfinite(a[k]):
                    raise Fail("level %d %s: %s = %s" %
                               (lv["level"], a["area"], k, a[k]))
            ep = a["epoch"]
            if ep["rows"] != 5 or ep["epochs"] < 1 or \
                    not ep["cost_l1"] >= 0 or not ep["benefit_l1"] >= 0:
                raise Fail("level %d %s: epoch %s" %
                           (lv["level"], a["area"], ep))
        stats[lv["level"]] = lv["areas"][-1]
    best = stats[2]
    if best["ssim_mean"] != 1.0 or best["benefit_l1"] > 1e-6:
        raise Fail("best level: ssim %s, benefit L1 %s" %
                   (best["ssim_mean"], best["benefit_l1"]))
    # The saved best-level benefit model (Baton mode: the loss 1 - SSIM)
    # at the kept frames' counts is 1.
    loss = m["levels"][2]["benefit"]
    with open(os.path.join(keep, "level-2", "frames.csv")) as f:
        head = f.readline().strip().split(",")
        cols = [i for i, c in enumerate(head) if c.startswith("active_")]
        for line in f:
            g = [float(line.split(",")[i]) for i in cols]
            d = loss["intercept"] + sum(w * x for w, x in
                                        zip(loss["weights"], g))
            if abs(d) > 1e-3:
                raise Fail("best level's benefit estimate %f" % (1 - d))
    for lv in (0, 1):
        s = stats[lv]
        if not s["ssim_mean"] < best["ssim_mean"] or \
                not s["cost_mean_s"] < best["cost_mean_s"]:
            raise Fail("level %d: ssim %f cost %f vs best %f %f" %
                       (lv, s["ssim_mean"], s["cost_mean_s"],
                        best["ssim_mean"], best["cost_mean_s"]))
        if not os.path.exists(os.path.join(keep, "level-%d" % lv,
                                           "frame_000200.ppm")):
            raise Fail("--keep: level %d's frame 200 is missing" % lv)
    # --from re-analyses the kept runs: the same data, the same model.
    again = os.path.join(tmp, "again.json")
    profile(args, env, ["--from", keep, "--game", "arena", "--out", again],
            0)
    with open(model, "rb") as a, open(again, "rb") as b:
        if a.read() != b.read():
            raise Fail("--from %s: a different model file" % keep)
    profile(args, env, ["--from", keep, "--", "true"], 2, "--from")
    profile(args, env, ["--keep", keep, "--", "true"], 2, "--from")
    print("arena: cost L1 (all) %s; ssim %s" %
          ([round(stats[lv]["cost_l1"], 3) for lv in (0, 1, 2)],
           [round(stats[lv]["ssim_mean"], 4) for lv in (0, 1, 2)]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fake")
    p.add_argument("--baton")
    p.add_argument("--arena")
    p.add_argument("--xvfb", default="Xvfb")
    args = p.parse_args()
    if args.fake:
        return fake_game(args.fake)
    try:
        with tempfile.TemporaryDirectory(prefix="baton-profile-e2e-") as tmp, \
                Xvfb(args.xvfb) as x:
            tmpdir = os.path.join(tmp, "tmp")
            os.mkdir(tmpdir)
            env = dict(os.environ, DISPLAY=x.display, TMPDIR=tmpdir,
                       BATON_SOCKET=os.path.join(tmp, "none.sock"))
            check_errors(args, env, tmp)
            check_arena(args, env, tmp)
            if os.listdir(tmpdir):
                raise Fail("temporary directories left: %s" %
                           os.listdir(tmpdir))
    except Fail as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
