#!/usr/bin/env python3
"""Benchmarks of the OpenGL shim on Mesa llvmpipe under a private Xvfb.
Prints plain lines; not a test (the numbers depend on the machine).

    bench/shim_bench.py [--build DIR] [overhead] [accuracy] [loaded] [cost]

  overhead  glxgears FPS with the shim (pacing off, no daemon) over FPS
            without it, interleaved runs A B A B ...; the median ratio.
  accuracy  60 FPS with Baton (BATON_FPS=60) and with MangoHud's fps_limit
            on glxgears, in turn over --rounds rounds: mean FPS, median and
            p99 of |frame interval - 1/60 s|, and the CPU the wait costs.
  loaded    accuracy again with two unpaced glmark2 saturating the cores.
  cost      the shim's own CPU per frame (build/bench/shim_frame_cost).
  sleep     the pacing wait alone (build/bench/shim_sleep_bench): wake-up
            error and CPU of each spin margin, interleaved wait by wait.
  spin      Baton alone at 60 FPS with spin margins 0, 50, 100, 200 us and
            the adaptive one, interleaved over --rounds rounds: medians of
            the interval error and the CPU above a pure sleep (spin 0).

Frame intervals come from bench/swap_probe.c, preloaded after the limiter,
outside any limiter's own bookkeeping, at two points:
  shown     Mesa's XShmPutImage/XPutImage, when the frame goes to the X
            server: what a viewer gets, llvmpipe's raster time included;
  released  the limiter's call into the real glXSwapBuffers: when the
            limiter lets the frame go, which is what it controls (Baton
            only: MangoHud calls the real swap through its own dlopen
            handle, past the probe).

CPU the wait costs: the paced process's CPU seconds per second (utime +
stime from /proc/PID/stat, all threads) minus what its frames cost
unpaced: fps_paced * (cpu per frame of an unpaced run).

Options: --seconds N per run (default 20), --pairs N for overhead
(default 6), --spin-us N fixed spin margin for Baton (default adaptive),
--mangohud-lib PATH for MangoHud 0.7.2's libMangoHud_opengl.so, which has
fps_limit_method=early|late (default: where bench/build_mangohud.sh puts
it; skipped with a note when missing). Debian 12's own MangoHud 0.6.8 is
always compared: it has one method, which sleeps after the real swap.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e", "gl"))
from glharness import Xvfb, kill_group  # noqa: E402

MANGOHUD_LIB = "/usr/lib/x86_64-linux-gnu/mangohud/libMangoHud.so"
MANGOHUD_072_LIB = ("/var/cache/baton-bench/mangohud-0.7.2/lib/mangohud/"
                    "libMangoHud_opengl.so")
TARGET_NS = 1e9 / 60
QUIET_STEAL_PCT = 5.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, tid=None):
    path = "/proc/%d/stat" % pid if tid is None else \
        "/proc/%d/task/%d/stat" % (pid, tid)
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime, stime are fields 14 and 15; fields[0] here is field 3
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def steal_ticks():
    """Time the hypervisor gave our vCPUs to others (/proc/stat), which no
    limiter inside the guest can make up for."""
    with open("/proc/stat") as f:
        return int(f.readline().split()[8])


def wait_quiet(limit_s=60.0, window_s=1.0, max_pct=2.0):
    """Waits (at most limit_s) for a window_s stretch in which the host
    stole at most max_pct of the vCPUs: steal comes in bursts of seconds to
    minutes here, and a run inside one measures the hypervisor."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        s0 = steal_ticks()
        time.sleep(window_s)
        pct = (steal_ticks() - s0) / CLK_TCK / window_s / os.cpu_count()
        if pct * 100 <= max_pct:
            return


def read_probe(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack_from("<Q", data)[0]
    return list(struct.unpack_from("<%dq" % n, data, 8))


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1,
                             int(p * (len(sorted_values) - 1) + 0.5))]


class Run:
    """One glxgears run: frames stamped by the probe, CPU sampled over the
    measured window (after a warm-up)."""

    def __init__(self, x, args, preload, extra_env, seconds, warmup=3.0):
        wait_quiet()
        self.fd, self.path = tempfile.mkstemp(prefix="baton-probe-")
        os.close(self.fd)
        fd, release_path = tempfile.mkstemp(prefix="baton-release-")
        os.close(fd)
        env = x.env(LD_PRELOAD=":".join(preload + [args.probe]),
                    BATON_PROBE_OUT=self.path,
                    BATON_PROBE_RELEASE_OUT=release_path,
                    BATON_SOCKET=os.path.join(args.tmp, "none.sock"))
        env.update(extra_env)
        proc = subprocess.Popen([args.glxgears], env=env,
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            time.sleep(warmup)
            t0, c0 = time.monotonic_ns(), cpu_seconds(proc.pid)
            m0, s0 = cpu_seconds(proc.pid, proc.pid), steal_ticks()
            time.sleep(seconds)
            t1, c1 = time.monotonic_ns(), cpu_seconds(proc.pid)
            m1, s1 = cpu_seconds(proc.pid, proc.pid), steal_ticks()
        finally:
            kill_group(proc)
        stamps = [t for t in read_probe(self.path) if t0 <= t <= t1]
        released = [t for t in read_probe(release_path) if t0 <= t <= t1]
        os.unlink(self.path)
        os.unlink(release_path)
        self.release_intervals = [b - a for a, b in
                                  zip(released, released[1:])]
        if len(stamps) < 3:
            raise SystemExit("probe saw %d frames: is it preloaded?"
                             % len(stamps))
        self.fps = (len(stamps) - 1) * 1e9 / (stamps[-1] - stamps[0])
        self.cpu_rate = (c1 - c0) * 1e9 / (t1 - t0)
        # The presenting (main) thread alone: the wait happens there, and
        # llvmpipe's rasterizer threads, whose cost per frame differs
        # between paced and unpaced runs, are left out.
        self.main_rate = (m1 - m0) * 1e9 / (t1 - t0)
        # Share of all vCPUs' time stolen by the host during the run.
        self.steal = (s1 - s0) / CLK_TCK * 1e9 / (t1 - t0) / os.cpu_count()
        self.intervals = [b - a for a, b in zip(stamps, stamps[1:])]

    def errors_ms(self, target_ns):
        return sorted(abs(i - target_ns) / 1e6 for i in self.intervals)

    def release_errors_ms(self, target_ns):
        """The same at the release point; None where the probe saw no
        release (a limiter that bypasses it)."""
        if len(self.release_intervals) < 2:
            return None
        return sorted(abs(i - target_ns) / 1e6
                      for i in self.release_intervals)


def overhead(x, args):
    """FPS with the shim over FPS without, pair by pair; and, since FPS on
    a shared VM swings with the neighbours and the hypervisor, the same
    ratio from the CPU each frame costs (steal is not counted as CPU)."""
    fps_ratios, cpu_ratios = [], []
    for i in range(args.pairs):
        without = Run(x, args, [], {}, args.seconds / 2, warmup=2)
        with_shim = Run(x, args, [args.shim], {}, args.seconds / 2,
                        warmup=2)
        fps_ratios.append(with_shim.fps / without.fps)
        cpu_ratios.append((without.cpu_rate / without.fps) /
                          (with_shim.cpu_rate / with_shim.fps))
        print("overhead pair %d: without %.1f FPS %.1f us CPU/frame, with "
              "shim %.1f FPS %.1f us CPU/frame; FPS ratio %.4f, CPU ratio "
              "%.4f  steal %.1f%%" % (
                  i + 1, without.fps, without.cpu_rate / without.fps * 1e6,
                  with_shim.fps, with_shim.cpu_rate / with_shim.fps * 1e6,
                  fps_ratios[-1], cpu_ratios[-1],
                  (without.steal + with_shim.steal) * 50))
    fps_ratios.sort()
    cpu_ratios.sort()
    print("overhead: median FPS ratio %.4f, median CPU-per-frame ratio "
          "(without/with) %.4f over %d pairs (target >= 0.99)"
          % (percentile(fps_ratios, 0.5), percentile(cpu_ratios, 0.5),
             len(fps_ratios)))


def limiters(args):
    out = [("baton", [args.shim], {"BATON_FPS": "60"})]
    if args.spin_us is not None:
        out[0][2]["BATON_SPIN_US"] = str(args.spin_us)
    base = "fps_limit=60,no_display"
    if os.path.exists(MANGOHUD_LIB):
        out.append(("mangohud-0.6.8", [MANGOHUD_LIB],
                    {"MANGOHUD": "1", "MANGOHUD_CONFIG": base}))
    if os.path.exists(args.mangohud_lib):
        for m in ("early", "late"):
            out.append(("mangohud-" + m, [args.mangohud_lib],
                        {"MANGOHUD": "1", "MANGOHUD_CONFIG":
                         base + ",fps_limit_method=" + m}))
    return out


def accuracy(x, args, label):
    """--rounds rounds of unpaced, Baton, MangoHud, ... in turn, so that a
    noisy stretch (a neighbour's build, hypervisor steal) hits all of them;
    each round's lines, then the medians over the runs with host steal
    at most QUIET_STEAL_PCT."""
    rows = {}
    for rnd in range(args.rounds):
        unpaced = Run(x, args, [], {}, args.seconds)
        per_frame = unpaced.cpu_rate / unpaced.fps
        main_per_frame = unpaced.main_rate / unpaced.fps
        print("%s round %d unpaced: %.1f FPS, CPU per frame %.1f us (main "
              "thread %.1f us)" % (label, rnd + 1, unpaced.fps,
                                   per_frame * 1e6, main_per_frame * 1e6))
        for name, preload, env in limiters(args):
            r = Run(x, args, preload, env, args.seconds)
            err = r.errors_ms(TARGET_NS)
            rel = r.release_errors_ms(TARGET_NS) or [float("nan")]
            row = (r.fps, percentile(err, 0.5), percentile(err, 0.99),
                   err[-1], percentile(rel, 0.5), percentile(rel, 0.99),
                   r.cpu_rate, r.main_rate,
                   (r.cpu_rate - r.fps * per_frame) * 100,
                   (r.main_rate - r.fps * main_per_frame) * 100,
                   r.steal * 100)
            rows.setdefault(name, []).append(row)
            print("%s round %d %-14s mean %.3f FPS  |interval-16.667ms| "
                  "shown p50 %.3f ms p99 %.3f ms max %.2f ms, released "
                  "p50 %.3f ms p99 %.3f ms  CPU %.3f/s (main %.3f/s)  wait "
                  "%.2f%% of a core (main thread %.2f%%)  steal %.1f%%"
                  % ((label, rnd + 1, name) + row))
    # A run the hypervisor stole from says nothing about a limiter: the
    # medians are over the runs with at most QUIET_STEAL_PCT of steal.
    for name, rs in rows.items():
        quiet = [r for r in rs if r[-1] <= QUIET_STEAL_PCT]
        if not quiet:
            print("%s %-14s no run with host steal <= %.0f%% in %d: no "
                  "median" % (label, name, QUIET_STEAL_PCT, len(rs)))
            continue
        med = [percentile(sorted(r[k] for r in quiet), 0.5)
               for k in range(len(quiet[0]))]
        print("%s median of %d quiet runs (of %d) %-14s mean %.3f FPS  "
              "shown p50 %.3f ms  p99 %.3f ms  max %.2f ms, released p50 "
              "%.3f ms  p99 %.3f ms  CPU %.3f/s (main %.3f/s)  wait %.2f%% "
              "of a core (main thread %.2f%%)  steal %.1f%%"
              % ((label, len(quiet), len(rs), name) + tuple(med)))


def loaded(x, args):
    hogs = []
    try:
        for _ in range(2):
            hogs.append(subprocess.Popen(
                [args.glmark2, "--run-forever", "-b", "build"],
                env=x.env(BATON_SOCKET=os.path.join(args.tmp, "none.sock")),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True))
        time.sleep(3)
        accuracy(x, args, "loaded")
    finally:
        for h in hogs:
            kill_group(h)


def spin(x, args):
    configs = ["0", "50", "100", "200", "adaptive"]
    results = {c: [] for c in configs}
    for rnd in range(args.rounds):
        for c in configs:
            env = {"BATON_FPS": "60"}
            if c != "adaptive":
                env["BATON_SPIN_US"] = c
            r = Run(x, args, [args.shim], env, args.seconds, warmup=2)
            err = r.errors_ms(TARGET_NS)
            results[c].append((percentile(err, 0.5), percentile(err, 0.99),
                               r.cpu_rate, r.main_rate, r.fps, r.steal * 100))
            print("spin round %d %-8s p50 %.3f ms p99 %.3f ms CPU %.4f/s "
                  "main %.4f/s %.3f FPS steal %.1f%%"
                  % ((rnd + 1, c) + results[c][-1]))

    def med(c, k):
        return percentile(sorted(v[k] for v in results[c]), 0.5)
    for c in configs:
        print("spin %-8s median p50 %.3f ms p99 %.3f ms  CPU above spin 0: "
              "%+.2f%% of a core (main thread %+.2f%%)" % (
                  c, med(c, 0), med(c, 1), (med(c, 2) - med("0", 2)) * 100,
                  (med(c, 3) - med("0", 3)) * 100))


def sleep_bench(args):
    exe = os.path.join(args.build, "bench", "shim_sleep_bench")
    s0, t0 = steal_ticks(), time.monotonic()
    out = subprocess.run([exe, str(args.waits)], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        print(line)
    steal = (steal_ticks() - s0) / CLK_TCK / (time.monotonic() - t0)
    print("sleep: host steal during the run %.1f%%"
          % (steal / os.cpu_count() * 100))


def cost(args):
    exe = os.path.join(args.build, "bench", "shim_frame_cost")
    env = dict(os.environ, BATON_SOCKET=os.path.join(args.tmp, "none.sock"))
    for k in ("BATON_FPS", "BATON_DISABLE", "LD_PRELOAD"):
        env.pop(k, None)
    for _ in range(3):
        out = subprocess.run([exe], env=env, check=True,
                             capture_output=True, text=True).stdout
        print("cost:", out.strip(), "(target median < 5000)")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("what", nargs="*",
                   default=["cost", "sleep", "overhead", "accuracy",
                            "loaded"])
    p.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--pairs", type=int, default=6)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--waits", type=int, default=600)
    p.add_argument("--spin-us", type=float)
    p.add_argument("--mangohud-lib", default=MANGOHUD_072_LIB)
    p.add_argument("--glxgears", default="glxgears")
    p.add_argument("--glmark2", default="glmark2")
    args = p.parse_args()
    args.shim = os.path.abspath(os.path.join(
        args.build, "src", "shim", "gl", "libbaton_gl.so"))
    args.probe = os.path.abspath(os.path.join(
        args.build, "bench", "libswap_probe.so"))
    for f in (args.shim, args.probe):
        if not os.path.exists(f):
            raise SystemExit("%s missing: build first (ninja -C %s)"
                             % (f, args.build))
    if not os.path.exists(args.mangohud_lib):
        print("note: %s missing, so MangoHud's early/late methods are left "
              "out (bench/build_mangohud.sh provides it)" % args.mangohud_lib)
    with tempfile.TemporaryDirectory(prefix="baton-bench-") as tmp:
        args.tmp = tmp
        if "cost" in args.what:
            cost(args)
        if "sleep" in args.what:
            sleep_bench(args)
        with Xvfb() as x:
            if "overhead" in args.what:
                overhead(x, args)
            if "accuracy" in args.what:
                accuracy(x, args, "idle")
            if "loaded" in args.what:
                loaded(x, args)
            if "spin" in args.what:
                spin(x, args)


if __name__ == "__main__":
    main()
