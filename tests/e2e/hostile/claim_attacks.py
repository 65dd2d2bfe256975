"""Claims of a uid-65534 game against what other users get (a root batond,
a root glxgears under `baton run` on a private Xvfb, the attacker a fake
shim of fair_attacks.py: a Python process that registers a game over the
socket with a sealed memfd and pushes frame records into its ring).

Cases, every number compared with the same run's phase without the
attacker:

  window   root's be-matmul (the BE SDK on PoCL) beside root's glxgears
           (SA, SLA 30) gets a best-effort window and device time; a game
           of nobody asking for 1000 FPS and presenting 5 (1 ms of GPU a
           frame) must leave it at least half of both (before: window 0,
           no device time); a game of nobody that never reports a GPU
           time may shut the window while its cost is unknown, and then
           status names it (be_hold), but not for good
  esa      under ESA, root's glxgears alone, then beside a game of nobody
           presenting 31 FPS at 0.2 ms of GPU a frame: the share of ESA's
           budget glxgears' target stands for stays at 60 % or more of
           what it was alone (before: its owner's half of the budget, then
           the ceiling down to the SLA floor)

Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv, no X, no
be-matmul or OpenCL device for `window`)."""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fair_attacks import FakeShim  # noqa: E402
from hostile import (NOBODY, SKIP, Bed, Fail, Xvfb,  # noqa: E402
                     check, game, game_test_args)

SLA = 30.0
SLA_REF = SLA * 1.01  # core_sla_ref with the default sla_margin
UTIL_TARGET = 0.95    # ESA's default util_target


def be_matmul(batond):
    """be-matmul of the same build as batond (examples/be-matmul), if it
    finds an OpenCL device; else None."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(batond))))
    exe = os.path.join(build, "examples", "be-matmul", "be-matmul")
    if not os.access(exe, os.X_OK):
        return None
    probe = subprocess.run([exe, "--n", "8", "--tasks", "1", "--naive",
                            "--quiet"], capture_output=True)
    return exe if probe.returncode == 0 else None


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


class BeSample:
    """The BE tenant's window (ms) and GPU share, the host's other load
    and be_hold, sampled every 0.2 s for `seconds`. The host's other load
    (the machine's other work) can leave best-effort work no budget, so no
    window, whatever the games do; window() is the median over the
    samples where it did not (be_hold reason "other"), None with fewer
    than 3."""

    def __init__(self, bed, name, seconds):
        self.rows = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            st = bed.daemon.status()
            be = [b for b in st.get("be", []) if b["name"] == name]
            check(be, "best-effort tenant %s is gone" % name)
            self.rows.append((be[0]["window_ms"], be[0]["gpu_share"],
                              st.get("other_util", 0),
                              st.get("be_hold", {})))
            time.sleep(0.2)

    def window(self):
        w = [r[0] for r in self.rows if r[3].get("reason") != "other"]
        return median(w) if len(w) >= 3 else None

    def share(self):
        return median([r[1] for r in self.rows])

    def other(self):
        return median([r[2] for r in self.rows])

    def holds(self):
        return [r[3] for r in self.rows]


def fmt(x):
    return "-" if x is None else "%.2f" % x


def judge_be(what, alone, beside, failures):
    """Window and device share beside the attacker at half or more of
    alone's, each judged only where the host's other load let the
    harvest have a budget."""
    w0, w1 = alone.window(), beside.window()
    print("window: %s: BE window %s ms (alone %s), device share %.3f "
          "(alone %.3f), other load %.2f (alone %.2f)" % (
              what, fmt(w1), fmt(w0), beside.share(), alone.share(),
              beside.other(),
              alone.other()))
    if w0 is None or w1 is None:
        print("INCONCLUSIVE: the host's other load left no budget")
        return
    if w1 < 0.5 * w0:
        failures.append("window: %.1f ms %s, %.1f alone" % (w1, what, w0))
    # The share follows the budget, which the host's other load moves:
    # judged only while it was low in both phases.
    if max(alone.other(), beside.other()) < 0.3 and \
            beside.share() < 0.5 * alone.share():
        failures.append("window: device share %.3f %s, %.3f alone" % (
            beside.share(), what, alone.share()))


def nobody_id(bed):
    for t in bed.daemon.status()["tenants"]:
        if t.get("uid") == NOBODY:
            return t["id"]
    return None


def case_window(args, matmul, failures):
    with Bed(args.baton, args.batond, ["--sla", str(SLA)]) as bed, \
            Xvfb(args.xvfb) as x, \
            game(bed, x, args.glxgears, name="game", sla=SLA):
        bed.daemon.wait_tenants(["game"], 20)
        env = dict(bed.env)
        env.pop("LD_PRELOAD", None)
        be = subprocess.Popen([matmul, "--n", "256", "--seconds", "60",
                               "--name", "be", "--quiet", "--no-space"],
                              env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              start_new_session=True)
        try:
            end = time.monotonic() + 10
            while not [b for b in bed.daemon.status().get("be", [])
                       if b["name"] == "be"]:
                check(time.monotonic() < end and be.poll() is None,
                      "be-matmul did not register")
                time.sleep(0.1)
            time.sleep(2.0)
            alone = BeSample(bed, "be", 4.0)
            check(alone.window() is None or alone.window() > 5.0,
                  "no BE window to defend (%s ms)" % alone.window())
            atk = [{"name": "greedy", "sla": 1000, "fps": 5,
                    "gpu_ns": 1000000}]
            with FakeShim(bed, atk) as fake:
                check(fake.welcomed(), "greedy refused: %s" % fake.replies)
                time.sleep(2.0)
                beside = BeSample(bed, "be", 4.0)
            judge_be("beside nobody's game at SLA 1000 presenting 5 FPS",
                     alone, beside, failures)
            uncosted = [{"name": "nocost", "sla": SLA, "fps": 30,
                         "gpu_ns": -1}]
            with FakeShim(bed, uncosted) as fake:
                check(fake.welcomed(), "nocost refused: %s" % fake.replies)
                who = nobody_id(bed)
                early = BeSample(bed, "be", 1.5).holds()
                time.sleep(1.5)
                late = BeSample(bed, "be", 3.0)
            named = [h for h in early if h.get("tenant") == who]
            print("window: nobody's game with no GPU time (id %s) named %d "
                  "of %d times in its first 1.5 s: %s" % (
                      who, len(named), len(early),
                      named[0] if named else early[-1]))
            if not named:
                failures.append("window: status never named tenant %s, "
                                "whose cost is unknown: %s" % (who, early))
            judge_be("after 3 s beside nobody's game with no GPU time",
                     alone, late, failures)
        finally:
            os.killpg(be.pid, 9)
            be.wait()


def budget_taken(bed, name, seconds):
    """The median over the last half of `seconds` of the share of ESA's
    budget the game's target stands for, target x k / (util_target -
    other load), k its GPU time per frame (gpu_share / fps): 1 when it
    gets the whole budget. The host's other load (the machine's other
    work, from /proc/stat) moves ESA's budget from one second to the
    next; this does not move with it. Also the median target."""
    time.sleep(seconds / 2)
    fracs, targets = [], []
    end = time.monotonic() + seconds / 2
    while time.monotonic() < end:
        st = bed.daemon.status()
        t = [t for t in st["tenants"]
             if t["name"] == name and t.get("uid") == 0]
        check(t, "tenant %s is gone" % name)
        t = t[0]
        budget = UTIL_TARGET - st.get("other_util", 0)
        if t["fps"] > 0 and budget > 0.05:
            k = t["gpu_share"] / t["fps"]
            fracs.append(t["target_fps"] * k / budget)
        targets.append(t["target_fps"])
        time.sleep(0.25)
    return median(fracs), median(targets)


def case_esa(args, failures):
    with Bed(args.baton, args.batond,
             ["--policy", "esa", "--sla", str(SLA)]) as bed, \
            Xvfb(args.xvfb) as x, \
            game(bed, x, args.glxgears, name="game", sla=SLA):
        bed.daemon.wait_tenants(["game"], 20)
        f0, alone = budget_taken(bed, "game", 4.0)
        atk = [{"name": "cheap", "sla": SLA, "fps": 31, "gpu_ns": 200000}]
        with FakeShim(bed, atk) as fake:
            check(fake.welcomed(), "cheap refused: %s" % fake.replies)
            f1, beside = budget_taken(bed, "game", 8.0)
            st = bed.daemon.status()
        print("esa: glxgears alone: target %.1f, %s of ESA's budget; "
              "beside nobody's 0.2 ms 31 FPS game: target %.1f, %s of "
              "the budget (common rate %.1f, other load %.2f)" % (
                  alone, fmt(f0), beside, fmt(f1), st.get("common_fps", 0),
                  st.get("other_util", 0)))
        # At its SLA alone (the host's other load left ESA nothing more)
        # there is nothing to judge (as fair_attacks.py says).
        if f0 is None or f1 is None or alone < 2 * SLA_REF:
            print("INCONCLUSIVE: alone the game got only %.1f" % alone)
        elif f1 < 0.6 * f0:
            failures.append("esa: glxgears' target stands for %.2f of "
                            "ESA's budget beside a cheap slow game of "
                            "nobody, %.2f alone (target %.1f, %.1f)" % (
                                f1, f0, beside, alone))


def main():
    args = game_test_args(__doc__)
    if args is None:
        return SKIP
    t0 = time.monotonic()
    failures = []
    try:
        matmul = be_matmul(args.batond)
        if matmul:
            case_window(args, matmul, failures)
        else:
            print("window: skipped (no be-matmul or no OpenCL device)")
        case_esa(args, failures)
    except Fail as e:
        failures.append(str(e))
    print("%.1f s" % (time.monotonic() - t0))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
