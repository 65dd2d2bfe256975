#!/usr/bin/env python3
"""The capacity stage on real clients (docs/capacity.md,
"On real clients"): glmark2 and glxgears on llvmpipe under a private Xvfb,
paced by a real `batond --policy sa --sla 30` with caps from its config.
On llvmpipe a client's GPU time is its CPU time over the cores, so a cap
of 1 is the whole machine.

    capacity_e2e.py MODE --baton EXE --batond EXE --probe LIB
                    [--xvfb P] [--glxgears P] [--glmark2 P] [--json FILE]

mitigation  Three tenants whose published caps (0.5 each, cap_total 1)
            oversell the machine: glxgears (the light donor), a moderate
            glmark2 and a glmark2 whose scene turns heavy. The scenes are
            picked from solo costs measured first in the same run. Asserts:
            the heavy tenant is OVERLOADED in status within DETECT_S of the
            scene switch (glmark2 prints the light scene's line as it
            switches), its budget rises with cap taken from the tenant
            with the smallest w_u*u + w_e*e (computed from status), the
            budgets plus the pool add up to cap_total in every sample, and
            its FPS at the end of the heavy scene is RECOVER_RATIO x its
            lowest FPS in the 3 s after the switch, or at its SLA. A
            control: the moderate tenant reloads its own scene (no change
            of cost) 6 s before; whether that alone was flagged is
            printed, not asserted.
admission   glmark2 on one steady scene, published cap 0.5 each: tenants
            are started one at a time while `baton capacity --profile
            glmark2` (the cost batond learned for the first one) says
            yes, then held HOLD_S; then, back to back, the equal-share
            count (cap_total / cap = 2) held as long. Per tenant, 1-s
            windows under SLA x 0.98 (frames timed outside the shim by
            bench/swap_probe.c) and the machine's CPU busy share (less the
            CPU other processes used). Asserts: its worst tenant's
            below-SLA seconds are at most 1 % of the hold, or the
            equal-share run's worst plus one window; and the admitted run
            has at least as many sessions as equal shares, or fewer only
            where the equal-share count itself broke the SLA (here
            admission holds 3-4 against 2; on a machine slow enough that
            one session costs a quarter of it, admission stops where
            equal shares does, or before where that count cannot hold).

With --static2x, admission also runs twice the equal-share count (a
static 2x oversubscription) for the table. Timing checks that fail while
other processes used over NOISY_CORES cores, or the host stole over
batonbed.STEAL_SKIP, are reported as skipped (77). Run under the lock:

    flock /tmp/baton-cpu.lock tests/e2e/daemon/capacity_e2e.py ...

Exit status 0 pass, 1 fail, 77 skipped."""

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench"))
import twin  # noqa: E402
from batonbed import (Batond, Client, Fail, Steal, TimingFail,  # noqa: E402
                      Xvfb, check, check_timing, read_probe, scratch_dir,
                      scratch_done, terminate_on_sigterm, timing_verdict,
                      wait_quiet)
from glharness import Noise  # noqa: E402
from dynamic import window_fps  # noqa: E402

SIZE = "640x360"
SLA = 30.0
SLA_TOL = 0.02  # a window under SLA x (1 - SLA_TOL) is below the SLA
CAP = 0.5       # every tenant's published cap
CAP_TOTAL = 1.0
U_OVER = 0.95   # batond's default U_o
POLL_S = 0.2
# Cores other processes may use before a failed timing check is called a
# skip: the machine is shared with other people's benchmarks.
NOISY_CORES = 0.3

# mitigation
DETECT_S = 4.0        # target: detected within 3-4 s
RECOVER_RATIO = 1.15  # heavy FPS at the end over its FPS at detection
LIGHT_SCENE = "shading:shading=phong"
# Candidates for the two glmark2 scenes, light to heavy on llvmpipe
# (desktop's blur passes scale its cost).
CANDIDATES = ("jellyfish", "desktop", "desktop:passes=2", "desktop:passes=3",
              "desktop:passes=4")
LIGHT_S = 12.0        # the light scene, after the heavy tenant registers
HEAVY_S = 16.0
SOLO_WARM_S, SOLO_S = 1.5, 2.5
REFINE = 3            # desktop scenes measured to land in the heavy window
ATTEMPTS = 2

# admission
ADMIT_SCENE = "jellyfish"
HOLD_S = 32.0
ADMIT_MAX = 8         # never start more than this many
ADMIT_WAIT_S = 15.0   # give up asking after this long without a yes
BELOW_PCT = 0.01      # target: at most 1 % of seconds below the SLA
# U_l for admission on llvmpipe. The default, 0.7, was chosen on the
# simulator's GPU; here a period's load moves by +-0.1 from one second to
# the next, and runs that settled at 0.76-0.85 had 3-5 seconds under the
# SLA while 0.62-0.71 had none (docs/capacity.md, "On real clients").
ADMIT_U_LIMIT = 0.6


def config(path, apps, cap_total=CAP_TOTAL, u_limit=None):
    with open(path, "w") as f:
        limit = "" if u_limit is None else " cap_u_limit = %r;" % u_limit
        f.write("params = { cap_total = %r;%s };\napps = (\n" %
                (float(cap_total), limit))
        f.write(",\n".join('  { name = "%s"; cap = %r; }' % (n, float(c))
                           for n, c in apps))
        f.write("\n);\n")
    return path


class Poller:
    """`baton status --json` every POLL_S in the background: a list of
    (seconds since t0, status)."""

    def __init__(self, daemon, t0):
        self.daemon, self.t0 = daemon, t0
        self.samples = []
        self.done = threading.Event()
        self.th = threading.Thread(target=self._run, daemon=True)
        self.th.start()

    def _run(self):
        while not self.done.wait(POLL_S):
            try:
                st = self.daemon.status(timeout=2)
            except (Fail, ValueError):
                continue
            self.samples.append((time.monotonic() - self.t0, st))

    def stop(self):
        self.done.set()
        self.th.join()
        return self.samples


def ours(x, d, clients):
    """Counts the CPU time (and steal) of everything but this test, its
    X server, batond and its clients: other people's work."""
    return Noise([os.getpid(), x.proc.pid, d.proc.pid] +
                 [c.proc.pid for c in clients])


def by_name(st):
    return {t["name"]: t for t in st["tenants"]}


def donor_factor(t, w_u=1.0, w_e=1.0):
    """G7 as caps.c computes it, from status: u and e = (SLA - fps) / SLA
    bounded below at -1."""
    e = max((t["sla_fps"] - t["fps"]) / t["sla_fps"], -1.0)
    return w_u * t["u"] + w_e * e


def glmark2(exe, scenes):
    a = [exe, "-s", SIZE]
    for bench, dur in scenes:
        a += ["-b", "%s:duration=%.1f" % (bench, dur)]
    return a


# ------------------------------------------------------------ mitigation

def desktop_scene(passes, radius):
    return "desktop:passes=%d:blur-radius=%d" % (passes, radius)


def desktop_work(bench):
    """A desktop scene's blur work in default passes (radius 5): each pass
    is a separable blur of 2r + 1 taps each way; None for another scene."""
    if not bench.startswith("desktop"):
        return None
    opts = dict(o.split("=") for o in bench.split(":")[1:])
    r = int(opts.get("blur-radius", 5))
    return int(opts.get("passes", 1)) * (2 * r + 1) / 11.0


def fit_desktop(load):
    """load = a + b x work over the desktop scenes measured (least
    squares): the blur's cost per pass on this machine."""
    pts = [(desktop_work(n), l) for n, l in load.items()
           if desktop_work(n) is not None]
    n = len(pts)
    mx = sum(w for w, _ in pts) / n
    my = sum(l for _, l in pts) / n
    sxx = sum((w - mx) ** 2 for w, _ in pts)
    b = sum((w - mx) * (l - my) for w, l in pts) / sxx if sxx else 0.0
    return my - b * mx, b


def heavy_window():
    """The heavy scene's load at the SLA must pass the budget it joins with
    (a fair share, when batond has not learned its cost by its first tick)
    by more than a solo cost moves between runs (+-5 %), or there is
    nothing to mitigate; and it must fit under the published cap at U_o,
    or mitigation cannot restore it. 0.9: under contention a frame costs
    more than alone (desktop:passes=4 at 0.47 alone did not reach 30 FPS
    at a cap of 0.5)."""
    return 1.12 * CAP_TOTAL / 3, 0.9 * CAP * U_OVER


def pick_heavy(load, measure):
    """The costliest candidate in the window; where the fixed candidates
    step over it (a pass costs 0.1-0.16 here, the window is 0.06 wide),
    desktop scenes whose blur radius the fit says lands in its middle,
    measured with measure(names) -> {name: load}, at most REFINE + 1 of
    them."""
    lo, hi = heavy_window()

    def costliest_inside():
        inside = sorted((l, b) for b, l in load.items() if lo <= l <= hi)
        return inside[-1][1] if inside else None

    for _ in range(REFINE + 1):
        if costliest_inside():
            return costliest_inside()
        a, b = fit_desktop(load)
        if b <= 0:
            break
        # Nearest the middle; among those in its middle half, the radius
        # nearest the default: a scene like the candidates.
        want = (lo + hi) / 2
        options = [(abs(a + b * desktop_work(desktop_scene(p, r)) - want),
                 abs(r - 5), desktop_scene(p, r))
                for p in range(1, 9) for r in range(1, 16)
                if desktop_scene(p, r) not in load]
        near = [t for t in options if t[0] <= (hi - lo) / 4]
        best = min(near, key=lambda t: t[1]) if near else min(options)
        load.update(measure([best[2]]))
    # the last scene measured is judged too (it was not, before: a fresh
    # clone failed with a scene at 0.392 in 0.373..0.427)
    return costliest_inside()


def pick_scenes(loads, measure):
    """The heavy scene (pick_heavy) and the moderate one: the candidate
    nearest a third of it. loads (updated with what pick_heavy measured)
    are k x SLA, measured alone."""
    heavy = pick_heavy(loads, measure)
    check(heavy is not None, "no glmark2 scene's load at %g FPS falls in "
          "%.3f..%.3f: loads %s" % ((SLA,) + heavy_window() + (loads,)))
    mod = min((b for b in CANDIDATES if loads[b] < loads[heavy]),
              key=lambda b: abs(loads[b] - loads[heavy] / 3), default=None)
    check(mod is not None, "no glmark2 scene lighter than %s (%.3f): "
          "loads %s" % (heavy, loads[heavy], loads))
    return heavy, mod


def mitigation(args, x, tmp):
    out = {}
    bed = twin.Bed(args.baton, args.batond, x, tmp)

    def measure(benches):
        specs = [(b, glmark2(args.glmark2, [(b, 60)])) for b in benches]
        costs = twin.measure_solo(bed, specs, SOLO_WARM_S, SOLO_S)
        return {b: c.k_ms * 1e-3 * SLA for b, c in costs.items()}

    loads = measure((LIGHT_SCENE,) + CANDIDATES)
    light_load = loads.pop(LIGHT_SCENE)
    heavy_b, mod_b = pick_scenes(loads, measure)
    out["solo_load"] = dict(loads, **{LIGHT_SCENE: light_load})
    out["heavy_scene"], out["moderate_scene"] = heavy_b, mod_b
    print("solo loads at %g FPS (k x SLA): %s" % (SLA, ", ".join(
        "%s %.3f" % (b.replace("shading=", ""), l)
        for b, l in sorted(out["solo_load"].items(), key=lambda i: i[1]))))
    print("heavy tenant: %s then %s (window %.3f..%.3f); moderate: %s" % (
        (LIGHT_SCENE, heavy_b) + heavy_window() + (mod_b,)))

    # The heavy tenant joins with what its learned cost needs, or a fair
    # share (1/3) when batond has not learned it by its first tick, plus
    # whatever its start-up period (under the SLA: flagged) took. The
    # window keeps the heavy scene over the first two; the third may
    # still cover it: nothing to mitigate, so the set-up is run again (at
    # most ATTEMPTS).
    need = loads[heavy_b]
    for attempt in range(1, ATTEMPTS + 1):
        r = mitigation_run(args, x, tmp, dict(out), heavy_b, mod_b, attempt)
        if r["budgets_at_switch"]["heavy"] < need:
            break
        print("attempt %d: the heavy tenant's budget at the switch (%.3f) "
              "covers its heavy scene (%.3f): no overload to mitigate" % (
                  attempt, r["budgets_at_switch"]["heavy"], need))
    r["attempts"] = attempt
    return r


def mitigation_run(args, x, tmp, out, heavy_b, mod_b, attempt):
    sock = os.path.join(tmp, "mit%d.sock" % attempt)
    env = x.env(BATON_SOCKET=sock)
    cfg = config(os.path.join(tmp, "mit.cfg"),
                 [("gears", CAP), ("moderate", CAP), ("heavy", CAP)])
    clients = []
    # info: batond logs each overload it flags, with the tenant's u and FPS
    with Batond(args.batond, args.baton, sock,
                ["--policy", "sa", "--sla", "%g" % SLA, "--config", cfg],
                dict(env, BATON_LOG="info")) as d:
        try:
            def start(name, argv):
                c = Client([args.baton, "run", "--name", name, "--"] + argv,
                           env).__enter__()
                clients.append(c)
                d.wait_tenants([name], 30)
                return c
            # The heavy tenant joins last: the pool is gone, so its first
            # dynamic cap is what its learned cost needs or a fair share,
            # taken from the others' spare cap: under its published one.
            start("gears", [args.glxgears])
            # A control: the moderate tenant switches to the same scene
            # again (a scene load, no change of cost) some 6 s before the
            # heavy one switches: is a load alone called an overload?
            mod = start("moderate", glmark2(args.glmark2, [
                (mod_b, LIGHT_S - 3.5), (mod_b, 120)]))
            time.sleep(1.5)
            t0 = time.monotonic()
            with Steal() as steal:
                heavy = start("heavy", glmark2(args.glmark2, [
                    (LIGHT_SCENE, LIGHT_S), (heavy_b, HEAVY_S + 10)]))
                noise = ours(x, d, clients)
                poll = Poller(d, t0)
                switch = mod_switch = None
                metrics = {}
                while time.monotonic() - t0 < LIGHT_S + HEAVY_S + 2:
                    with heavy._cond:
                        n = sum(1 for ln in heavy.lines if "FrameTime" in ln)
                    now = time.monotonic() - t0
                    if n >= 1 and switch is None:
                        switch = now
                    with mod._cond:
                        n = sum(1 for ln in mod.lines if "FrameTime" in ln)
                    if n >= 1 and mod_switch is None:
                        mod_switch = now
                    ov = [s for s in poll.samples
                          if switch is not None and s[0] > switch and
                          by_name(s[1]).get("heavy", {}).get("overloaded")]
                    if ov and "detected" not in metrics:
                        metrics["detected"] = d.metrics()
                    check(heavy.proc.poll() is None, "heavy glmark2 exited:"
                          "\n%s" % heavy.output())
                    time.sleep(0.05)
                metrics["end"] = d.metrics()
                samples = poll.stop()
                others = noise.fraction() * os.cpu_count()
            out["log"] = [ln for ln in d.log if "overload" in ln or
                          "capacity" in ln]
        finally:
            for c in clients:
                c.__exit__()
    out["others_cores"], out["steal"] = others, steal.steal
    check(switch is not None, "glmark2 never reported its light scene")
    out["control_switch_s"] = mod_switch
    return analyse_mitigation(out, samples, switch, metrics)


def metric(text, name, tid):
    m = re.search(r'^%s\{id="%d"[^}]*\} (\S+)$' % (name, tid), text, re.M)
    return float(m.group(1)) if m else None


def analyse_mitigation(out, samples, switch, metrics):
    out["switch_s"] = switch
    ms = out["control_switch_s"]
    out["control_overloaded"] = None if ms is None else any(
        by_name(st).get("moderate", {}).get("overloaded")
        for t, st in samples if ms <= t <= ms + DETECT_S)
    rows = [(t, by_name(st), st) for t, st in samples
            if "heavy" in by_name(st)]
    check(rows, "no status sample shows the heavy tenant")
    # The sum of caps: budgets plus the pool is cap_total in every sample
    # (no user caps: a budget is the dynamic cap).
    sums = [sum(x["budget"] for x in ts.values()) + st["cap_pool"]
            for _, ts, st in rows]
    out["cap_sum_range"] = (min(sums), max(sums))
    before = [r for r in rows if switch - 3.0 <= r[0] < switch]
    check(before, "no status sample in the 3 s before the switch")
    out["over_before"] = any(ts["heavy"]["overloaded"] for _, ts, _ in
                             before)
    # what batond saw of the heavy tenant then, to tell which rule
    # flagged it if one did (docs/capacity.md, "Overload")
    out["heavy_before"] = [
        (round(t - switch, 2), ts["heavy"]["fps"], ts["heavy"]["u"],
         ts["heavy"]["budget"], ts["heavy"]["overloaded"])
        for t, ts, _ in before]
    b0 = {n: x["budget"] for n, x in before[-1][1].items()}
    out["budgets_at_switch"] = b0
    after = [r for r in rows if r[0] >= switch]
    det = next((r for r in after if r[1]["heavy"]["overloaded"]), None)
    out["detect_s"] = det[0] - switch if det else None
    out["fps_at_detect"] = det[1]["heavy"]["fps"] if det else None
    # Its FPS right after the switch: the lowest 1-s rate status showed in
    # the 3 s after it (the period that flags it may still be the light
    # scene's, or glmark2's scene load).
    out["fps_after"] = min((r[1]["heavy"]["fps"] for r in after
                            if r[0] <= switch + 3.0), default=None)
    rise = next((r for r in after
                 if r[1]["heavy"]["budget"] > b0["heavy"] + 1e-4), None)
    out["rise_s"] = rise[0] - switch if rise else None
    # The donor of the first move from a tenant: whose budget fell; and
    # the tenant with the smallest factor in the sample before it.
    out["donor"] = out["lightest"] = None
    prev = before[-1]
    for r in after:
        fell = [n for n in r[1] if n != "heavy" and
                r[1][n]["budget"] < prev[1][n]["budget"] - 1e-6]
        if fell:
            out["donor"] = fell[0]
            f = {n: donor_factor(x) for n, x in prev[1].items()
                 if n != "heavy"}
            out["factors"] = f
            out["lightest"] = min(f, key=f.get)
            break
        prev = r
    # Every move to the heavy tenant after the switch: when, how much and
    # from whom (the tenants whose budget fell in the same sample).
    out["moves"] = []
    for a, b in zip(after, after[1:]):
        gain = b[1]["heavy"]["budget"] - a[1]["heavy"]["budget"]
        if gain > 1e-6:
            out["moves"].append((round(b[0] - switch, 2), round(gain, 4), [
                n for n in b[1] if n != "heavy" and
                b[1][n]["budget"] < a[1][n]["budget"] - 1e-6]))
    at_sla = next((r for r in after if r[0] > switch + (out["detect_s"] or 0)
                   and r[1]["heavy"]["fps"] >= SLA * (1 - SLA_TOL)), None)
    out["sla_s"] = at_sla[0] - switch if at_sla else None
    end = rows[-1][1]
    out["budgets_end"] = {n: x["budget"] for n, x in end.items()}
    tail = [r[1]["heavy"]["fps"] for r in rows if r[0] >= rows[-1][0] - 3]
    out["fps_end"] = sum(tail) / len(tail)
    hid = end["heavy"]["id"]
    m = metrics.get("detected", "")
    out["metrics_overloaded"] = metric(m, "baton_tenant_overloaded", hid)
    out["metrics_budget_end"] = metric(metrics["end"],
                                       "baton_tenant_cap_budget", hid)
    out["trace"] = [(round(t, 2), {n: (round(x["fps"], 1),
                                        round(x["budget"], 4),
                                        round(x["u"], 2),
                                        int(x["overloaded"]))
                                   for n, x in ts.items()})
                    for t, ts, _ in rows]
    return out


def report_mitigation(r):
    print("scene switch at %.2f s; budgets then: %s" % (
        r["switch_s"], ", ".join("%s %.3f" % i
                                 for i in r["budgets_at_switch"].items())))
    print("detected OVERLOADED after %s s (FPS %s); budget rose after %s s;"
          " donor %s, smallest w_u*u + w_e*e: %s (%s)" % (
              _f(r["detect_s"]), _f(r["fps_at_detect"], 1),
              _f(r["rise_s"]), r["donor"], r["lightest"],
              ", ".join("%s %.3f" % i for i in r.get("factors", {}).items())))
    print("moves to the heavy tenant (s after the switch, cap, from): %s;"
          " its 1-s FPS back at the SLA after %s s" % (
              ", ".join("%.1f +%.3f %s" % (t, g, "/".join(d) or "pool")
                        for t, g, d in r["moves"]), _f(r["sla_s"])))
    print("heavy FPS right after the switch (lowest 1-s in 3 s): %s" %
          _f(r["fps_after"], 1))
    print("at the end: budgets %s; heavy FPS %.1f (SLA %g); caps + pool "
          "%.4f..%.4f; /metrics overloaded %s, budget %s" % (
              ", ".join("%s %.3f" % i for i in r["budgets_end"].items()),
              r["fps_end"], SLA, r["cap_sum_range"][0],
              r["cap_sum_range"][1], r["metrics_overloaded"],
              _f(r["metrics_budget_end"], 3)))
    print("control: the moderate tenant's same-scene reload at %s s: %s" %
          (_f(r["control_switch_s"]), "not seen" if r["control_overloaded"]
           is None else "OVERLOADED within %g s" % DETECT_S
           if r["control_overloaded"] else "not overloaded"))
    print("others %.2f cores, steal %.0f%%" % (r["others_cores"] or 0,
                                                r["steal"] * 100))
    print("heavy in the 3 s before the switch (s, FPS, u, budget, "
          "overloaded): %s" % ", ".join(
              "(%.2f, %.1f, %.2f, %.3f, %s)" % h for h in r["heavy_before"]))
    for ln in r["log"]:
        print("batond:", ln)


def check_mitigation(r):
    need = r["solo_load"][r["heavy_scene"]]
    check(r["budgets_at_switch"]["heavy"] < need,
          "the heavy tenant's budget at the switch (%.3f) already covers "
          "its heavy scene (%.3f at %g FPS): nothing to mitigate" % (
              r["budgets_at_switch"]["heavy"], need, SLA))
    check(abs(r["cap_sum_range"][0] - CAP_TOTAL) < 1e-3 and
          abs(r["cap_sum_range"][1] - CAP_TOTAL) < 1e-3,
          "budgets + pool ranged %.4f..%.4f, not cap_total %g" % (
              r["cap_sum_range"] + (CAP_TOTAL,)))
    check(r["metrics_overloaded"] == 1.0, "/metrics did not show the heavy "
          "tenant overloaded when status did: %s" % r["metrics_overloaded"])
    check(r["donor"] is not None and r["donor"] == r["lightest"],
          "the donor was %s, the smallest w_u*u + w_e*e %s (%s)" % (
              r["donor"], r["lightest"], r.get("factors")))
    check_timing(not r["over_before"], "the heavy tenant was overloaded "
                 "in its light scene, before the switch")
    check_timing(r["detect_s"] is not None and r["detect_s"] <= DETECT_S,
                 "detected %s s after the switch (limit %g)" % (
                     _f(r["detect_s"]), DETECT_S))
    check_timing(r["rise_s"] is not None, "the heavy tenant's budget never "
                 "rose")
    check_timing(r["fps_end"] >= min(RECOVER_RATIO * r["fps_after"],
                                     SLA * (1 - SLA_TOL)),
                 "heavy FPS %.1f at the end, %.1f right after the switch: "
                 "no recovery" % (r["fps_end"], r["fps_after"]))


def _f(v, nd=2):
    return "-" if v is None else "%.*f" % (nd, v)


# ------------------------------------------------------------ admission

def capacity(args, env):
    r = subprocess.run([args.baton, "capacity", "--profile", "glmark2",
                        "--json"], env=env, capture_output=True, text=True,
                       timeout=10)
    if r.returncode not in (0, 5):
        return None
    return json.loads(r.stdout)


def proc_stat():
    with open("/proc/stat") as f:
        return [int(v) for v in f.readline().split()[1:]]


def hold(args, x, d, env, tmp, clients, probes, label):
    """Holds the running tenants HOLD_S: per tenant the 1-s windows under
    the SLA (probe timestamps), and the machine's CPU busy share."""
    t0 = time.monotonic()
    t0_ns = time.monotonic_ns()
    s0 = proc_stat()
    loads = []
    noise = ours(x, d, clients)
    with Steal() as steal:
        while time.monotonic() - t0 < HOLD_S:
            time.sleep(1.0)
            st = d.status()
            loads.append(st["total_load"])
            for c in clients:
                check(c.proc.poll() is None, "a glmark2 exited:\n%s" %
                      c.output())
    s1 = proc_stat()
    dd = [b - a for a, b in zip(s0, s1)]
    busy = (dd[0] + dd[1] + dd[2] + dd[5] + dd[6]) / (sum(dd[:8]) or 1)
    t1 = (time.monotonic_ns() - t0_ns) / 1e9
    below, fps = [], []
    for p in probes:
        stamps = [(s - t0_ns) / 1e9 for s in read_probe(p)]
        w = [window_fps(stamps, s, s + 1) for s in range(int(t1))]
        below.append(sum(1 for f in w if f < SLA * (1 - SLA_TOL)))
        fps.append(sum(w) / len(w) if w else 0.0)
    others = noise.fraction() * os.cpu_count()
    return {"label": label, "sessions": len(clients), "busy": busy,
            # the busy share less other people's work (and steal)
            "busy_ours": max(busy - others / os.cpu_count(), 0.0),
            "windows": int(t1), "below": below, "fps": fps,
            "total_load": sum(loads) / len(loads) if loads else 0.0,
            "others_cores": others, "steal": steal.steal}


def run_count(args, x, tmp, label, n=None, cap=CAP):
    """One batond, glmark2 tenants of one profile: n of them (a static
    count), or, with n None, started one at a time while batond's
    `baton capacity` says one more fits. Then held."""
    sock = os.path.join(tmp, "%s.sock" % label)
    env = x.env(BATON_SOCKET=sock)
    cfg = config(os.path.join(tmp, "%s.cfg" % label), [("glmark2", cap)],
                 u_limit=ADMIT_U_LIMIT)
    clients, probes, answers = [], [], []
    argv = glmark2(args.glmark2, [(ADMIT_SCENE, 600)])
    with Batond(args.batond, args.baton, sock,
                ["--policy", "sa", "--sla", "%g" % SLA, "--config", cfg],
                env) as d:
        try:
            def start():
                p = os.path.join(tmp, "%s-%d.probe" % (label, len(clients)))
                cenv = dict(env, LD_PRELOAD=args.probe, BATON_PROBE_OUT=p)
                c = Client([args.baton, "run", "--"] + argv, cenv)
                clients.append(c.__enter__())
                probes.append(p)
                # Registered and joined (a budget): only then is it in
                # the capacity stage, whose join restarts the quiet count.
                # Asked before, batond would answer for the tenants
                # without it.
                t0 = time.monotonic()
                while sum(1 for t in d.status()["tenants"]
                          if t["budget"] > 0) < len(clients):
                    check(time.monotonic() - t0 < 30 and
                          c.proc.poll() is None, "glmark2 %d did not "
                          "register:\n%s" % (len(clients), c.output()))
                    time.sleep(0.05)
            t_start = time.monotonic()
            start()
            if n is None:
                while len(clients) < ADMIT_MAX:
                    t0 = time.monotonic()
                    last = None
                    while True:
                        a = capacity(args, env)
                        why = a and (a["reason"], round(a["load"], 1))
                        if why != last:  # each change of answer
                            answers.append((round(time.monotonic() -
                                                  t_start, 1),
                                            len(clients), a))
                            last = why
                        if a and a["fits"]:
                            break
                        if time.monotonic() - t0 > ADMIT_WAIT_S:
                            answers.append((round(time.monotonic() -
                                                  t_start, 1),
                                            len(clients), a))
                            break
                        time.sleep(0.5)
                    if not (a and a["fits"]):
                        break
                    start()
            else:
                while len(clients) < n:
                    start()
            time.sleep(3.0)  # the last one's warm-up
            r = hold(args, x, d, env, tmp, clients, probes, label)
            r["answers"] = answers
            r["log"] = [ln for ln in d.log if "overload" in ln or
                        "capacity" in ln]
            return r
        finally:
            for c in clients:
                c.__exit__()


def admission(args, x, tmp):
    runs = [run_count(args, x, tmp, "admitted")]
    eq = int(round(CAP_TOTAL / CAP))
    runs.append(run_count(args, x, tmp, "equal", n=eq))
    if args.static2x:
        runs.append(run_count(args, x, tmp, "static2x", n=2 * eq,
                              cap=CAP_TOTAL / (2 * eq)))
    return runs


def report_admission(runs):
    for r in runs:
        for at, n, a in r.get("answers", []):
            print("  %5.1f s, %d running: %s" % (at, n, "no answer" if not a
                  else "fits (%d more)" % a["more"] if a["fits"] else
                  "no: %s (load %.2f + %.3f, limit %.2f)" % (
                      a["reason"], a["load"], a["newcomer"], a["limit"])))
    print("%-9s %8s %6s %6s %6s %12s %11s %s" % (
        "run", "sessions", "busy", "ours", "load", "below (max)", "others",
        "FPS"))
    for r in runs:
        print("%-9s %8d %5.1f%% %5.1f%% %6.2f %7d/%d %8.2f c %s" % (
            r["label"], r["sessions"], r["busy"] * 100,
            r["busy_ours"] * 100, r["total_load"],
            max(r["below"]), r["windows"], r["others_cores"] or 0,
            " ".join("%.1f" % f for f in r["fps"])))


def check_admission(runs):
    adm, eq = runs[0], runs[1]
    check(adm["sessions"] >= 1, "no session admitted")
    eq_broke = max(eq["below"]) > max(int(BELOW_PCT * eq["windows"]), 1)
    check_timing(adm["sessions"] >= eq["sessions"] or eq_broke,
                 "admitted %d sessions (CPU busy %.1f %% less others' "
                 "work), equal shares %d (%.1f %%) held the SLA" % (
                     adm["sessions"], adm["busy_ours"] * 100,
                     eq["sessions"], eq["busy_ours"] * 100))
    allow = max(int(BELOW_PCT * adm["windows"]), max(eq["below"]) + 1)
    check_timing(max(adm["below"]) <= allow,
                 "an admitted tenant was below the SLA in %d of %d windows "
                 "(allowed %d: 1 %%, or the equal-share run's worst %d + 1)"
                 % (max(adm["below"]), adm["windows"], allow,
                    max(eq["below"])))


# ------------------------------------------------------------ main

def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("mode", choices=("mitigation", "admission"))
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--probe", required=True)
    p.add_argument("--xvfb", default="Xvfb")
    p.add_argument("--glxgears", default="glxgears")
    p.add_argument("--glmark2", default="glmark2")
    p.add_argument("--static2x", action="store_true")
    p.add_argument("--json")
    p.add_argument("--no-check", action="store_true")
    args = p.parse_args()
    quiet, busy = wait_quiet(30)
    print("machine %s (busy %.0f %%)" % ("quiet" if quiet else "busy",
                                         busy * 100))
    tmp = scratch_dir("baton-capreal-")
    return scratch_done(tmp, run(args, tmp))


def run(args, tmp):
    """The mode's experiment in tmp, reported and checked: the exit
    status."""
    noisy = [False]
    try:
        with Xvfb(args.xvfb) as x:
            if args.mode == "mitigation":
                r = mitigation(args, x, tmp)
                report_mitigation(r)
            else:
                r = admission(args, x, tmp)
                report_admission(r)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(r, f, indent=1)
        if args.no_check:
            return 0
        if args.mode == "mitigation":
            noisy[0] = (r["others_cores"] or 0) > NOISY_CORES
            check_mitigation(r)
        else:
            noisy[0] = any((x["others_cores"] or 0) > NOISY_CORES
                           for x in r)
            check_admission(r)
    except TimingFail as e:
        if noisy[0]:
            print("SKIP: %s, while other processes used over %.1f cores" % (
                e, NOISY_CORES))
            return 77
        return timing_verdict(e)
    except Fail as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
