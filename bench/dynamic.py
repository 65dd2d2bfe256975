#!/usr/bin/env python3
"""Baton against static frame caps on a workload that changes. Real
clients on Mesa llvmpipe/lavapipe under a private Xvfb
arrive, change scenes and leave, once per limiter, back to back:

    bench/dynamic.py [--build DIR] [--limiters none,mh30,...] [--seconds N]
                     [--out DIR] [--no-solo] [--no-sim] [--plot FILE]

Limiters (--limiters, comma-separated; default all that are available):
  none      unmanaged: every client runs free
  mh30 mh60 MangoHud 0.6.8 (Debian) fps_limit=30 / 60 (GL and EGL:
            preloaded as `mangohud --dlsym` does; Vulkan: its layer)
  mh072-30 mh072-60  MangoHud 0.7.2 (bench/build_mangohud.sh), if built
  pin30     Baton's own static pin: `baton run --fps 30`, no batond
  sa fsa esa  `batond --policy P --sla 30`, clients `baton run --name N`

The scenario (SCENARIO below, scaled to --seconds): tenants with an
arrival time, an optional departure, and glmark2 scenes whose cost
changes during the run. Every frame is timestamped outside every limiter,
when Mesa hands it to the X server: bench/swap_probe.c for GLX and EGL,
tests/e2e/daemon/xcb_probe.c for vkcube.

Per limiter: each tenant's FPS in 1-s windows (time-weighted, so a steady
30 FPS reads 30.0, not 29 or 31 by phase), counted only while it is
present (from the first whole second after its first frame to its
departure); below-SLA seconds (a window under SLA * (1 - SLA_TOL)); mean
and 1 % low FPS (1 % low: the rate of the p99 frame interval); the
frame-interval p99; the machine's CPU busy share from /proc/stat (and the
host's steal). With --solo (default) each client/scene is first measured
alone (tests/e2e/daemon/twin.py) and the simulator runs the same scenario
under each policy; its prediction is printed beside the measurement.

Each run writes OUT/LIMITER.log: per-second per-tenant FPS, glmark2's
scene changes, and batond's status (target_fps, fps, gpu_share per tenant)
every 0.5 s. OUT/results.json holds everything; --plot draws one panel
per limiter (bench/dynamic_plot.py, matplotlib).

Timing runs share the machine: run under `flock /tmp/baton-cpu.lock`.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "daemon"))
import twin  # noqa: E402
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      read_probe)

SIZE = "640x360"
SLA = 30.0
# A window is under the SLA when it is more than this below it: a limiter
# that holds exactly 30 FPS reads 29.9 or 30.1 in a window by jitter alone.
SLA_TOL = 0.02
STATUS_S = 0.5
KILL_CUT_S = 0.25
NOMINAL_S = 48.0

MANGOHUD_LIB = "/usr/lib/x86_64-linux-gnu/mangohud/libMangoHud.so"
# `mangohud --dlsym`: glmark2 finds its GL and EGL entry points with
# dlopen/dlsym, past a plain preload, and MangoHud then never sees a swap
# (measured: fps_limit=30 left glmark2 at 100+ FPS); its dlsym hook is what
# a user of such a game has to add.
MANGOHUD_DLSYM = os.path.join(os.path.dirname(MANGOHUD_LIB),
                              "libMangoHud_dlsym.so")
MANGOHUD_072_LIB = ("/var/cache/baton-bench/mangohud-0.7.2/lib/mangohud/"
                    "libMangoHud_opengl.so")

# The scenario at NOMINAL_S seconds (scaled to --seconds): name, client
# (glmark2 = GLX, glmark2-es2 = EGL, vkcube = Vulkan), start_s, stop_s
# (0 = the end), and for glmark2 the scenes as (from_s, benchmark).
#
# Measured solo on the development machine (2 vCPUs, quiet): device time
# per frame (CPU of all threads + the X server's copy, over 2 cores)
# glmark2 shading 1.7 ms, jellyfish 4.0, desktop 5-7; glmark2-es2 build 1.7,
# desktop 8.0, jellyfish 5.4, shading 3.8; vkcube 1.3. From 16 s to 24 s
# all five hold 70-77 % of the cores at 30 FPS each: a static 30 cap
# fits, with room left for ESA, but run free each client gets about an
# equal share of the cores and the desktops (16 ms of CPU a frame) fall
# toward 25 FPS. es-d arrives at 10 s and gl-e at 12 s into free-running
# tenants; es-b's and gl-a's scenes get heavier at 14 and 16 s; vk-c
# leaves at 26 s; es-d's scene gets lighter at 24 s.
SCENARIO = (
    ("gl-a", "glmark2", 0, 0,
     ((0, "shading:shading=phong"), (16, "jellyfish"))),
    ("es-b", "glmark2-es2", 3, 0,
     ((3, "build:use-vbo=true"), (14, "desktop"))),
    ("vk-c", "vkcube", 6, 26, ()),
    ("es-d", "glmark2-es2", 10, 0,
     ((10, "jellyfish"), (24, "shading:shading=phong"))),
    ("gl-e", "glmark2", 12, 0, ((12, "desktop"),)),
)


class Tenant:
    def __init__(self, name, client, start, stop, scenes, scale):
        self.name, self.client = name, client
        self.start = start * scale
        self.stop = stop * scale if stop else 0.0
        self.scenes = [(at * scale, b) for at, b in scenes]

    def end(self, duration):
        return self.stop or duration

    def argv(self, exe, duration):
        """The client's own command line: glmark2 runs its scenes back to
        back (each for its share of the time; the last one to the end and
        a little past, since the tenant is stopped at its end anyway)."""
        if self.client == "vkcube":
            return [exe["vkcube"]]
        a = [exe[self.client], "-s", SIZE]
        bounds = [at for at, _ in self.scenes[1:]] + [self.end(duration) + 5]
        for (at, bench), nxt in zip(self.scenes, bounds):
            a += ["-b", "%s:duration=%.1f" % (bench, nxt - at)]
        return a

    def probe(self, libs):
        return libs["xcb"] if self.client == "vkcube" else libs["gl"]


def scenario(seconds):
    scale = seconds / NOMINAL_S
    return [Tenant(*t, scale=scale) for t in SCENARIO]


# ------------------------------------------------------------ limiters

class Limiter:
    """How a client runs under one limiter: the command line and the
    environment, and which batond (if any) runs alongside."""

    def __init__(self, name, policy=None, mangohud=None, fps=None,
                 pin=None):
        self.name, self.policy, self.mangohud = name, policy, mangohud
        self.fps, self.pin = fps, pin

    def wrap(self, t, argv, env, probe, baton):
        env = dict(env)
        if self.mangohud:
            env["MANGOHUD"] = "1"
            env["MANGOHUD_CONFIG"] = "fps_limit=%d,no_display" % self.fps
            if t.client == "vkcube":
                # Vulkan: MangoHud's implicit layer, enabled by MANGOHUD=1.
                env["LD_PRELOAD"] = probe
            else:
                # The probe after MangoHud: it stamps what MangoHud lets go.
                env["LD_PRELOAD"] = ":".join(self.mangohud + [probe])
            return argv, env
        env["LD_PRELOAD"] = probe
        if t.client == "vkcube":
            env.pop("MANGOHUD", None)
        if self.policy or self.pin:
            # `baton run` puts the shim first in LD_PRELOAD, the probe after.
            pre = [baton, "run", "--name", t.name]
            if self.pin:
                pre += ["--fps", "%g" % self.pin]
            return pre + ["--"] + argv, env
        return argv, env


def limiters(mangohud_072=MANGOHUD_072_LIB):
    out = {"none": Limiter("none")}
    if os.path.exists(MANGOHUD_LIB):
        for f in (30, 60):
            out["mh%d" % f] = Limiter("mh%d" % f, mangohud=[
                MANGOHUD_DLSYM, MANGOHUD_LIB], fps=f)
    if mangohud_072 and os.path.exists(mangohud_072):
        for f in (30, 60):
            # 0.7.2's dlsym hook sits next to its GL library.
            d = os.path.join(os.path.dirname(mangohud_072),
                             "libMangoHud_dlsym.so")
            out["mh072-%d" % f] = Limiter("mh072-%d" % f, mangohud=[
                d, mangohud_072] if os.path.exists(d) else [mangohud_072],
                fps=f)
    out["pin30"] = Limiter("pin30", pin=SLA)
    for p in ("sa", "fsa", "esa"):
        out[p] = Limiter(p, policy=p)
    return out


DESCRIBE = {
    "none": "unmanaged",
    "mh30": "MangoHud 0.6.8 fps_limit=30",
    "mh60": "MangoHud 0.6.8 fps_limit=60",
    "mh072-30": "MangoHud 0.7.2 fps_limit=30",
    "mh072-60": "MangoHud 0.7.2 fps_limit=60",
    "pin30": "baton run --fps 30 (static)",
    "sa": "Baton SA", "fsa": "Baton FSA", "esa": "Baton ESA",
}


# ------------------------------------------------------------ one run

def proc_stat():
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:]]


class Run:
    """One pass of the scenario under one limiter."""

    def __init__(self, args, x, lim, tenants, duration):
        self.args, self.x, self.lim = args, x, lim
        self.tenants, self.duration = tenants, duration
        self.status = []      # (t, status dict)
        self.scene_ends = {t.name: [] for t in tenants}
        self.started = {}     # name -> t of launch
        self.stopped = {}
        self.exits = {}
        self.errors = []

    def run(self):
        a = self.args
        tmp = tempfile.mkdtemp(prefix="dyn-%s-" % self.lim.name,
                               dir=a.tmp)
        sock = os.path.join(tmp, "batond.sock")
        env = self.x.env(BATON_SOCKET=sock)
        daemon = None
        if self.lim.policy:
            daemon = Batond(a.batond, a.baton, sock,
                            ["--policy", self.lim.policy, "--sla",
                             "%g" % SLA], env)
            daemon.start()
        self.probes = {t.name: os.path.join(tmp, t.name + ".probe")
                       for t in self.tenants}
        clients = {}
        done = threading.Event()
        poller = None
        if daemon:
            poller = threading.Thread(target=self._poll,
                                      args=(daemon, done), daemon=True)
        try:
            s0 = proc_stat()
            self.t0 = time.monotonic()
            self.t0_ns = time.monotonic_ns()
            if poller:
                poller.start()
            events = sorted([(t.start, 0, t) for t in self.tenants] +
                            [(t.stop, 1, t) for t in self.tenants if t.stop])
            events.append((self.duration, 2, None))
            for at, kind, t in events:
                while True:
                    left = self.t0 + at - time.monotonic()
                    if left <= 0:
                        break
                    self._scan(clients)
                    time.sleep(min(left, 0.05))
                if kind == 0:
                    argv, cenv = self.lim.wrap(
                        t, t.argv(a.exe, self.duration),
                        dict(env, BATON_PROBE_OUT=self.probes[t.name]),
                        t.probe(a.probes), a.baton)
                    clients[t.name] = Client(argv, cenv).__enter__()
                    self.started[t.name] = time.monotonic() - self.t0
                elif kind == 1:
                    self._stop(clients, t.name)
            self._scan(clients)
            s1 = proc_stat()
        finally:
            done.set()
            for name in list(clients):
                self._stop(clients, name)
            if poller:
                poller.join()
            if daemon:
                self.daemon_log = daemon.log[-200:]
                daemon.stop()
        d = [y - x for x, y in zip(s0, s1)]
        total = sum(d[:8]) or 1
        self.busy = (d[0] + d[1] + d[2] + d[5] + d[6]) / total
        self.steal = d[7] / total
        return self

    def _stop(self, clients, name):
        c = clients.pop(name, None)
        if c is None:
            return
        self._scan({name: c})
        self.exits[name] = c.proc.poll()
        if self.exits[name] is not None:
            self.errors.append("%s exited early (status %s) at %.1f s:\n%s"
                               % (name, self.exits[name],
                                  time.monotonic() - self.t0, c.output()))
        c.__exit__()
        self.stopped[name] = time.monotonic() - self.t0

    def _scan(self, clients):
        """glmark2 prints a line as each scene ends: the time it appears
        is the scene change (setup of the next one included)."""
        now = time.monotonic() - self.t0
        for name, c in clients.items():
            with c._cond:
                n = sum(1 for ln in c.lines if "FrameTime" in ln)
            ends = self.scene_ends[name]
            while len(ends) < n:
                ends.append(now)

    def _poll(self, daemon, done):
        while not done.wait(STATUS_S):
            try:
                st = daemon.status(timeout=2)
            except (Fail, ValueError):
                continue
            self.status.append((time.monotonic() - self.t0, st))

    # -------------------------------------------------------- figures

    def analyse(self):
        self.stats = {}
        for t in self.tenants:
            stamps = [(s - self.t0_ns) / 1e9
                      for s in read_probe(self.probes[t.name])]
            self.stats[t.name] = tenant_stats(t, stamps, self.duration,
                                              self.stopped.get(t.name),
                                              self.scene_ends[t.name])
        present = [s for s in self.stats.values() if s["windows"]]
        self.worst_below = max((s["below"] for s in present), default=0)
        self.total_below = sum(s["below"] for s in present)
        self.windows = sum(len(s["windows"]) for s in present)
        self.p99_ms = max((s["p99_ms"] for s in present), default=0)
        return self

    def log(self, path):
        with open(path, "w") as f:
            f.write("# %s (%s): %.0f s, CPU busy %.0f%%, host steal %.0f%%"
                    "\n" % (self.lim.name, DESCRIBE[self.lim.name],
                            self.duration, self.busy * 100,
                            self.steal * 100))
            for t in self.tenants:
                s = self.stats[t.name]
                f.write("# %s (%s): launched %.2f s, first frame %s, stopped"
                        " %s, scenes end at %s\n" % (
                            t.name, t.client, self.started.get(t.name, -1),
                            "%.2f s" % s["first"] if s["first"] is not None
                            else "never", "%.2f s" % self.stopped[t.name]
                            if t.name in self.stopped else "-",
                            ", ".join("%.1f" % e
                                      for e in self.scene_ends[t.name])))
            for e in self.errors:
                f.write("# ERROR %s\n" % e)
            names = [t.name for t in self.tenants]
            f.write("\n# per-second FPS (window [s, s+1); '.' absent, "
                    "'*' under the SLA, 'L' under it while loading a scene)\n")
            f.write("%5s  %s\n" % ("s", "  ".join("%8s" % n for n in names)))
            for sec in range(int(self.duration)):
                cells = []
                for n in names:
                    w = dict(self.stats[n]["windows"]).get(sec)
                    mark = " "
                    if w is not None and w < SLA * (1 - SLA_TOL):
                        mark = "L" if sec in self.stats[n]["loading"] \
                            else "*"
                    cells.append("%8s" % ("." if w is None else
                                          "%.1f%s" % (w, mark)))
                f.write("%5d  %s\n" % (sec, "  ".join(cells)))
            if self.status:
                f.write("\n# batond status every %.1f s: gpu_util, then "
                        "what this batond reports of other_util, common_fps,"
                        " sla_util, overload; per tenant: name target fps "
                        "gpu_share [L reach_fps when limited]\n" % STATUS_S)
                for ts, st in self.status:
                    f.write("t=%5.1f util %.2f%s  %s\n" % (
                        ts, st.get("gpu_util", float("nan")), "".join(
                            " %s %s" % (k, _num(st[k]))
                            for k in ("other_util", "common_fps", "sla_util",
                                      "overload") if k in st), "  ".join(
                            "%s %.1f %.1f %.3f%s" % (
                                x["name"], x["target_fps"], x["fps"],
                                x["gpu_share"], " L %.1f" % (x.get(
                                    "reach_fps") or 0) if x.get("limited")
                                else "")
                            for x in st.get("tenants", []))))
            if getattr(self, "daemon_log", None):
                f.write("\n# batond's log (last lines)\n")
                f.write("\n".join(self.daemon_log) + "\n")

    def summary(self):
        return {
            "limiter": self.lim.name,
            "describe": DESCRIBE[self.lim.name],
            "duration_s": self.duration,
            "busy": self.busy, "steal": self.steal,
            "worst_below_s": self.worst_below,
            "total_below_s": self.total_below,
            "windows": self.windows,
            "p99_ms": self.p99_ms,
            "errors": self.errors,
            "tenants": {n: {k: v for k, v in s.items()}
                        for n, s in self.stats.items()},
            "scene_ends": self.scene_ends,
            "status": [(t, [(x["name"], x["target_fps"], x["fps"],
                             x["gpu_share"]) for x in st.get("tenants", [])])
                       for t, st in self.status],
        }


def _num(v):
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return "%.2f" % v
    return str(v)


def window_fps(stamps, lo, hi):
    """Frames per second over [lo, hi), each frame interval counted by the
    part of it inside the window: a steady rate reads as itself whatever
    the phase of the frames against the window."""
    n = 0.0
    for a, b in zip(stamps, stamps[1:]):
        if b <= lo or a >= hi:
            continue
        n += (min(b, hi) - max(a, lo)) / (b - a)
    return n / (hi - lo)


def tenant_stats(t, stamps, duration, stopped, switches=()):
    """Figures of one tenant from its frame times (s from the run's
    start), judged only while it was present: the whole seconds from the
    first after its first frame to its departure (or the end). The window
    of each of its own scene changes (glmark2 stops drawing while it loads
    the next scene, under any limiter) is shown but not counted as below
    the SLA: that is a loading screen, not a frame rate."""
    end = min(t.end(duration), stopped or duration)
    # Stamps stay to the kill: the last window needs the frame interval
    # that crosses its end, or it reads short by part of a frame.
    killed = stopped or end
    out = {"frames": len(stamps), "first": stamps[0] if stamps else None,
           "windows": [], "below": 0, "mean": 0.0, "low1": 0.0,
           "p99_ms": 0.0, "start": t.start, "end": end, "loading": [],
           "client": t.client}
    if len(stamps) < 3:
        # Present but never drawing is every window under the SLA.
        out["below"] = int(end - t.start)
        return out
    first = int(stamps[0]) + 1
    for sec in range(first, int(end)):
        # A window the kill cut (it ends within KILL_CUT_S of the kill and
        # no frame came after it) is not the limiter's: left out. A
        # tenant stalled earlier still shows, as no frame follows.
        if sec + 1 > stamps[-1] and sec + 1 > killed - KILL_CUT_S:
            continue
        out["windows"].append((sec, window_fps(stamps, sec, sec + 1)))
    iv = sorted(b - a for a, b in zip(stamps, stamps[1:])
                if a >= first)
    # glmark2 prints a scene's line after its last frame, then loads the
    # next: the load is the longest frame interval near the line, and the
    # windows it touches are the loading ones.
    loading = set()
    for e in switches:
        near = [(b - a, a, b) for a, b in zip(stamps, stamps[1:])
                if e - 0.5 <= b and a <= e + 2.0]
        if near:
            _, a, b = max(near)
            loading.update(range(int(a), int(b) + 1))
    out["loading"] = sorted(loading)
    out["below"] = sum(1 for sec, f in out["windows"]
                       if f < SLA * (1 - SLA_TOL) and sec not in loading)
    if out["windows"]:
        out["mean"] = sum(f for _, f in out["windows"]) / len(
            out["windows"])
    if iv:
        p99 = iv[min(len(iv) - 1, int(0.99 * (len(iv) - 1) + 0.5))]
        out["p99_ms"] = p99 * 1e3
        out["low1"] = 1.0 / p99
    return out


# ------------------------------------------------------------ the twin

def solo_costs(args, x, tenants, warm_s, measure_s):
    """Each distinct (client, scene) alone under `baton run` and a
    `batond --policy none`: twin.measure_solo, in this run."""
    specs, seen = [], {}
    for t in tenants:
        for bench in ([b for _, b in t.scenes] or [None]):
            key = (t.client, bench)
            if key in seen:
                continue
            name = "%s-%s" % (t.client, (bench or "").split(":")[0]) \
                if bench else t.client
            seen[key] = name
            if bench:
                argv = [args.exe[t.client], "-s", SIZE, "-b",
                        "%s:duration=%d" % (bench, warm_s + measure_s + 30)]
            else:
                argv = [args.exe["vkcube"]]
            specs.append((name, argv))
    bed = twin.Bed(args.baton, args.batond, x, args.tmp)
    costs = twin.measure_solo(bed, specs, warm_s, measure_s)
    return {k: costs[v] for k, v in seen.items()}


def sim_tenants(tenants, costs):
    out = []
    for t in tenants:
        if t.scenes:
            first = costs[(t.client, t.scenes[0][1])]
            scenes = [(at, costs[(t.client, b)]) for at, b in t.scenes[1:]]
        else:
            first, scenes = costs[(t.client, None)], []
        out.append(twin.Tenant(first, name=t.name, start_s=t.start,
                               stop_s=t.stop, scenes=scenes, sla=SLA))
    return out


CAPS = {"pin30": 30, "mh30": 30, "mh60": 60, "mh072-30": 30,
        "mh072-60": 60}


def sim_for(args, tenants, costs, lim, duration):
    """The simulator's per-tenant figures for the same scenario under
    limiter lim, with the same present-only windows as the measurement: a
    batond policy as itself, a static cap as every tenant pinned there
    (fixed_fps) with no policy, unmanaged as policy none."""
    cap = CAPS.get(lim)
    policy = lim if lim in ("sa", "fsa", "esa") else "none"
    text = twin.scenario_text("dynamic", "bench/dynamic.py's scenario, "
                              "costs measured in this run",
                              sim_tenants(tenants, costs), policy,
                              duration_s=duration, warmup_s=0.0, sla=SLA)
    if cap:
        text = text.replace("max_in_flight = 0;",
                            "max_in_flight = 0; fixed_fps = %d.0;" % cap)
    path = os.path.join(args.tmp, "dynamic-%s.cfg" % lim)
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([args.baton, "sim", path, "--json", "--quiet"],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "baton sim %s exited %d: %s" % (
        path, r.returncode, r.stderr))
    out = {}
    for t, s in zip(tenants, json.loads(r.stdout)["tenants"]):
        per_s = s["fps_per_s"]
        # The simulated tenant draws from start_s at once; it is judged
        # from the first whole second after, like the measurement.
        first, end = int(t.start) + 1, int(t.end(duration))
        w = [(i, per_s[i]) for i in range(first, min(end, len(per_s)))]
        # The simulator counts whole frames per window: a steady 30 FPS
        # reads 29 or 31 by phase, so one frame short is not below.
        out[t.name] = {
            "windows": w,
            "below": sum(1 for _, f in w if f < SLA * (1 - SLA_TOL) - 1),
            "mean": sum(f for _, f in w) / len(w) if w else 0.0,
        }
    return out


# ------------------------------------------------------------ report

def table(results, tenants):
    names = [t.name for t in tenants]
    lines = ["| limiter | worst tenant below-SLA s | all below-SLA s / "
             "windows | %s | CPU busy | steal | frame p99 ms |" %
             " | ".join("%s mean / 1%% low" % n for n in names),
             "|---|---:|---:|%s---:|---:|---:|" % ("---:|" * len(names))]
    for r in results:
        cells = []
        for n in names:
            s = r["tenants"][n]
            cells.append("%.1f / %.1f" % (s["mean"], s["low1"]))
        lines.append("| %s | %d | %d / %d | %s | %.0f%% | %.0f%% | %.1f |" % (
            r["describe"], r["worst_below_s"], r["total_below_s"],
            r["windows"], " | ".join(cells), r["busy"] * 100,
            r["steal"] * 100, r["p99_ms"]))
    return "\n".join(lines)


def sim_table(results, tenants):
    names = [t.name for t in tenants]
    lines = ["| limiter | %s | worst below-SLA s sim / measured |" %
             " | ".join("%s mean sim / measured" % n for n in names),
             "|---|%s---:|" % ("---:|" * len(names))]
    for r in results:
        sim = r.get("sim")
        if not sim:
            continue
        cells = ["%.1f / %.1f" % (sim[n]["mean"], r["tenants"][n]["mean"])
                 for n in names]
        lines.append("| %s | %s | %d / %d |" % (
            r["describe"], " | ".join(cells),
            max(s["below"] for s in sim.values()), r["worst_below_s"]))
    return "\n".join(lines)


def print_run(r):
    print("%-8s worst below-SLA %2d s (all %d of %d windows), CPU busy "
          "%.0f%%, steal %.0f%%, p99 %.1f ms" % (
              r["limiter"], r["worst_below_s"], r["total_below_s"],
              r["windows"], r["busy"] * 100, r["steal"] * 100, r["p99_ms"]))
    for n, s in r["tenants"].items():
        sim = r.get("sim", {}).get(n)
        print("   %-5s mean %6.1f  1%%low %6.1f  below %2d s  p99 %6.1f ms"
              "%s" % (n, s["mean"], s["low1"], s["below"], s["p99_ms"],
                      "   sim mean %6.1f below %2d s" % (
                          sim["mean"], sim["below"]) if sim else ""))
    for e in r["errors"]:
        print("   ERROR", e.splitlines()[0])
    sys.stdout.flush()


def find_exe(name, override=None):
    if override:
        return override
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


def parse(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--limiters", default=None,
                   help="comma-separated (default: all available)")
    p.add_argument("--seconds", type=float, default=NOMINAL_S,
                   help="scenario length; times scale with it")
    p.add_argument("--out", default=None,
                   help="folder for the logs and results.json")
    p.add_argument("--no-solo", action="store_true",
                   help="skip the solo costs and the simulator")
    p.add_argument("--solo-warm", type=float, default=2.0)
    p.add_argument("--solo-measure", type=float, default=4.0)
    p.add_argument("--plot", default=None, help="SVG of per-tenant FPS")
    p.add_argument("--mangohud-lib", default=MANGOHUD_072_LIB)
    p.add_argument("--xvfb", default="Xvfb")
    p.add_argument("--baton", help="baton to use (default: BUILD's)")
    p.add_argument("--batond", help="batond to use (default: BUILD's): "
                   "judge another tree's policies with this tree's probes")
    return p.parse_args(argv)


def setup(args):
    b = args.build
    args.baton = args.baton or os.path.join(b, "src", "cli", "baton")
    args.batond = args.batond or os.path.join(b, "src", "daemon", "batond")
    args.probes = {
        "gl": os.path.join(b, "bench", "libswap_probe.so"),
        "xcb": os.path.join(b, "tests", "e2e", "daemon",
                            "libxcb_probe_e2e.so"),
    }
    for p in [args.baton, args.batond] + list(args.probes.values()):
        check(os.path.exists(p), "%s is missing: build first (ninja -C %s)"
              % (p, b))
    args.exe = {c: find_exe(c) for c in ("glmark2", "glmark2-es2",
                                         "vkcube")}
    missing = [c for c, p in args.exe.items() if not p]
    check(not missing, "missing clients: %s (scripts/install-deps: "
          "glmark2-x11, glmark2-es2-x11, vulkan-tools)" % ", ".join(missing))


def benchmark(args, names, log=print):
    """Runs the scenario under each limiter in names; returns the list of
    summaries (and writes logs under args.out)."""
    tenants = scenario(args.seconds)
    results = []
    with Xvfb(args.xvfb) as x:
        costs = None
        if not args.no_solo:
            t0 = time.monotonic()
            costs = solo_costs(args, x, tenants, args.solo_warm,
                               args.solo_measure)
            log("solo costs measured in %.0f s:" % (time.monotonic() - t0))
            for k, c in costs.items():
                log("  %s" % c)
        for n in names:
            lim = args.all_limiters[n]
            r = Run(args, x, lim, tenants, args.seconds).run().analyse()
            r.log(os.path.join(args.out, "%s.log" % n))
            s = r.summary()
            if costs:
                try:
                    s["sim"] = sim_for(args, tenants, costs, n, args.seconds)
                except Fail as e:
                    log("sim %s: %s" % (n, e))
            results.append(s)
            print_run(s)
    return results, tenants, costs


def main():
    args = parse()
    setup(args)
    args.all_limiters = limiters(args.mangohud_lib)
    names = (args.limiters.split(",") if args.limiters
             else list(args.all_limiters))
    for n in names:
        check(n in args.all_limiters, "unknown or unavailable limiter %r "
              "(have %s)" % (n, ", ".join(args.all_limiters)))
    args.out = args.out or tempfile.mkdtemp(prefix="baton-dynamic-")
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="baton-dyn-") as tmp:
        args.tmp = tmp
        results, tenants, costs = benchmark(args, names)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"seconds": args.seconds, "sla": SLA, "sla_tol": SLA_TOL,
                   "tenants": [vars(t) for t in tenants],
                   "costs": {"%s/%s" % k: repr(c)
                             for k, c in (costs or {}).items()},
                   "runs": results}, f, indent=1)
    print()
    print(table(results, tenants))
    if costs:
        print()
        print(sim_table(results, tenants))
    print("\nlogs and results.json in %s" % args.out)
    if args.plot:
        r = subprocess.run(["/usr/bin/python3", os.path.join(
            HERE, "dynamic_plot.py"), os.path.join(args.out, "results.json"),
            args.plot])
        if r.returncode:
            print("plot failed (python3-matplotlib installed?)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("dynamic: %s" % e, file=sys.stderr)
        sys.exit(1)
