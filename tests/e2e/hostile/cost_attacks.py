"""Hostile GPU-cost reports (a tenant's report is a claim): a root glxgears
game under `baton run --sla 30` on the default GPU (llvmpipe: the fallback
"gpu0", a CPU device while the game's software flag is borne out by its
CPU time), then tenants of uid 65534 registered by the fake shim of
fair_attacks.py that claim 33 ms of GPU time a frame at 30 FPS while their
process does next to nothing: one with plain GPU records, one flagging
them as a software rasterizer's (BATON_FRAME_GPU_SOFTWARE).

`baton capacity` (as root) is asked before and after they join, in the
same run: the total load and the number of newcomers that fit must stay
about the same (before: load 0.155 -> 1.14, "3 more" -> no fit). On a CPU
device the load is at least the host's (other_util: the CPU load no tenant
reports), so where the host is too busy for the game alone to leave room
for two newcomers, capacity is not judged; the GPU time batond counts of
its tenants (status gpu_util, capacity's busy part) always is: it must
stay near the game's alone. Status shows what the liars claimed
(claimed_share) and what counted (gpu_share).

Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv, no X)."""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hostile import SKIP, Bed, Fail, Xvfb, check, game  # noqa: E402
from hostile import NOBODY, game_test_args  # noqa: E402
from fair_attacks import FakeShim  # noqa: E402

SLA = 30.0
COST_MS = 4.0  # the newcomer `baton capacity` is asked about
CLAIM_NS = 33000000  # a whole frame period at 30 FPS
SOFTWARE = 2  # BATON_FRAME_GPU_SOFTWARE
NO_FIT = 5  # `baton capacity`: it does not fit (cli/client.h)
SETTLE_S = 6.0  # k and three quiet capacity periods (1 s each)
SAMPLES = 5
# core_admit_reason_str's answers while no period or no quiet ones ended
WAITING = ("no sampling period", "an overload, arrival or departure")


def capacity(bed):
    r = subprocess.run([bed.baton, "capacity", "--cost", str(COST_MS),
                        "--sla", str(SLA), "--json"], env=bed.env,
                       capture_output=True, text=True, timeout=10)
    check(r.returncode in (0, NO_FIT) and r.stdout,
          "baton capacity failed (exit %d): %s" % (r.returncode, r.stderr))
    return json.loads(r.stdout)


def settled_capacity(bed, least_s):
    """After least_s, the capacity answer once no join restarts the quiet
    count (at most 8 s more): the lowest load and most newcomers of
    SAMPLES answers a second apart (the host's other work only ever adds
    load: a claim that counts is in every answer), and the most GPU time
    counted of the tenants (the sum of their gpu_share in status)."""
    time.sleep(least_s)
    end = time.monotonic() + 8.0
    while True:
        a = capacity(bed)
        waiting = a.get("reason", "").startswith(WAITING)
        if not waiting or time.monotonic() > end:
            break
        time.sleep(0.5)
    answers, util = [], []
    for _ in range(SAMPLES):
        answers.append(capacity(bed))
        util.append(sum(t["gpu_share"]
                        for t in bed.daemon.status()["tenants"]))
        time.sleep(1.0)
    best = min(answers, key=lambda x: x["load"])
    best["more"] = max(x["more"] if x["fits"] else 0 for x in answers)
    best["fits"] = best["more"] > 0
    best["gpu_util"] = max(util)
    return best


def summary(a):
    return "%s, load %.3f, %d more (limit %.2f, %s); GPU time counted %.3f" \
        % ("fits" if a["fits"] else "no fit", a["load"], a["more"],
           a["limit"], a["reason"], a["gpu_util"])


def show(bed, label):
    for t in bed.daemon.status()["tenants"]:
        print("  %s: %s uid %d: gpu_share %.3f, claimed_share %s" % (
            label, t["name"], t["uid"], t["gpu_share"],
            "%.3f" % t["claimed_share"] if "claimed_share" in t else "-"))


def run(bed, x, glxgears, failures):
    with game(bed, x, glxgears, name="game", sla=SLA):
        bed.daemon.wait_tenants(["game"], 10)
        a0 = settled_capacity(bed, 3.0)
        print("game alone: %s" % summary(a0))
        show(bed, "alone")
        liars = [{"name": "liar", "fps": 30, "gpu_ns": CLAIM_NS},
                 {"name": "liar-sw", "fps": 30, "gpu_ns": CLAIM_NS,
                  "flags": SOFTWARE}]
        with FakeShim(bed, liars) as atk:
            check(len(atk.welcomed()) == 2,
                  "the liars were refused: %s" % atk.replies)
            a1 = settled_capacity(bed, SETTLE_S)
            show(bed, "beside")
        print("beside two tenants of uid %d claiming %.0f ms a frame at 30 "
              "FPS: %s" % (NOBODY, CLAIM_NS / 1e6, summary(a1)))
        # Their processes use almost nothing: what they add is noise.
        # Counted or in the load, at most a quarter of what they claim
        # (about 2 GPUs; the host's other work moves the load by 0.1 or
        # more between answers here); half the newcomers lost, at most.
        # Before: they counted 0.99 each, the load was 2.0, no fit.
        claimed = len(liars) * CLAIM_NS * 1e-9 * 30
        u0, u1 = a0["gpu_util"], a1["gpu_util"]
        if u1 > u0 + 0.25 * claimed:
            failures.append("GPU time counted %.3f beside the liars, %.3f "
                            "before: their claims count" % (u1, u0))
        if not a0["fits"] or a0["more"] < 2:
            print("INCONCLUSIVE: with the game alone only %d more fit (the "
                  "host is busy); capacity not judged" % a0["more"])
            return
        if a1["load"] > a0["load"] + 0.25 * claimed:
            failures.append("load %.3f beside the liars, %.3f before: "
                            "their claims count" % (a1["load"], a0["load"]))
        # The newcomers that fit follow the host's own load too (other
        # processes, here a build): judged only while that load, the part
        # of the load no tenant's counted GPU time explains, held within
        # 0.1 between the two answers. The counted time and the load,
        # above, are judged whatever the host does.
        host0, host1 = a0["load"] - u0, a1["load"] - u1
        if host1 > host0 + 0.1:
            print("INCONCLUSIVE: the host's own load rose from %.3f to "
                  "%.3f between the answers; newcomers not judged" % (
                      host0, host1))
        elif a1["more"] < a0["more"] // 2:
            failures.append("%d more beside the liars; %d before" % (
                a1["more"], a0["more"]))


def main():
    args = game_test_args(__doc__)
    if args is None:
        return SKIP
    t0 = time.monotonic()
    failures = []
    try:
        bed = Bed(args.baton, args.batond, ["--sla", str(SLA)])
        with bed:
            check(bed.daemon.alive(), "batond did not start")
            with Xvfb(args.xvfb) as x:
                run(bed, x, args.glxgears, failures)
    except Fail as e:
        failures.append(str(e))
    print("%.1f s" % (time.monotonic() - t0))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
