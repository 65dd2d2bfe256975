#!/usr/bin/env python3
"""32-bit games end to end: the i386 preload and Vulkan layer (a build of
cross/i386-linux-gnu.ini paired through -Dshim_i386_build) pacing 32-bit
clients that the 64-bit `baton run` starts, under a private Xvfb on
llvmpipe/lavapipe.

    i386_e2e.py MODE --baton EXE --batond EXE --glxgears32 P
                [--vkcube32 P] [--xvfb P]

Modes:
  gl        a 32-bit glxgears unmanaged, then under `baton run --fps 45`,
            in the same run: paced it shows 45 FPS within 1% and runs the
            shim (its thread and memfd), unmanaged it runs at least 1.5
            times as fast (else 45 says nothing).
  daemon    batond (policy sa, SLA 30, no margin) and a 32-bit glxgears
            under `baton run --sla 30`: it registers as a tenant and runs
            at 30 FPS within 2%, where unmanaged it ran at least 1.5 times
            as fast.
  launcher  `baton run --fps 45 -- /bin/sh -c GLXGEARS32`: a 64-bit
            launcher that starts a 32-bit game, one LD_PRELOAD for both
            ($LIB). Each maps the preload of its own word size, glxgears
            shows 45 FPS within 1%, and ld.so says nothing (no "wrong ELF
            class", no "cannot be preloaded").
  vkcube    a 32-bit vkcube under `baton run --fps 45`: the loader inserts
            the i386 layer (VK_LOADER_DEBUG=layer), 450 frames take 10.0 s
            within 1% from the first present (a run of N frames less the
            median of one-frame runs: vkcube prints nothing per frame),
            and without VK_LOADER_DEBUG the loader prints nothing. Without
            the target it runs at least twice as fast.
Exit status 0 pass, 1 fail, 77 (skip) when a frame rate missed while the
host stole more than 5% of the CPU.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
import batonbed  # noqa: E402
from batonbed import (Batond, Client, Fail, Steal, TimingFail,  # noqa: E402
                      Xvfb, check, check_timing, gears_fps, write_config,
                      terminate_on_sigterm)
from glharness import shim_state  # noqa: E402

FPS = 45.0
SLA = 30.0
# Unmanaged must outrun the target by this much for a paced rate to show
# the pacer, not the machine.
HEADROOM = 1.5
VK_FRAMES = 450
VK_STARTUP_RUNS = 3
VK_LAYER = "VK_LAYER_BATON_pacing"
LDSO_NOISE = re.compile(r"ld\.so|wrong ELF class|cannot be preloaded")
# What the Vulkan loader prints when a manifest's library will not load.
LOADER_NOISE = re.compile(r"ERROR|WARNING|wrong ELF class|ld\.so")


def within(value, target, tolerance):
    return abs(value - target) <= tolerance * target


def elf_class(path):
    """32 or 64: the word size of the ELF file at path."""
    with open(path, "rb") as f:
        return 64 if f.read(5)[4] == 2 else 32


def baton_preloads(pid):
    """The files named libbaton_gl.so that process pid maps."""
    with open("/proc/%d/maps" % pid) as f:
        return {line.split()[-1] for line in f
                if line.rstrip().endswith("/libbaton_gl.so")}


def unmanaged_fps(args, x):
    """The 32-bit glxgears' second five-second line, without the shim."""
    with Client([args.glxgears32], x.env(BATON_SOCKET=args.nosock)) as g:
        fps = gears_fps(g, 2, 30)
    print("32-bit glxgears unmanaged: %s" % fps)
    return fps[1]


def mode_gl(args, x):
    free = unmanaged_fps(args, x)
    argv = [args.baton, "run", "--fps", "%g" % FPS, "--", args.glxgears32]
    with Steal() as st, Client(argv, x.env(BATON_SOCKET=args.nosock)) as g:
        fps = gears_fps(g, 3, 40)
        thread, memfd = shim_state(g.proc.pid)
        st.stop()
    print("32-bit glxgears under `baton run --fps 45`: %s (%s)" % (fps, st))
    print("ratio paced/unmanaged: %.3f" % (fps[-1] / free))
    check(thread and memfd, "the 32-bit shim is not active (thread %s, "
          "memfd %s)" % (thread, memfd))
    check(free >= HEADROOM * FPS, "unmanaged %.1f FPS: too slow to show "
          "pacing at %g" % (free, FPS))
    for v in fps[1:]:
        check_timing(within(v, FPS, 0.01), "%.3f FPS is not %g within 1%%: "
                     "%s (%s)" % (v, FPS, fps, st))


def mode_daemon(args, x):
    free = unmanaged_fps(args, x)
    cfg = write_config(os.path.join(args.tmp, "margin0.cfg"), sla_margin=0)
    env = x.env(BATON_SOCKET=args.sock)
    argv = [args.baton, "run", "--sla", "%g" % SLA, "--name", "gears32",
            "--", args.glxgears32]
    with Batond(args.batond, args.baton, args.sock,
                ["--policy", "sa", "--sla", "%g" % SLA, "--config", cfg],
                env) as d:
        with Steal() as st, Client(argv, env) as g:
            d.wait_tenants(["gears32"], 15)
            fps = gears_fps(g, 4, 40)
            st.stop()
            t = d.tenants()["gears32"]
    print("32-bit glxgears through batond (sa, SLA 30): %s (%s)" % (fps, st))
    print("baton status: gears32 target %.3f FPS, fps %.2f" % (
        t["target_fps"], t["fps"]))
    print("ratio paced/unmanaged: %.3f" % (fps[-1] / free))
    check(free >= HEADROOM * SLA, "unmanaged %.1f FPS: too slow to show "
          "pacing at %g" % (free, SLA))
    for v in fps[2:]:
        check_timing(within(v, SLA, 0.02), "%.3f FPS is not %g within 2%%: "
                     "%s (%s)" % (v, SLA, fps, st))


def mode_launcher(args, x):
    # "; :" keeps sh from exec'ing glxgears in its place: the launcher
    # stays, a 64-bit parent of the 32-bit game.
    argv = [args.baton, "run", "--fps", "%g" % FPS, "--", "/bin/sh", "-c",
            "%s; :" % args.glxgears32]
    with Steal() as st, Client(argv, x.env(BATON_SOCKET=args.nosock)) as sh:
        fps = gears_fps(sh, 3, 40)
        st.stop()
        gears = [int(p) for p in subprocess.check_output(
            ["pgrep", "-P", str(sh.proc.pid)], text=True).split()]
        maps = {"sh": baton_preloads(sh.proc.pid),
                "glxgears": baton_preloads(gears[0])}
        out = sh.output()
    print("/bin/sh -c 32-bit glxgears under `baton run --fps 45`: %s (%s)"
          % (fps, st))
    for who, want in (("sh", 64), ("glxgears", 32)):
        print("%s maps %s" % (who, sorted(maps[who])))
        check(len(maps[who]) == 1 and
              elf_class(next(iter(maps[who]))) == want,
              "%s does not map one %d-bit libbaton_gl.so: %s" % (
                  who, want, sorted(maps[who])))
    noise = [line for line in out.splitlines() if LDSO_NOISE.search(line)]
    check(not noise, "ld.so complained:\n%s" % "\n".join(noise))
    for v in fps[1:]:
        check_timing(within(v, FPS, 0.01), "%.3f FPS is not %g within 1%%: "
                     "%s (%s)" % (v, FPS, fps, st))


def vkcube_run(args, x, frames, paced, debug=True):
    """`baton run [--fps 45] -- vkcube32 --c frames`: (wall s, output)."""
    env = x.env(BATON_SOCKET=args.nosock)
    for k in [k for k in env if k.startswith("VK_")]:
        del env[k]
    if debug:
        env["VK_LOADER_DEBUG"] = "layer"
    argv = [args.baton, "run"] + (["--fps", "%g" % FPS] if paced else [])
    argv += ["--", args.vkcube32, "--c", str(frames)]
    start = time.monotonic()
    r = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", timeout=60)
    wall = time.monotonic() - start
    check(r.returncode == 0, "vkcube --c %d exited %d:\n%s" % (
        frames, r.returncode, r.stdout[-3000:]))
    return wall, r.stdout


def vkcube_seconds(args, x, paced):
    """Seconds from the first present to the last of VK_FRAMES, with the
    i386 layer checked to be in each run."""
    walls = []
    for frames in [1] * VK_STARTUP_RUNS + [VK_FRAMES]:
        wall, out = vkcube_run(args, x, frames, paced)
        m = re.search(r'Insert instance layer "%s" \((\S+)\)' % VK_LAYER,
                      out)
        check(m and elf_class(m.group(1)) == 32, "the 32-bit layer was not "
              "inserted:\n%s" % out[-3000:])
        walls.append(wall)
    one = statistics.median(walls[:-1])
    print("vkcube --c %d: %.3f s; --c 1: median %.3f s (layer %s)" % (
        VK_FRAMES, walls[-1], one, m.group(1)))
    return walls[-1] - one


def mode_vkcube(args, x):
    check(args.vkcube32, "no --vkcube32")
    _, out = vkcube_run(args, x, 3, True, debug=False)
    noise = [line for line in out.splitlines() if LOADER_NOISE.search(line)]
    check(not noise, "the loader or ld.so complained:\n%s"
          % "\n".join(noise))
    free = (VK_FRAMES - 1) / vkcube_seconds(args, x, False)
    with Steal() as st:
        paced_s = vkcube_seconds(args, x, True)
    want = (VK_FRAMES - 1) / FPS
    print("32-bit vkcube: unmanaged %.1f FPS, --fps 45 %.3f FPS (%.3f s, "
          "want %.2f s within 1%%) (%s)" % (
              free, (VK_FRAMES - 1) / paced_s, paced_s, want, st))
    check(free >= 2 * FPS, "unmanaged %.1f FPS: too slow to show pacing"
          % free)
    check_timing(within(paced_s, want, 0.01), "%.3f s is not %.2f s within "
                 "1%%" % (paced_s, want))


MODES = {"gl": mode_gl, "daemon": mode_daemon, "launcher": mode_launcher,
         "vkcube": mode_vkcube}


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("mode", choices=sorted(MODES))
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--glxgears32", required=True)
    p.add_argument("--vkcube32")
    p.add_argument("--xvfb", default="Xvfb")
    args = p.parse_args()
    try:
        with tempfile.TemporaryDirectory(prefix="baton-i386-e2e-") as tmp:
            args.tmp = tmp
            args.sock = os.path.join(tmp, "batond.sock")
            # No daemon here: a batond on the machine cannot change the
            # target of the standalone modes.
            args.nosock = os.path.join(tmp, "no-daemon.sock")
            with Xvfb(args.xvfb) as x:
                MODES[args.mode](args, x)
    except TimingFail as e:
        return batonbed.timing_verdict(e)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
