#!/usr/bin/env python3
"""Windows games under Wine end to end: wine_probe.exe (this folder, built
with mingw-w64) under Debian's Wine, on a private Xvfb, presenting through
Direct3D 9 (WineD3D on llvmpipe: the shim's glXSwapBuffers hook, reached
through the dlsym of Wine's X11 driver) or through Vulkan (winevulkan on
lavapipe: the layer, loaded by the host's Vulkan loader). Every rate comes
from the program's own QueryPerformanceCounter timestamps, taken after each
Present returns, outside the limiter.

    wine_e2e.py MODE --baton EXE --batond EXE --prefix DIR
                [--probe EXE] [--wine EXE] [--xvfb P]

Modes (API d3d or vulkan):
  API-fps     the probe unmanaged, then under `baton run --fps 45`, in the
              same run: paced, its frames after the first quarter come at
              45 FPS within 1%; unmanaged it ran at least 1.5 times as
              fast (else 45 says nothing).
  API-daemon  batond (policy sa, SLA 30, no margin) and the probe under
              `baton run --sla 30`: it runs at 30 FPS within 2%, and over
              the whole run batond lists one tenant, the probe's process,
              named wine_probe.exe, while Wine's helper processes
              (wineserver, services.exe, winedevice.exe, explorer.exe...)
              all load the preload too and stay inert.
  vulkan-launcher
              vulkan-daemon with the probe started by a Windows launcher
              (`wine cmd /c PROBE`: start.exe, cmd.exe, then the probe,
              each made by CreateProcess): the preload reaches the game
              through them, and they stay inert too.

The Wine prefix DIR is made by the first test that needs it and shared;
each test holds DIR.lock while it runs and stops its wineserver on the way
out. Exit status 0 pass, 1 fail, 77 skip: no Wine, no wine_probe.exe (no
mingw-w64 at build time), or a frame rate that missed while the host
stole more than 5% of the CPU.
"""

import argparse
import fcntl
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
import batonbed  # noqa: E402
from batonbed import (Batond, Fail, Steal, Xvfb, check,  # noqa: E402
                      check_timing, write_config, terminate_on_sigterm)
from glharness import shim_state  # noqa: E402

FPS = 45.0
SLA = 30.0
HEADROOM = 1.5
PROBE = "wine_probe.exe"
# Frames per run: about 7 s at the target; the first quarter (the Wine
# start, the first frames before pacing settles) is left out of the rate.
PACED_SECONDS = 7.0
SKIP = 0.25
RUN_TIMEOUT_S = 60
# Wine's GUI dialogs off (no Mono, no Gecko installer prompts, no menu
# entries written to the desktop), its debug channels silent.
WINE_ENV = {"WINEDEBUG": "-all",
            "WINEDLLOVERRIDES": "mscoree,mshtml=;winemenubuilder.exe=d"}


class Skip(Exception):
    pass


def within(value, target, tolerance):
    return abs(value - target) <= tolerance * target


def measured(stamps_us):
    """The frames the rate is taken over: those after the first SKIP
    share."""
    t = stamps_us[int(len(stamps_us) * SKIP):]
    check(len(t) >= 10, "only %d frames to measure" % len(t))
    return t


def rate(stamps_us):
    """Frames per second over the measured frames."""
    t = measured(stamps_us)
    return (len(t) - 1) / ((t[-1] - t[0]) / 1e6)


def intervals(stamps_us):
    """The measured frames' intervals, in words (for a missed rate)."""
    t = measured(stamps_us)
    d = sorted((b - a) / 1000 for a, b in zip(t, t[1:]))
    return "intervals: median %.2f ms, longest %s ms" % (
        statistics.median(d), ", ".join("%.1f" % v for v in d[-3:][::-1]))


class Wine:
    """The Wine of one test: its environment (prefix, display) and its
    wineserver, stopped on the way out (it would outlive the test, and
    hold the lock files it inherited)."""

    def __init__(self, args, x):
        self.wine = args.wine
        self.server = os.path.join(os.path.dirname(args.wine), "wineserver")
        self.env = x.env(WINEPREFIX=args.prefix, BATON_SOCKET=args.nosock,
                         **WINE_ENV)

    def kill_server(self):
        subprocess.run([self.server, "-k"], env=self.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=20)
        subprocess.run([self.server, "-w"], env=self.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=20)

    def make_prefix(self, prefix):
        """Creates the shared prefix when it is not there yet."""
        if os.path.exists(os.path.join(prefix, "system.reg")):
            return
        t0 = time.monotonic()
        shutil.rmtree(prefix, ignore_errors=True)
        r = subprocess.run([self.wine, "wineboot", "--init"], env=self.env,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors="replace", timeout=120)
        self.kill_server()
        check(r.returncode == 0 and
              os.path.exists(os.path.join(prefix, "system.reg")),
              "wineboot --init exited %d:\n%s" % (r.returncode,
                                                  r.stderr[-2000:]))
        print("Wine prefix %s made in %.1f s" % (prefix,
                                                 time.monotonic() - t0))


def parse_frames(out, mode, frames):
    stamps = [int(line.split()[1]) for line in out.splitlines()
              if line.startswith("frame ")]
    check(len(stamps) == frames and ("done %s %d" % (mode, frames)) in out,
          "%s --%s printed %d of %d frames:\n%s" % (
              PROBE, mode, len(stamps), frames, out[-2000:]))
    return stamps


def probe_argv(args, api, frames, baton=None, launcher=False):
    """wine PROBE --API --frames N, after baton's argv; with launcher,
    Wine's cmd.exe starts the probe (a Windows launcher process: Wine's
    start.exe, then cmd.exe, each creating the next)."""
    argv = [args.wine, args.probe]
    if launcher:
        # cmd.exe takes Windows paths; Wine maps / to drive Z:.
        argv = [args.wine, "cmd", "/c",
                "Z:" + os.path.abspath(args.probe).replace("/", "\\")]
    argv += ["--" + api, "--frames", str(frames)]
    return (baton or []) + argv


def run_probe(args, wine, api, frames, baton=None, env=None):
    """The probe's frame timestamps (us), run to its end."""
    argv = probe_argv(args, api, frames, baton)
    t0 = time.monotonic()
    r = subprocess.run(argv, env=env or wine.env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, errors="replace",
                       timeout=RUN_TIMEOUT_S)
    check(r.returncode == 0, "%s exited %d:\n%s" % (
        " ".join(argv), r.returncode, r.stderr[-2000:]))
    stamps = parse_frames(r.stdout, api, frames)
    print("%s: %d frames, %.1f s from start to exit" % (
        " ".join(argv[-4:]), frames, time.monotonic() - t0))
    return stamps


def unmanaged_rate(args, wine, api, at_least):
    """The probe's rate without Baton (no preload, no layer)."""
    frames = int(at_least * PACED_SECONDS)
    free = rate(run_probe(args, wine, api, frames))
    wine.kill_server()
    print("%s unmanaged: %.1f FPS" % (api, free))
    check(free >= HEADROOM * at_least, "unmanaged %.1f FPS: too slow to "
          "show pacing at %g" % (free, at_least))
    return free


def mode_fps(args, wine, api):
    free = unmanaged_rate(args, wine, api, FPS)
    baton = [args.baton, "run", "--fps", "%g" % FPS, "--"]
    with Steal() as st:
        stamps = run_probe(args, wine, api, int(FPS * PACED_SECONDS), baton)
    paced = rate(stamps)
    print("%s under `baton run --fps %g`: %.3f FPS, ratio to the target "
          "%.4f, paced/unmanaged %.3f; %s (%s)" % (
              api, FPS, paced, paced / FPS, paced / free, intervals(stamps),
              st))
    check_timing(within(paced, FPS, 0.01), "%.3f FPS is not %g within 1%%"
                 % (paced, FPS))


def wine_tree(prefix):
    """{pid: comm} of the processes running with WINEPREFIX=prefix."""
    want = b"WINEPREFIX=" + os.fsencode(prefix)
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if want not in f.read().split(b"\0"):
                    continue
            with open("/proc/%s/comm" % pid) as f:
                out[int(pid)] = f.read().strip()
        except OSError:
            pass
    return out


def maps(pid, library):
    """Whether process pid maps a file named library."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any(line.rstrip().endswith("/" + library)
                       for line in f)
    except OSError:
        return False


def watch_tenants(d, proc, prefix):
    """Until proc exits: every tenant batond listed ({pid: name}), and
    the processes of the Wine prefix seen once the tenant is there
    ({pid: (comm, maps the preload, maps the Vulkan layer, shim
    active)}, batond left out)."""
    tenants, tree = {}, {}
    while proc.poll() is None:
        for t in d.status()["tenants"]:
            tenants[t["pid"]] = t["name"]
        if tenants and not tree:
            for pid, comm in wine_tree(prefix).items():
                if pid == d.proc.pid:
                    continue  # batond has the environment too
                tree[pid] = (comm, maps(pid, "libbaton_gl.so"),
                             maps(pid, "libVkLayer_baton.so"),
                             all(shim_state(pid)))
        time.sleep(0.1)
    return tenants, tree


def mode_daemon(args, wine, api, launcher=False):
    free = unmanaged_rate(args, wine, api, SLA)
    cfg = write_config(os.path.join(args.tmp, "margin0.cfg"), sla_margin=0)
    env = dict(wine.env, BATON_SOCKET=args.sock)
    baton = [args.baton, "run", "--sla", "%g" % SLA, "--"]
    frames = int(SLA * PACED_SECONDS)
    argv = probe_argv(args, api, frames, baton, launcher)
    with Batond(args.batond, args.baton, args.sock,
                ["--policy", "sa", "--sla", "%g" % SLA, "--config", cfg],
                env) as d:
        with Steal() as st:
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True,
                                    errors="replace")
            try:
                tenants, tree = watch_tenants(d, proc, args.prefix)
            finally:
                if proc.poll() is None:
                    proc.kill()
                out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
        check(proc.returncode == 0, "%s exited %d:\n%s" % (
            " ".join(argv), proc.returncode, err[-2000:]))
        stamps = parse_frames(out, api, frames)
        paced = rate(stamps)
    loaded = sorted(c for c, m, _, _ in tree.values() if m)
    layer = sorted(c for c, _, v, _ in tree.values() if v)
    active = sorted(c for c, _, _, a in tree.values() if a)
    print("processes in the Wine prefix: %d (%s)" % (
        len(tree), ", ".join(sorted(c for c, _, _, _ in tree.values()))))
    print("%d map the preload: %s" % (len(loaded), ", ".join(loaded)))
    print("%d map the Vulkan layer: %s" % (len(layer), ", ".join(layer)))
    print("with the shim active (its thread and memfd): %s" % active)
    print("tenants batond listed over the run: %s" % tenants)
    print("%s under batond (sa, SLA %g): %.3f FPS, ratio to the SLA %.4f, "
          "paced/unmanaged %.3f; %s (%s)" % (
              api, SLA, paced, paced / SLA, paced / free, intervals(stamps),
              st))
    check(len(loaded) >= 3, "fewer Wine processes than expected load the "
          "preload (%s): the one-tenant check would say nothing" % loaded)
    check(len(tenants) == 1, "batond listed %d tenants for one game: %s" % (
        len(tenants), tenants))
    (pid, name), = tenants.items()
    check(tree.get(pid, ("?",))[0] == PROBE, "the tenant is pid %d (%s), "
          "not the probe" % (pid, tree.get(pid, ("not a Wine process",))[0]))
    check(name == PROBE, "the tenant is named %r, not %r" % (name, PROBE))
    check_timing(within(paced, SLA, 0.02), "%.3f FPS is not %g within 2%%"
                 % (paced, SLA))


def mode_launcher(args, wine, api):
    mode_daemon(args, wine, api, launcher=True)


MODES = {"fps": mode_fps, "daemon": mode_daemon, "launcher": mode_launcher}


def run(args):
    if not args.wine:
        raise Skip("no wine (package wine, wine64)")
    if not args.probe or not os.path.exists(args.probe):
        raise Skip("no %s: the build had no mingw-w64 cross compiler "
                   "(package gcc-mingw-w64-x86-64)" % PROBE)
    api, kind = args.mode.split("-")
    os.makedirs(os.path.dirname(args.prefix) or ".", exist_ok=True)
    with open(args.prefix + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with Xvfb(args.xvfb) as x:
            wine = Wine(args, x)
            try:
                wine.kill_server()
                wine.make_prefix(args.prefix)
                MODES[kind](args, wine, api)
            finally:
                wine.kill_server()


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("mode", choices=["d3d-fps", "vulkan-fps", "d3d-daemon",
                                    "vulkan-daemon", "vulkan-launcher"])
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--prefix", required=True,
                   help="the Wine prefix the tests share")
    p.add_argument("--probe", help="wine_probe.exe")
    p.add_argument("--wine", help="Wine's launcher")
    p.add_argument("--xvfb", default="Xvfb")
    args = p.parse_args()
    args.prefix = os.path.abspath(args.prefix)
    t0 = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="baton-wine-e2e-") as tmp:
            args.tmp = tmp
            args.sock = os.path.join(tmp, "batond.sock")
            # No daemon there: a batond on the machine cannot change the
            # target of the standalone modes.
            args.nosock = os.path.join(tmp, "no-daemon.sock")
            run(args)
    except Skip as e:
        print("SKIP:", e)
        return 77
    except batonbed.TimingFail as e:
        return batonbed.timing_verdict(e)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    finally:
        print("wall time %.1f s" % (time.monotonic() - t0))
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
