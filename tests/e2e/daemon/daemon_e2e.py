#!/usr/bin/env python3
"""batond end to end: real clients under `baton run` on a private Xvfb
(Mesa llvmpipe, lavapipe), paced by a real batond on a private socket.

    daemon_e2e.py MODE --baton EXE --batond EXE [--probe LIB]
                  [--xvfb P] [--glxgears P] [--glmark2 P] [--vkcube P]
                  [--scenario CFG]

Modes (the tests; meson.build registers them):
  gears-sa        `batond --policy sa --sla 45` with sla_margin 0 (so the
                  reference is exactly 45): `baton run -- glxgears` prints
                  45 FPS +-1% in its own 5-second lines from the third on.
  vkcube-sa       the same daemon; `baton run -- vkcube --c 495` through
                  the Vulkan layer: frames 46..495 take 10.0 s +-1%
                  (450 at 45 FPS), timed by xcb_probe.c outside the layer
                  (when Mesa's WSI hands each frame to the X server). The
                  first 45 frames are start-up (swapchain creation, the
                  layer's first GPU times; batond paces the game from its
                  registration on), so whole-process wall times
                  (tests/e2e/vulkan's method) are not used here. One rerun
                  if the first attempt misses.
  contention-none three glmark2 scenes at 640x360 on the two cores with no
                  Baton at all (vGASA Fig. 1): desktop, whose frames cost
                  the most CPU, gets the lowest rate (within 10%: jellyfish
                  runs as slow) and shading at least 1.8 times it; whether
                  desktop is under 30 is printed (on a quiet machine it
                  is not: about 50).
  contention-sa   the same three under `batond --policy sa --sla 30`, each
                  through `baton run` (Fig. 7): each reports >= 29.4 FPS.
  contention-esa  `--policy esa`: all three within 5% of their mean, and
                  the mean above 30.
  sim             the digital twin (twin.py): each scene's solo costs
                  measured first, free running and pinned, in this run;
                  the scenario written from them and `baton sim` run on
                  it under none, sa, esa and fsa; the simulated rates must
                  meet the criteria above (fsa: every one >= 29.4) and,
                  per tenant, land within TWIN_TOL of the contention run
                  measured next under sa, and within a tolerance measured
                  in this run (twin_tolerance) under esa and fsa.
  sim-example     `baton sim` on --scenario (scenarios/glmark2-contention.cfg,
                  an example with costs measured once on another machine)
                  under none, sa, esa and fsa meets the same criteria;
                  needs no display.
  faults          three glxgears under `batond --policy sa --sla 30` with
                  the swap probe: kill -9 batond: no frame interval after
                  it over 2 target periods (or over the client's own worst
                  in the 3 s before, on a stalling VM); restart it: all
                  three are back
                  in `baton status` within 2 s; kill -9 one client: it
                  leaves `baton status` within 1 s.
Not tests (they print numbers for docs/runtime.md):
  solo            each glmark2 scene alone under `batond --policy none`
                  (twin.measure_solo): FPS, CPU per frame (its threads and
                  the X server's), batond's GPU time per frame, the spread
                  of its frame times: the twin's inputs.
  table           the sim test without its verdict: solo costs, then each
                  policy simulated and measured, side by side as a
                  Markdown table.

Each contention run gives every glmark2 three benchmarks of its scene: a
warm-up (start-up, registration, the controller settling), the measured
one, whose report is the figure, and a short tail, so that all three are
still running while any one is measured. Every number is printed with the
host's CPU steal over its run: this is a shared VM, and the hypervisor's
steal takes cores from llvmpipe that no pacing can give back.

Exit status 0 pass, 1 fail.
"""

import argparse
import math
import re
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
import batonbed  # noqa: E402
from batonbed import (GLMARK2_LINE, Batond, Client, Fail, Glmark2,  # noqa
                      Steal, Xvfb, check, cpu_seconds, gears_fps, kill_group,
                      TimingFail, check_timing, load, read_probe,
                      terminate_on_sigterm, wait_quiet,
                      write_config)
import twin  # noqa: E402

SIZE = "640x360"
# name -> glmark2 benchmark (without duration)
SCENES = (("jellyfish", "jellyfish"), ("desktop", "desktop"),
          ("shading", "shading:shading=phong"))
WARM_S, MEASURE_S, TAIL_S = 8, 20, 4
SLA = 30.0
# batond's default sla_margin: SA aims at SLA * (1 + SLA_MARGIN)
SLA_MARGIN = 0.01
POLICIES = ("none", "sa", "esa", "fsa")
# The twin (mode sim): each solo measurement.
TWIN_WARM_S, TWIN_MEASURE_S = 2, 6
# How far SA's prediction may be from the measured rate per tenant: both
# sides land on the SLA by construction (the policy sets the rate, the
# cores have room), so this only catches a twin that cannot keep it.
TWIN_TOL = 0.10
# The policies whose simulated rates the sim test asserts (docs/runtime.md):
# sa within TWIN_TOL, esa and fsa within twin_tolerance, measured in the
# same run. fsa was printed only while FSA gave a donor's share back by
# fsa_relax (2 %) a second: a donor held at glmark2's start-up stayed at 47
# FPS through the run where the twin ran it free at 227; donors now run
# free again within a second or two once every game is well above its
# floor (policy_fsa.c, relax). FSA then leaves the three free, so its
# tolerance takes in the twin's error on free-running games, measured in
# this run under `none`. `none` is printed: with no daemon there is no
# trace to measure the real run's spread by.
TWIN_ASSERTED = ("sa", "esa", "fsa")
TWIN_PRINTED = ()
# The seeds the simulator's own spread is taken over (twin_tolerance).
TWIN_SEEDS = (1, 2, 3, 4)
# Two standard errors: the real mean's spread at about 95%.
TWIN_SE = 2.0
# batond's 1-s readings at the end of a measured benchmark whose mean is
# the rate it ended at (rate_drift): 3 s, a few of FSA's relax steps.
DRIFT_READINGS = 3
# Other processes' cores over which a twin that misses is inconclusive.
TWIN_BUSY = 0.10
TWIN_ITER = 6
SA_MIN = 29.4
ESA_SPREAD = 0.05
# batond's per-frame cost vs the CPU time /proc shows (check_costs)
COST_TOL = 0.25
NONE_SLOWEST = 0.10
NONE_RATIO = 1.8
# Other engineers' benchmarks share this machine: each test first waits
# this long at most for it to go quiet.
QUIET_WAIT_S = 30


def within(value, target, tol):
    return abs(value - target) <= tol * target


# ---------------------------------------------------------------- glxgears

def mode_gears_sa(args, x):
    cfg = write_config(os.path.join(args.tmp, "margin0.cfg"), sla_margin=0)
    env = x.env(BATON_SOCKET=args.sock)
    with Batond(args.batond, args.baton, args.sock,
                ["--policy", "sa", "--sla", "45", "--config", cfg], env) as d:
        with Steal() as st, \
                Client([args.baton, "run", "--", args.glxgears], env) as g:
            fps = gears_fps(g, 5, 60)
            st.stop()
            t = d.tenants().get("glxgears")
        print("glxgears through batond (sa, SLA 45, sla_margin 0): %s; %s"
              % (fps, st))
        check(t, "glxgears is not in baton status")
        print("baton status: target %.3f FPS, fps %.2f" % (t["target_fps"],
                                                          t["fps"]))
        for v in fps[2:]:
            check_timing(within(v, 45.0, 0.01),
                  "%.3f FPS is not 45 within 1%%: %s (%s)" % (v, fps, st))


# ---------------------------------------------------------------- vkcube

VK_LAYER = "VK_LAYER_BATON_pacing"
# vkcube --c VK_SKIP+VK_FRAMES; the first VK_SKIP frames (start-up, the
# pacer's first GPU-time predictions) are skipped.
VK_SKIP = 45
VK_FRAMES = 450
VK_ATTEMPTS = 2


class Poller:
    """batond's status every 0.25 s in the background, to say what the
    controller did during a run that fails."""

    def __init__(self, daemon, name):
        self.daemon, self.name = daemon, name
        self.samples = []
        self.done = threading.Event()

    def __enter__(self):
        def poll():
            while not self.done.wait(0.25):
                try:
                    t = self.daemon.tenants().get(self.name)
                except Fail:
                    continue
                if t:
                    self.samples.append((t["target_fps"], t["fps"]))
        self.thread = threading.Thread(target=poll, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        return False

    def __str__(self):
        if not self.samples:
            return "never in baton status"
        tg = [s[0] for s in self.samples]
        fp = [s[1] for s in self.samples]
        return "target %.1f..%.1f, 1-s FPS %.1f..%.1f" % (
            min(tg), max(tg), min(fp), max(fp))


def vkcube_run(args, env, daemon, frames, probe):
    """One `baton run -- vkcube --c frames` with the xcb probe; returns
    (wall s, probe timestamps)."""
    env = dict(env, LD_PRELOAD=args.xcb_probe, BATON_PROBE_OUT=probe)
    with Poller(daemon, "vkcube") as poll:
        t0 = time.monotonic()
        r = subprocess.run([args.baton, "run", "--", args.vkcube, "--c",
                            str(frames)], env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=frames / 45.0 * 3 + 30,
                           start_new_session=True)
        wall = time.monotonic() - t0
    out = r.stdout.decode(errors="replace")
    check(r.returncode == 0, "vkcube --c %d exited %d:\n%s" % (
        frames, r.returncode, out[-3000:]))
    check('Inserted device layer "%s"' % VK_LAYER in out,
          "%s was not loaded by `baton run`:\n%s" % (VK_LAYER, out[-3000:]))
    stamps = read_probe(probe)
    check(len(stamps) == frames, "the xcb probe saw %d presents of %d"
          % (len(stamps), frames))
    print("  vkcube --c %d: %.3f s in all; batond: %s" % (frames, wall,
                                                         poll))
    return wall, stamps


def mode_vkcube_sa(args, x):
    check(args.xcb_probe, "--xcb-probe is required")
    cfg = write_config(os.path.join(args.tmp, "margin0.cfg"), sla_margin=0)
    env = x.env(BATON_SOCKET=args.sock, VK_LOADER_DEBUG="layer")
    for k in ("ENABLE_BATON_LAYER", "DISABLE_BATON_LAYER", "XDG_DATA_DIRS",
              "VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_DISABLE"):
        env.pop(k, None)
    n, want = VK_FRAMES, VK_FRAMES / 45.0
    with Batond(args.batond, args.baton, args.sock,
                ["--policy", "sa", "--sla", "45", "--config", cfg],
                env) as d:
        results = []
        # The machine is shared: one rerun if the host spoilt the first.
        for attempt in range(VK_ATTEMPTS):
            with Steal() as st:
                wall, stamps = vkcube_run(args, env, d, VK_SKIP + n,
                                          os.path.join(args.tmp, "vk%d"
                                                       % attempt))
                st.stop()
            took = (stamps[-1] - stamps[VK_SKIP - 1]) / 1e9
            iv = [b - a for a, b in zip(stamps[VK_SKIP - 1:],
                                        stamps[VK_SKIP:])]
            results.append(took)
            print("vkcube through batond (sa, SLA 45, sla_margin 0): frames "
                  "%d..%d took %.3f s = %.3f FPS (want %.2f s +-1%%); "
                  "intervals %.1f..%.1f ms; %s" % (
                      VK_SKIP + 1, VK_SKIP + n, took, n / took, want,
                      min(iv) / 1e6, max(iv) / 1e6, st))
            if within(took, want, 0.01):
                break
    check_timing(within(results[-1], want, 0.01),
          "%d frames took %s s, not %.2f s +-1%%" % (
              n, ", ".join("%.3f" % v for v in results), want))


# ---------------------------------------------------------------- glmark2

class Contention:
    """Three glmark2 instances together, each with a warm-up, a measured
    and a tail benchmark; batond's view polled all along."""

    def __init__(self, args, x, policy):
        self.args, self.x, self.policy = args, x, policy
        self.reports = {}   # name -> [fps of each benchmark]
        self.cpu = {}       # name -> CPU s per frame, measured benchmark
        self.trace = []     # (t, status)
        self.steal = None

    def argv(self, name, bench, managed):
        a = [self.args.glmark2, "-s", SIZE]
        for d in (WARM_S, MEASURE_S, TAIL_S):
            a += ["-b", "%s:duration=%d" % (bench, d)]
        if managed:
            a = [self.args.baton, "run", "--name", name, "--"] + a
        return a

    def run(self):
        env = self.x.env(BATON_SOCKET=self.args.sock)
        daemon = None
        if self.policy != "none":
            daemon = Batond(self.args.batond, self.args.baton,
                            self.args.sock, ["--policy", self.policy,
                                             "--sla", str(SLA)], env)
        clients = []
        try:
            if daemon:
                daemon.start()
            st = Steal(self.x.proc.pid).__enter__()
            t0 = self.t0 = time.monotonic()
            for name, bench in SCENES:
                c = Glmark2(self.argv(name, bench, daemon is not None), env)
                clients.append((name, c.__enter__()))
            self._watch(clients, daemon, t0)
            for name, c in clients:
                check(c.wait_exit(30) == 0, "glmark2 %s failed:\n%s" % (
                    name, c.output()))
                self.reports[name] = [
                    1000.0 / float(m.group(4))
                    for m in c.wait_lines(GLMARK2_LINE, 3, 5)]
            # Every glmark2 reaped: their CPU counts as the test's.
            self.steal = st.stop()
        finally:
            for _, c in clients:
                c.__exit__()
            if daemon:
                daemon.stop()
        return self

    def _watch(self, clients, daemon, t0):
        """Until every glmark2 exits: the CPU each used over its measured
        benchmark (between its first and second report), batond's status
        every 0.5 s."""
        marks = {name: [] for name, _ in clients}
        next_status = t0
        limit = t0 + WARM_S + MEASURE_S + TAIL_S + 60
        while any(c.proc.poll() is None for _, c in clients):
            check(time.monotonic() < limit, "glmark2 ran far too long")
            for name, c in clients:
                with c._cond:
                    n = sum(1 for ln in c.lines if GLMARK2_LINE.search(ln))
                while len(marks[name]) < min(n, 2):
                    marks[name].append((time.monotonic(),
                                        cpu_seconds(c.proc.pid),
                                        cpu_seconds(self.x.proc.pid)))
            if daemon and time.monotonic() >= next_status:
                next_status += 0.5
                try:
                    st = daemon.status()
                    st["other_util"] = other_util(daemon)
                    self.trace.append((time.monotonic() - t0, st))
                except Fail:
                    pass
            time.sleep(0.02)
        self.marks = marks

    def finish(self):
        for name, _ in SCENES:
            m = self.marks.get(name, [])
            fps = self.reports[name][1]
            if len(m) == 2 and m[0][1] is not None and m[1][1] is not None:
                frames = fps * (m[1][0] - m[0][0])
                self.cpu[name] = ((m[1][1] - m[0][1]) / frames,
                                  (m[1][2] - m[0][2]) / frames)
        return self

    def measured(self):
        return {name: r[1] for name, r in self.reports.items()}

    def print(self):
        for t, st in self.trace[::2]:
            print("  t=%4.1f s util %.2f other %.2f  %s" % (
                t, st["gpu_util"], st["other_util"], "  ".join(
                "%s target %.1f fps %.1f%s" % (
                    s["name"], s["target_fps"], s["fps"],
                    " LIMITED reach %.1f" % s.get("reach_fps", 0)
                    if s.get("limited") else "")
                for s in st["tenants"])) + (
                "  common %.1f" % st["common_fps"]
                if st.get("common_fps") else ""))
        for name, _ in SCENES:
            r = self.reports[name]
            cpu = self.cpu.get(name)
            print("%s %-9s warm-up %.1f  measured %.2f FPS  tail %.1f%s" % (
                self.policy, name, r[0], r[1], r[2],
                "  (CPU %.2f ms/frame, X server %.2f)" % (
                    cpu[0] * 1e3, cpu[1] * 1e3) if cpu else ""))
        print("%s: %s, load %s" % (self.policy, self.steal, load()))

    def settle(self, ok):
        """Seconds from the start until batond's 1-second FPS readings
        first satisfy ok for every tenant, or None."""
        for t, st in self.trace:
            ts = st["tenants"]
            if len(ts) == len(SCENES) and ok([s["fps"] for s in ts]):
                return t
        return None


def other_util(daemon):
    """batond's baton_gpu_other_utilization: the host CPUs' load that no
    tenant reports (the X server, steal, ...), which ESA leaves out."""
    try:
        m = re.search(r"^baton_gpu_other_utilization\{[^}]*\} (\S+)$",
                      daemon.metrics(), re.M)
    except OSError:
        return float("nan")
    return float(m.group(1)) if m else float("nan")


def check_costs(run):
    """On llvmpipe batond's GPU time per frame (k_i: GPU share over FPS,
    from its status) is the client's CPU time per frame over the two cores
    (shim_set_software_device). The CPU measured here from /proc includes
    the pacing wait's spin, which the shim leaves out: within COST_TOL."""
    cores = len(os.sched_getaffinity(0))
    for name, _ in SCENES:
        ks = sorted(t["gpu_share"] / t["fps"] for _, st in run.trace
                    for t in st["tenants"] if t["name"] == name and
                    t["fps"] > 0)
        cpu = run.cpu.get(name)
        if not ks or not cpu:
            continue
        k, want = ks[len(ks) // 2], cpu[0] / cores
        print("cost %-9s batond k %.2f ms/frame, CPU/%d cores %.2f ms "
              "(%+.0f%%)" % (name, k * 1e3, cores, want * 1e3,
                             (k / want - 1) * 100))
        check(abs(k / want - 1) <= COST_TOL,
              "%s: batond's cost %.2f ms/frame is not within %.0f%% of "
              "its CPU time over %d cores, %.2f ms" % (
                  name, k * 1e3, COST_TOL * 100, cores, want * 1e3))


def check_none(fps, label):
    """Fig. 1, relatively: desktop, whose frames cost the most CPU, is the
    slowest (jellyfish runs within a few percent of it, on either side,
    hence NONE_SLOWEST) and shading, the cheapest, runs far above it (at
    least NONE_RATIO times; 2.0 to 2.6 measured on a quiet machine, 2.5
    simulated). Whether desktop also falls under the SLA depends on the
    machine: on a quiet one it does not (docs/runtime.md), so that is
    printed, not asserted."""
    slowest = min(fps.values())
    print("%s: desktop %.1f FPS is %s 30; shading/desktop = %.2f" % (
        label, fps["desktop"], "under" if fps["desktop"] < 30 else
        "NOT under", fps["shading"] / fps["desktop"]))
    check_timing(fps["desktop"] <= slowest * (1 + NONE_SLOWEST),
          "%s: desktop is not the slowest (within %.0f%%): %s" % (
              label, NONE_SLOWEST * 100, fps))
    check_timing(fps["shading"] >= NONE_RATIO * fps["desktop"],
          "%s: shading %.1f is not %.1f times desktop %.1f" % (
              label, fps["shading"], NONE_RATIO, fps["desktop"]))


def check_sa(fps, label):
    for name, v in fps.items():
        check_timing(v >= SA_MIN, "%s: %s averaged %.2f FPS, under %.1f: %s" % (
            label, name, v, SA_MIN, fps))


def check_esa(fps, label):
    mean = sum(fps.values()) / len(fps)
    worst = max(abs(v / mean - 1) for v in fps.values())
    print("%s: common rate %.2f FPS, the farthest %.1f%% from it" % (
        label, mean, worst * 100))
    check_timing(worst <= ESA_SPREAD, "%s: %s are not within %.0f%% of %.2f" % (
        label, fps, ESA_SPREAD * 100, mean))
    check_timing(mean > SLA, "%s: common rate %.2f is not above %.0f" % (
        label, mean, SLA))


def check_fsa(fps, label):
    """FSA's guarantee: no tenant under the SLA (within SA's bound) while
    the others have share to give; here all three run free above it."""
    check_sa(fps, label)


CHECKS = {"none": check_none, "sa": check_sa, "esa": check_esa,
          "fsa": check_fsa}


def esa_steady(run):
    """(sum(k), other, (U - other) / sum(k)) from batond's status over an
    ESA run (medians): its GPU time per frame summed over the three, the
    load no tenant reports, and the common rate its own model gives at
    U = 0.95; None without a full trace."""
    ks = [sum(t["gpu_share"] / t["fps"] for t in st["tenants"]
              if t["fps"] > 0)
          for _, st in run.trace if len(st["tenants"]) == len(SCENES)]
    others = sorted(st["other_util"] for _, st in run.trace)
    if not ks or not others:
        return None
    k, other = sorted(ks)[len(ks) // 2], others[len(others) // 2]
    return k, other, (0.95 - other) / k


def contention(args, x, policy):
    run = Contention(args, x, policy).run().finish()
    run.print()
    fps = run.measured()
    if policy == "sa":
        print("SA settled (batond's 1-s FPS of all three >= %.1f) at %s s"
              % (SA_MIN, run.settle(lambda v: min(v) >= SA_MIN)))
    if policy == "esa":
        steady = esa_steady(run)
        if steady:
            print("ESA: batond's GPU time per frame, summed over the three "
                  "(median of its status): %.2f ms; load no tenant reports "
                  "%.1f%% of the cores (median); so (U - other) / sum(k) = "
                  "%.1f FPS" % (steady[0] * 1e3, steady[1] * 100,
                                steady[2]))
        check_costs(run)
        print("ESA settled (batond's 1-s FPS of all three within 5%% of "
              "each other) at %s s" % run.settle(
                  lambda v: max(v) <= 1.05 * min(v)))
    try:
        CHECKS[policy](fps, "measured " + policy)
    except Fail as e:
        e.run = run
        raise
    return run


def mode_contention_none(args, x):
    contention(args, x, "none")


def mode_contention_sa(args, x):
    contention(args, x, "sa")


def mode_contention_esa(args, x):
    contention(args, x, "esa")


# ---------------------------------------------------------------- twin

class Twin:
    """The digital twin of the three contention runs, from costs measured
    now, on this machine (twin.py): each scene alone, free running (the
    costs of `none`) and pinned at SA's target (SA's); then pinned at the
    common rate that ESA reaches in the simulator on the free costs, and
    ESA simulated with the costs interpolated at the rate it reaches on
    them (a fixed point: paced frames cost more the slower they are
    paced, and the rate ESA can give depends on that cost)."""

    def __init__(self, args, x):
        self.args = args
        self.used = {}  # policy -> {name: Cost} its prediction was run on
        self.target = SLA * (1 + SLA_MARGIN)
        self.free = solo_costs(args, x, TWIN_WARM_S, TWIN_MEASURE_S)
        self.pinned = {n: [c] for n, c in solo_costs(
            args, x, TWIN_WARM_S, TWIN_MEASURE_S, self.target).items()}
        top = common_rate(self.simulate("esa", self.free))
        print("twin: ESA on the free-running costs: %.1f FPS" % top)
        if top > self.target * 1.05:
            for n, c in solo_costs(args, x, TWIN_WARM_S, TWIN_MEASURE_S,
                                   round(top, 1)).items():
                self.pinned[n].append(c)

    def busiest(self):
        """The most cores other processes used in any solo measurement."""
        return max(c.others for cs in [list(self.free.values())] +
                   list(self.pinned.values()) for c in cs)

    def costs(self, fps):
        return {n: twin.paced_at(c, self.pinned[n], fps)
                for n, c in self.free.items()}

    def simulate(self, policy, costs, seed=None):
        path = os.path.join(self.args.tmp, "twin-%s.cfg" % policy)
        twin.write_scenario(
            path, "twin-glmark2-contention",
            "glmark2 jellyfish, desktop and shading at %s, costs measured "
            "in this run" % SIZE,
            [costs[n] for n, _ in SCENES], policy,
            duration_s=WARM_S + MEASURE_S, warmup_s=WARM_S, sla=SLA)
        self.used[policy] = costs
        return twin.simulate(self.args.baton, path, policy, seed)

    def seed_spread(self, policy, sim):
        """{name: how far the simulated rate moves over TWIN_SEEDS on the
        prediction's costs, the most either side of sim, relative}."""
        runs = [self.simulate(policy, self.used[policy], seed)
                for seed in TWIN_SEEDS]
        return {n: max(abs(r[n] / sim[n] - 1) for r in runs)
                for n, _ in SCENES}

    def input_error(self, policy, sim, run):
        """{name: how far the simulated rate moves when each client's CPU
        and X server time per frame are what it used in the contention
        run itself (run.cpu) instead of alone, relative}: the error of
        the twin's inputs, measured. 0 for a client without a reading."""
        base, costs = self.used[policy], {}
        for n, c in base.items():
            cpu = run.cpu.get(n)
            costs[n] = c if not cpu else twin.Cost(
                n, c.fps, cpu[0] * 1e3, cpu[1] * 1e3, c.k_ms, c.steal,
                c.cores, c.others, c.pinned, c.jitter, c.work_ms)
        moved = self.simulate(policy, costs)
        self.used[policy] = base
        return {n: abs(moved[n] / sim[n] - 1) for n, _ in SCENES}

    def predict(self, policy):
        """{name: simulated FPS} under policy. FSA runs on the free costs:
        on this machine the three run free far above the SLA (none), so
        no one needs a donor and FSA leaves all three unpaced."""
        if policy in ("none", "fsa"):
            return self.simulate(policy, self.free)
        if policy == "sa":
            return self.simulate(policy, self.costs(self.target))
        rate = self.target
        for _ in range(TWIN_ITER):
            sim = self.simulate(policy, self.costs(rate))
            rate, last = common_rate(sim), rate
            if abs(rate / last - 1) < 0.005:
                break
        print("twin: ESA's common rate on costs paced at %.1f FPS: %.1f"
              % (last, rate))
        return sim


def common_rate(fps):
    return sum(fps.values()) / len(fps)


def side_by_side(policy, sim, run):
    """Prints simulated against measured; returns the worst error."""
    real, worst = run.measured(), 0.0
    for name, _ in SCENES:
        err = sim[name] / real[name] - 1
        worst = max(worst, abs(err))
        print("sim-vs-real %-4s %-9s simulated %6.1f  measured %6.1f  "
              "(%+.1f%%)" % (policy, name, sim[name], real[name], err * 100))
    return worst


def measured_status(run, name):
    """batond's status of the client over its measured benchmark (between
    its first and second glmark2 report), one reading a second (the trace
    polls every 0.5 s a rate over the last second); [] without them."""
    m = run.marks.get(name, [])
    if len(m) < 2:
        return []
    a, b = m[0][0] - run.t0, m[1][0] - run.t0
    return [s for t, st in run.trace[::2] if a <= t <= b
            for s in st["tenants"] if s["name"] == name]


def real_spread(run):
    """{name: TWIN_SE standard errors of the mean of batond's 1-s rate over
    the client's measured benchmark, relative}: one reading a second
    counts as independent. None for a client with fewer than three
    readings (no daemon: none)."""
    out = {}
    for name, _ in SCENES:
        v = [s["fps"] for s in measured_status(run, name)]
        if len(v) < 3:
            out[name] = None
            continue
        mean = sum(v) / len(v)
        sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1))
        out[name] = TWIN_SE * sd / math.sqrt(len(v)) / mean
    return out


def rate_drift(run):
    """{name: how far the client's rate over the last DRIFT_READINGS of
    batond's 1-s readings of its measured benchmark was above its mean
    over the whole benchmark, relative, not under 0}: a rate still
    climbing when the benchmark ends (FSA giving a donor's share back,
    ESA's ceiling climbing) makes the mean an underestimate of the rate
    the run was settling at, which is the twin's prediction."""
    out = {}
    for name, _ in SCENES:
        v = [s["fps"] for s in measured_status(run, name)]
        if len(v) <= DRIFT_READINGS:
            out[name] = 0.0
            continue
        end = sum(v[-DRIFT_READINGS:]) / DRIFT_READINGS
        out[name] = max(end / (sum(v) / len(v)) - 1, 0.0)
    return out


def fsa_free(run):
    """{name: the share of batond's 1-s readings over the client's
    measured benchmark in which FSA left it free (target 0)}."""
    out = {}
    for name, _ in SCENES:
        v = measured_status(run, name)
        out[name] = (sum(1 for s in v if not s["target_fps"] > 0) / len(v)
                     if v else 0.0)
    return out


def free_model_error(free_run, free_sim):
    """{name: sim / measured - 1 of the twin's `none` prediction against the
    `none` run measured in this run}: how far the twin's model of games
    running free is off, which no pacing policy corrects."""
    real = free_run.measured()
    return {n: free_sim[n] / real[n] - 1 for n, _ in SCENES}


def compounded(*ratios):
    """The relative change of relative changes applied one after another:
    (1 + a) (1 + b) ... - 1."""
    out = 1.0
    for r in ratios:
        out *= 1.0 + r
    return out - 1.0


def twin_tolerance(tw, policy, sim, run, free=None):
    """{name: (below, above)}: how far under and over the measured rate
    the simulated one may be, relative, measured in this run from what
    moves either side without the twin's model being wrong (added below,
    compounded above; see the end):

    - the simulator's own spread: its rate over TWIN_SEEDS on the same
      costs (seed_spread);
    - the measurement's: TWIN_SE standard errors of the real mean
      (real_spread);
    - the inputs': how far the simulated rate moves with the CPU time per
      frame each client used in this contention run instead of alone
      (input_error); a free-running frame costs 5-20% more or less under
      contention than alone, which solo costs cannot know;
    - esa, above only: how far batond's own steady rate, (U - other) /
      sum(k) from its status in this run (esa_steady), was over the rate
      the tenant reached (one a little short of ESA's common rate, as
      desktop often is, fell short of batond's steady one by that much
      more). ESA's ceiling comes down when a tenant stalls
      (glmark2's start-up, its benchmark switches) and climbs back
      slowly; the twin's frames do not stall, so it predicts the steady
      rate (docs/runtime.md), and batond measures the gap itself;
    - esa and fsa, above only: how far the rate was still climbing at the
      end of the measured benchmark (rate_drift);
    - fsa, on the side it fell: the twin's error on the same games running
      free (free_model_error, `none` simulated against `none` measured in
      this run), times the share of the benchmark FSA left the game free
      (fsa_free). FSA is simulated on the free costs and leaves a game far
      above its SLA free: its rate is then the free-running model's,
      whose error (+4 to +30% for jellyfish and shading in the runs so
      far) is printed under `none`, not asserted.
    Each of these is a reading of this run; none is a constant. They are
    ratios that stack: the twin's rate over batond's steady one, times
    that over the rate reached, is the twin's over the rate reached, so
    the side above compounds them (compounded) rather than adding them;
    at a transient of 20% a sum fell short by a fifth of the rest."""
    seeds = tw.seed_spread(policy, sim)
    inputs = tw.input_error(policy, sim, run)
    noise = real_spread(run)
    real = run.measured()
    transient = {n: 0.0 for n, _ in SCENES}
    steady = esa_steady(run) if policy == "esa" else None
    if steady:
        transient = {n: max(steady[2] / real[n] - 1, 0.0)
                     for n, _ in SCENES}
    drift = rate_drift(run)
    transient = {n: compounded(transient[n], drift[n]) for n, _ in SCENES}
    model = {n: 0.0 for n, _ in SCENES}
    if policy == "fsa" and free:
        share = fsa_free(run)
        model = {n: free[n] * share[n] for n, _ in SCENES}
    out = {}
    for name, _ in SCENES:
        check(noise[name] is not None, "%s: %s has too few readings in "
              "batond's trace to measure its spread" % (policy, name))
        below = seeds[name] + noise[name] + inputs[name]
        out[name] = (below + max(-model[name], 0.0),
                     compounded(below, transient[name],
                                max(model[name], 0.0)))
        print("twin: %s %-9s tolerance -%.1f%% / +%.1f%%: seeds %.1f%%, "
              "measurement %.1f%%, inputs %.1f%%, transients %.1f%%, "
              "free-running model %+.1f%%" % (
                  policy, name, out[name][0] * 100, out[name][1] * 100,
                  seeds[name] * 100, noise[name] * 100, inputs[name] * 100,
                  transient[name] * 100, model[name] * 100))
    return out


def twin_errors(tw, policy, sim, run, free=None):
    """The tenants whose simulated rate misses the measured one, as
    strings: sa against TWIN_TOL, the others in TWIN_ASSERTED and
    TWIN_PRINTED against twin_tolerance; none for the rest."""
    real = run.measured()
    if policy == "sa":
        tol = {n: (TWIN_TOL, TWIN_TOL) for n, _ in SCENES}
    elif policy in TWIN_ASSERTED + TWIN_PRINTED:
        tol = twin_tolerance(tw, policy, sim, run, free)
    else:
        return []
    errors = []
    for name, _ in SCENES:
        err, (below, above) = sim[name] / real[name] - 1, tol[name]
        if not -below <= err <= above:
            errors.append("%s %s %+.1f%% (allowed -%.1f%% to +%.1f%%)" % (
                policy, name, err * 100, below * 100, above * 100))
    return errors


def mode_sim(args, x):
    """The twin: simulated from solo costs measured first, then measured
    under each policy; per tenant, sa within TWIN_TOL, esa and fsa within
    the tolerance measured in this run (twin_tolerance), none printed."""
    tw = Twin(args, x)
    sims = {}
    for policy in POLICIES:
        sims[policy] = tw.predict(policy)
        check_simulated(policy, sims[policy])
    errors = []
    busy = tw.busiest()
    free = None  # free_model_error, once `none` is measured
    for policy in POLICIES:
        run = reference_run(args, x, policy)
        busy = max(busy, run.steal.others or 0.0)
        worst = side_by_side(policy, sims[policy], run)
        if policy == "none":
            free = free_model_error(run, sims[policy])
        missed = twin_errors(tw, policy, sims[policy], run, free)
        print("twin: %s is %.1f%% off at worst (%s)%s" % (
            policy, worst * 100, run.steal, "" if policy in
            TWIN_ASSERTED else ", printed, not asserted"))
        if policy in TWIN_ASSERTED:
            errors += missed
        elif missed:
            print("twin: %s outside its tolerance: %s" % (
                policy, ", ".join(missed)))
    if errors and busy > TWIN_BUSY:
        raise Busy("the twin is off (%s), but other processes used up to "
                   "%.2f cores while it measured" % (", ".join(errors),
                                                      busy))
    check_timing(not errors, "the twin is off the measured rates: %s" %
                 ", ".join(errors))


def reference_run(args, x, policy):
    """The measured contention run under policy, whether or not it passes
    that policy's checks: its own test judges it; the twin and the table
    only compare with it."""
    try:
        return contention(args, x, policy)
    except Fail as e:
        if not getattr(e, "run", None):
            raise
        print("(%s: %s)" % (policy, e))
        return e.run


def check_simulated(policy, sim):
    """Prints the simulated rates and checks they show the policy's shape."""
    print("simulated %-4s %s" % (policy, "  ".join(
        "%s %.2f" % (n, sim[n]) for n, _ in SCENES)))
    CHECKS[policy](sim, "simulated " + policy)


class Busy(Fail):
    """Someone else's work ran during a measurement the twin needs:
    reported as skipped."""


def mode_sim_example(args, x):
    check(args.scenario, "--scenario is required")
    for policy in POLICIES:
        check_simulated(policy,
                        twin.simulate(args.baton, args.scenario, policy))


def mode_table(args, x):
    tw = Twin(args, x)
    rows = {}
    for policy in POLICIES:
        sim = tw.predict(policy)
        run = reference_run(args, x, policy)
        side_by_side(policy, sim, run)
        rows[policy] = (sim, run.measured(), run.steal)
    print()
    print("| policy | scene | simulated FPS | measured FPS | sim/measured |"
          " host steal | others' cores |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for policy, (sim, real, steal) in rows.items():
        for name, _ in SCENES:
            print("| %s | %s | %.1f | %.1f | %+.1f%% | %.0f%% | %.2f |" % (
                policy, name, sim[name], real[name],
                (sim[name] / real[name] - 1) * 100, steal.steal * 100,
                steal.others or 0.0))


def glmark2_argv(args, bench, seconds):
    return [args.glmark2, "-s", SIZE, "-b", "%s:duration=%d" % (bench,
                                                                seconds)]


def solo_costs(args, x, warm_s, measure_s, fps=None):
    """{name: twin.Cost} of each scene alone, measured now."""
    specs = [(name, glmark2_argv(args, bench, warm_s + measure_s + 30))
             for name, bench in SCENES]
    costs = twin.measure_solo(twin.Bed(args.baton, args.batond, x, args.tmp),
                              specs, warm_s, measure_s, fps)
    for c in costs.values():
        print("solo", c)
    return costs


def mode_solo(args, x):
    """Each scene alone (the scenario's inputs)."""
    solo_costs(args, x, WARM_S, MEASURE_S)


# ---------------------------------------------------------------- faults

def mode_faults(args, x):
    check(args.probe, "--probe is required")
    env = x.env(BATON_SOCKET=args.sock)
    names = ["gears%d" % i for i in range(3)]
    probes = {n: os.path.join(args.tmp, n + ".probe") for n in names}
    d = Batond(args.batond, args.baton, args.sock,
               ["--policy", "sa", "--sla", str(SLA)], env)
    clients = {}
    try:
        d.start()
        for n in names:
            cenv = dict(env, LD_PRELOAD=args.probe, BATON_PROBE_OUT=probes[n])
            clients[n] = Client([args.baton, "run", "--name", n, "--",
                                 args.glxgears], cenv).__enter__()
        d.wait_tenants(names, 20)
        # Settled: every tenant within 3% of its reference for 2 s.
        target = SLA * 1.01
        t0, ok_since = time.monotonic(), None
        while True:
            ts = d.tenants()
            ok = all(within(ts[n]["fps"], target, 0.03) for n in names)
            now = time.monotonic()
            ok_since = (ok_since or now) if ok else None
            if ok_since and now - ok_since >= 2:
                break
            check(now - t0 < 30, "the three glxgears did not settle at "
                  "%.1f FPS: %s" % (target, ts))
            time.sleep(0.1)
        print("settled at %.1f FPS after %.1f s" % (target,
                                                     time.monotonic() - t0))
        time.sleep(1)

        # 1. batond dies: the clients keep their last target.
        with Steal() as st:
            t_kill = time.monotonic_ns()
            d.kill9()
            time.sleep(2)
            for n, c in clients.items():
                check(c.proc.poll() is None, "%s exited when batond died:\n"
                      "%s" % (n, c.output()))
            # 2. A new batond on the same socket: all three re-register.
            t_restart = time.monotonic_ns()
            d.start()
            ready = (time.monotonic_ns() - t_restart) / 1e9
            d.wait_tenants(names, 10)
            # From the exec of the new batond, its own start-up included.
            back = (time.monotonic_ns() - t_restart) / 1e9
            time.sleep(2)
            t_after = time.monotonic_ns()
            st.stop()
        print("batond restarted: answering after %.3f s, all three back in "
              "`baton status` after %.3f s" % (ready, back))

        # 3. A client dies: batond drops it.
        victim = names[1]
        t_dead = time.monotonic()
        os.killpg(clients[victim].proc.pid, 9)
        while victim in d.tenants():
            check(time.monotonic() - t_dead < 5, "%s still in baton status"
                  " 5 s after kill -9" % victim)
            time.sleep(0.01)
        dropped = time.monotonic() - t_dead
        print("kill -9 %s: gone from `baton status` after %.3f s" % (
            victim, dropped))
        rest = d.tenants()
        check(set(rest) == set(names) - {victim},
              "tenants after the kill: %s" % sorted(rest))

        # Frame intervals from the probe (outside the shim).
        period = 1e9 / target
        worst = {}
        for n in names:
            stamps = read_probe(probes[n])
            before = [t for t in stamps if t_kill - 3e9 <= t < t_kill]
            # every interval that ends between the kill and the end of
            # the restart check, the one spanning the kill included
            iv = [b - a for a, b in zip(stamps, stamps[1:])
                  if t_kill <= b <= t_after]
            check(len(iv) > 10, "%s: the probe saw %d frames after the "
                  "kill" % (n, len(iv)))
            ib = [b - a for a, b in zip(before, before[1:])]
            gap = [b - a for a, b in zip(stamps, stamps[1:])
                   if t_kill <= b <= t_restart]
            fps_gap = len(gap) * 1e9 / sum(gap) if gap else 0
            worst[n] = (max(iv), max(ib) if ib else 0)
            print("%s: max interval %.1f ms after the kill, to the restart "
                  "(%.1f ms in the 3 s before; target period %.1f ms); "
                  "%.2f FPS while batond was down" % (
                      n, max(iv) / 1e6, max(ib) / 1e6, period / 1e6,
                      fps_gap))
        print("faults: %s, load %s" % (st, load()))
        check(back <= 2.0, "re-registration took %.3f s" % back)
        check(dropped <= 1.0, "%s was dropped after %.3f s" % (victim,
                                                                dropped))
        # The requirement: no stall beyond one period over the target,
        # i.e. no interval over 2 periods. A shared VM stalls every process
        # now and then (host steal); a stall no longer than this client's
        # own worst in the 3 s before the kill is the machine's, not the
        # kill's, and is reported but not failed.
        for n, (w, base) in worst.items():
            allowed = max(2 * period, base)
            if w > 2 * period:
                print("%s: %.1f ms is over 2 periods, but the machine "
                      "stalled it %.1f ms before the kill too" % (
                          n, w / 1e6, base / 1e6))
            check_timing(w <= allowed, "%s stalled %.1f ms after the kill (over "
                  "2 periods, %.1f ms, and over its %.1f ms before it)" % (
                      n, w / 1e6, 2 * period / 1e6, base / 1e6))
    finally:
        for c in clients.values():
            c.__exit__()
        d.stop()


MODES = {
    "gears-sa": mode_gears_sa,
    "vkcube-sa": mode_vkcube_sa,
    "contention-none": mode_contention_none,
    "contention-sa": mode_contention_sa,
    "contention-esa": mode_contention_esa,
    "sim": mode_sim,
    "sim-example": mode_sim_example,
    "faults": mode_faults,
    "solo": mode_solo,
    "table": mode_table,
}


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("mode", choices=sorted(MODES))
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--probe")
    p.add_argument("--xcb-probe")
    p.add_argument("--xvfb", default="Xvfb")
    p.add_argument("--glxgears", default="glxgears")
    p.add_argument("--glmark2", default="glmark2")
    p.add_argument("--vkcube", default="vkcube")
    p.add_argument("--scenario")
    p.add_argument("--quiet-wait", type=float, default=QUIET_WAIT_S,
                   help="seconds to wait for a quiet machine first")
    args = p.parse_args()
    if args.mode != "sim-example" and args.quiet_wait > 0:
        quiet, busy = wait_quiet(args.quiet_wait)
        print("machine %s: %.0f%% of the CPU busy before the test (load "
              "%s)" % ("quiet" if quiet else "BUSY", busy * 100, load()))
    try:
        with tempfile.TemporaryDirectory(prefix="baton-daemon-e2e-") as tmp:
            args.tmp = tmp
            args.sock = os.path.join(tmp, "batond.sock")
            if args.mode == "sim-example":
                MODES[args.mode](args, None)
            else:
                with Xvfb(args.xvfb) as x:
                    MODES[args.mode](args, x)
    except Busy as e:
        print("SKIP:", e)
        return 77
    except TimingFail as e:
        return batonbed.timing_verdict(e)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
