#!/usr/bin/env python3
"""GPU grid's probe against Baton's shim telemetry (the probe's
cost and accuracy). bench/probe_accuracy (the BE SDK's own calibration
and probe, the core's core_harvest_observe) probes the first OpenCL
device (PoCL: the same CPU cores llvmpipe and lavapipe render on) every
--period-ms, under one batond (policy sa, SLA 30) and one private Xvfb,
in two phases back to back:

  idle   no games: the probe loop alone. alpha is calibrated here (the
         SDK calibrates at open on an idle device) and reused below.
  games  two games presenting under batond (harvest_real.py's: glmark2
         `build` and vkcube, 640x360, SLA 30), started after phase 1 and
         warmed up; the probe loop again, with phase 1's alpha. (The
         alpha it would have calibrated beside the games is printed too,
         and its verdicts recomputed with it.)

    bench/probe_accuracy.py [--build DIR] [--seconds 20] [--period-ms 5]
                            [--games G1,G2] [--out DIR]

Telemetry, the ground truth. batond's tick (epoch 100 ms) calls a tick
quiet iff no game presented a frame in it (core_harvest_tick,
games_quiet). It is rebuilt here from the frames' own timestamps, taken
outside the shim (swap_probe, xcb_probe; the moment the finished frame is
handed to X): 100-ms bins over the phase, quiet iff no stamp in the bin
(the bins are not aligned with batond's ticks; at 30 FPS no 100-ms span
lacks a frame either way). With no games every tick is quiet; with
games presenting at 30 FPS none is, so telemetry never enters
continuous mode there.

Per phase:
  k median / p99     the probe's time (launch + finish), us
  quiet              share of probes with k < alpha
  continuous         share of probes after which the loop was in
                     continuous mode (3 quiet in a row, one busy leaves)
  entries/s          times per second the loop ENTERED continuous mode
  telemetry          the same rule over 100-ms telemetry ticks: quiet
                     ticks' share, entries/s
  false              idle: busy probes' share (telemetry says quiet
                     throughout: each busy probe is a false busy, and
                     each exit from continuous mode a false one);
                     games: quiet probes' share and every entry (each
                     is a false quiet / a false entry: telemetry says
                     busy in every tick)
  near(W)            games only, per probe: a Present of any game in
                     [start - W, start + k + W]. A Present ends the
                     frame's rendering (llvmpipe rasterises before
                     handing the image to X), so W = 5 ms is "a frame
                     was rendering during the probe or just before it";
                     W = 33.3 ms (one frame period at 30 FPS) holds for
                     nearly every probe with two games. For each W: the
                     share of probes near a Present, and the share judged
                     busy among those near and among those not near. A
                     probe that sees frames is busy more often near one
                     than away from one.
  CPU per probe      bench/probe_accuracy's getrusage over its loop,
                     PoCL's threads included, divided by the probes
  CPU busy           the machine's (/proc/stat) over the phase; each
                     phase starts once the machine is quiet (under 25 %
                     busy over 1 s, waiting up to 60 s: others' builds
                     share it outside the lock), and says whether it was;
                     games: the games' own CPU (utime + stime) over the
                     loop, in cores (Xvfb's copy of each frame apart)

Run under `flock /tmp/baton-cpu.lock`. Writes OUT/results.json."""

import argparse
import bisect
import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harvest_real  # noqa: E402
from harvest_real import (SLA, Batond, Fail, Sampler, Xvfb, check,  # noqa
                          load, read_probe)
from batonbed import cpu_seconds, wait_quiet  # noqa: E402

TICK_S = 0.1       # batond's default epoch
ENTER_QUIET = 3    # core_harvest_params_default's enter_quiet
NEAR_MS = (0.0, 5.0, 1e3 / SLA)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q / 100.0 * (len(xs) - 1) + 0.5))] \
        if xs else float("nan")


def entries(quiet):
    """How many times the rule (ENTER_QUIET quiet in a row enter, one
    busy leaves; the counter saturates) enters continuous mode over the
    verdicts. The probe phases take the C program's own mode column (the
    core's function); this is for telemetry ticks and a recomputed
    alpha."""
    n, run, cont = 0, 0, False
    for q in quiet:
        run = min(run + 1, ENTER_QUIET) if q else 0
        now = run >= ENTER_QUIET
        n += now and not cont
        cont = now
    return n


def run_probe(exe, seconds, period_ms, alpha=None):
    argv = [exe, "--seconds", "%g" % seconds, "--period-ms",
            "%g" % period_ms]
    if alpha:
        argv += ["--alpha-ns", str(alpha)]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    p = subprocess.run(argv, env=env, capture_output=True, text=True,
                       timeout=seconds + 60)
    check(p.returncode == 0, "%s exited %d:\n%s" % (exe, p.returncode,
                                                     p.stderr))
    out = {"probes": []}
    for line in p.stdout.splitlines():
        f = line.split()
        if f[0] == "probe":
            out["probes"].append((int(f[1]) / 1e9, int(f[2]) / 1e9,
                                  f[3] == "1", f[4] == "1"))
        elif f[0] == "alpha":
            out["alpha_cal"], out["alpha"] = int(f[1]), int(f[2])
        elif f[0] == "cost":
            out["cpu_ns"], out["wall"] = int(f[2]), float(f[3])
        elif f[0] == "device":
            out["device"] = line[7:]
    check(out["probes"], "%s printed no probe" % exe)
    return out


def tel_ticks(stamps, lo, hi):
    """Quiet verdicts of the 100-ms ticks in [lo, hi): no stamp inside."""
    allst = sorted(s for ss in stamps.values() for s in ss)
    out, t = [], lo
    while t + TICK_S <= hi:
        i = bisect.bisect_left(allst, t)
        out.append(not (i < len(allst) and allst[i] < t + TICK_S))
        t += TICK_S
    return out


def analyse(name, r, stamps, sampler):
    pr = r["probes"]
    lo, hi = pr[0][0], pr[-1][0] + pr[-1][1]
    span = hi - lo
    ks = [p[1] * 1e6 for p in pr if p[1] >= 0]
    quiet = [p[2] for p in pr]
    cont = [p[3] for p in pr]
    ent = sum(1 for a, b in zip([False] + cont, cont) if b and not a)
    ticks = tel_ticks(stamps, lo, hi)
    res = {
        "phase": name, "probes": len(pr), "span_s": span,
        "k_med_us": pct(ks, 50), "k_p99_us": pct(ks, 99),
        "alpha_us": r["alpha"] / 1e3, "alpha_cal_us": r["alpha_cal"] / 1e3,
        "quiet": sum(quiet) / len(pr), "continuous": sum(cont) / len(pr),
        "entries_s": ent / span,
        "cpu_us": r["cpu_ns"] / 1e3,
        "cpu_share": r["cpu_ns"] * len(pr) / 1e9 / r["wall"],
        "tel_quiet": sum(ticks) / len(ticks) if ticks else float("nan"),
        "tel_entries_s": entries(ticks) / span,
        "busy": sampler.busy(lo, hi)[0],
    }
    # the verdicts had alpha been calibrated in this phase
    aq = [0 <= p[1] * 1e9 < r["alpha_cal"] for p in pr]
    res["quiet_cal"] = sum(aq) / len(pr)
    res["entries_cal_s"] = entries(aq) / span
    allst = sorted(s for ss in stamps.values() for s in ss)
    res["fps"] = {g: sum(1 for s in ss if lo <= s < hi) / span
                  for g, ss in stamps.items()}
    if allst:
        for w in NEAR_MS:
            near = []
            for p in pr:
                a = p[0] - w / 1e3
                i = bisect.bisect_left(allst, a)
                near.append(i < len(allst) and
                            allst[i] <= p[0] + max(p[1], 0) + w / 1e3)
            nb = [not p[2] for p, n in zip(pr, near) if n]
            fb = [not p[2] for p, n in zip(pr, near) if not n]
            res["near_%g" % w] = {
                "share": sum(near) / len(pr),
                "busy_near": sum(nb) / len(nb) if nb else float("nan"),
                "busy_far": sum(fb) / len(fb) if fb else float("nan"),
            }
    return res


def main():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    p.add_argument("--seconds", type=float, default=20.0,
                   help="length of each phase's probe loop")
    p.add_argument("--period-ms", type=float, default=5.0,
                   help="one probe every this many ms")
    p.add_argument("--games", default="build:use-vbo=true,vkcube",
                   help="as harvest_real.py's --games")
    p.add_argument("--xvfb", default="Xvfb")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    if not a.seconds >= 2:
        p.error("--seconds %g: must be at least 2" % a.seconds)
    if not a.period_ms >= 0.1:
        p.error("--period-ms %g: must be at least 0.1 (as the C "
                "program's)" % a.period_ms)
    exe = os.path.join(a.build, "bench", "probe_accuracy")
    check(os.path.exists(exe), "%s is missing: build first" % exe)
    a.out = a.out or tempfile.mkdtemp(prefix="baton-probe-")
    os.makedirs(a.out, exist_ok=True)
    # harvest_real's bench for its binaries' paths and its games
    hr = harvest_real.Bench(argparse.Namespace(
        build=a.build, seconds=a.seconds, games=a.games))
    rows = []
    with tempfile.TemporaryDirectory(prefix="baton-probe-") as tmp, \
            Xvfb(a.xvfb) as x:
        sock = os.path.join(tmp, "batond.sock")
        env = x.env(BATON_SOCKET=sock)
        daemon = Batond(hr.batond, hr.baton, sock,
                        ["--policy", "sa", "--sla", "%g" % SLA], env)
        daemon.start()
        sampler = Sampler(daemon).start()
        games = []
        try:
            quiet = [wait_quiet(60)]
            idle = run_probe(exe, a.seconds, a.period_ms)
            rows.append(analyse("idle", idle, {}, sampler))
            quiet.append(wait_quiet(60))
            games = hr.games(env, tmp)
            daemon.wait_tenants([g[0] for g in games], 20)
            time.sleep(harvest_real.WARM_S)
            c0 = [cpu_seconds(c.proc.pid) or 0.0 for _, c, _ in games]
            busy = run_probe(exe, a.seconds, a.period_ms, idle["alpha"])
            c1 = [cpu_seconds(c.proc.pid) or 0.0 for _, c, _ in games]
            for g, c, _ in games:
                check(c.proc.poll() is None, "%s exited:\n%s" % (
                    g, c.output()))
            stamps = {g: [s / 1e9 for s in read_probe(path)]
                      for g, _, path in games}
            rows.append(analyse("games", busy, stamps, sampler))
            rows[-1]["games_cpu"] = (sum(c1) - sum(c0)) / busy["wall"]
        finally:
            for _, c, _ in games:
                c.__exit__()
            sampler.stop()
            daemon.stop()
    for r, (ok, busy) in zip(rows, quiet):
        # others' builds share the machine outside the lock
        r["quiet_before"] = ok
        r["busy_before"] = busy
    report(rows, idle.get("device", "?"), a)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"seconds": a.seconds, "period_ms": a.period_ms,
                   "games": a.games, "phases": rows}, f, indent=1)
    print("results.json in %s" % a.out)
    return 0


def report(rows, device, a):
    print("device %s, a probe every %g ms, %g s a phase" % (
        device, a.period_ms, a.seconds))
    print()
    print("| phase | probes | k median / p99 us | alpha us | quiet | "
          "continuous | entries/s | telemetry quiet ticks, entries/s | "
          "false | CPU per probe | CPU busy |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        false = (1 - r["quiet"]) if r["phase"] == "idle" else r["quiet"]
        print("| %s | %d | %.0f / %.0f | %.0f | %.1f%% | %.1f%% | %.2f | "
              "%.0f%%, %.2f | %.1f%% %s | %.0f us (%.1f%% of a core) | "
              "%.0f%% |" % (
                  r["phase"], r["probes"], r["k_med_us"], r["k_p99_us"],
                  r["alpha_us"], r["quiet"] * 100, r["continuous"] * 100,
                  r["entries_s"], r["tel_quiet"] * 100, r["tel_entries_s"],
                  false * 100, "busy" if r["phase"] == "idle" else "quiet",
                  r["cpu_us"], r["cpu_share"] * 100, r["busy"] * 100))
    print()
    for r in rows:
        print("%s: machine %s before it (%.0f%% busy over 1 s)" % (
            r["phase"], "quiet" if r["quiet_before"] else "NOT quiet",
            r["busy_before"] * 100))
        if "games_cpu" in r:
            print("games: their own CPU %.2f cores" % r["games_cpu"])
        print("%s: alpha calibrated in this phase %.0f us: quiet %.1f%%, "
              "entries %.2f/s; games' FPS %s" % (
                  r["phase"], r["alpha_cal_us"], r["quiet_cal"] * 100,
                  r["entries_cal_s"], ", ".join(
                      "%s %.1f" % kv for kv in r["fps"].items()) or "-"))
        for w in NEAR_MS:
            n = r.get("near_%g" % w)
            if n:
                print("  near a Present (W %.1f ms): %.1f%% of probes; "
                      "judged busy %.1f%% near, %.1f%% not near" % (
                          w, n["share"] * 100, n["busy_near"] * 100,
                          n["busy_far"] * 100))
    print("load %s" % load())


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("probe_accuracy: %s" % e, file=sys.stderr)
        sys.exit(1)
