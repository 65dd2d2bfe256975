#!/usr/bin/env python3
"""The installed Debian packages end to end: the installed `baton`, `batond`,
preload and Vulkan layer manifests pace real clients under a private Xvfb
(llvmpipe/lavapipe), with nothing taken from a build tree.

    package_e2e.py --baton /usr/bin/baton --batond /usr/bin/batond
                   --libdir /usr/lib/x86_64-linux-gnu [--glxgears32 P]
                   [--vkcube32 P] [--xvfb P]

Checks, in one run:
  1. glxgears (and the 32-bit one with --glxgears32) unmanaged, side by
     side: each at least 1.5 times 30 FPS, else 30 says nothing.
  2. side by side: `baton run --fps 30 -- glxgears` (and the 32-bit
     glxgears the same way), and glxgears under `baton run --sla 30` with
     the installed batond (policy sa, SLA 30, no margin): each shows 30 FPS
     within 2% after its first five-second line, each maps the installed
     preload of its own word size (LIBDIR/baton/libbaton_gl.so, or the
     i386 one), and batond lists the managed one as a tenant.
  3. vkcube (and the 32-bit one with --vkcube32) for 3 frames: under
     `baton run --fps 30` the loader inserts VK_LAYER_BATON_pacing from
     the installed library of the client's word size; run plainly, it does
     not (the installed manifest is implicit but loads only with
     ENABLE_BATON_LAYER=1, as `baton run` sets it, so it changes nothing
     for the other programs on the machine).
Exit status 0 pass, 1 fail, 77 (skip) when a frame rate missed while the
host stole more than 5% of the CPU.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e", "daemon"))
import batonbed  # noqa: E402
from batonbed import (Batond, Client, Fail, Steal, TimingFail,  # noqa: E402
                      Xvfb, check, check_timing, gears_fps, write_config,
                      terminate_on_sigterm)

FPS = 30.0
HEADROOM = 1.5
TOLERANCE = 0.02
GEARS = "/usr/bin/glxgears"
VKCUBE = "/usr/bin/vkcube"
VK_LAYER = "VK_LAYER_BATON_pacing"
I386_LIBDIR = "/usr/lib/i386-linux-gnu"


def client_env(x, **extra):
    """The clients' environment, with nothing that could point the loader
    or `baton run` at a build tree: every path must be the installed one."""
    env = x.env(**extra)
    for k in [k for k in env if k.startswith("VK_") or
              k in ("XDG_DATA_DIRS", "ENABLE_BATON_LAYER",
                    "DISABLE_BATON_LAYER")]:
        del env[k]
    return env


def preloads(pid):
    """The files named libbaton_gl.so that process pid maps."""
    with open("/proc/%d/maps" % pid) as f:
        return {line.split()[-1] for line in f
                if line.rstrip().endswith("/libbaton_gl.so")}


def gears(args):
    """[(label, glxgears path, libdir of its word size)]."""
    out = [("glxgears", GEARS, args.libdir)]
    if args.glxgears32:
        out.append(("32-bit glxgears", args.glxgears32, I386_LIBDIR))
    return out


def unmanaged(args, x):
    env = client_env(x, BATON_SOCKET=args.nosock)
    clients = [Client([path], env) for _, path, _ in gears(args)]
    try:
        for c in clients:
            c.__enter__()
        rates = [gears_fps(c, 2, 30)[-1] for c in clients]
    finally:
        for c in clients:
            c.__exit__(None, None, None)
    for (label, _, _), fps in zip(gears(args), rates):
        print("%s unmanaged (side by side): %.1f FPS" % (label, fps))
        check(fps >= HEADROOM * FPS, "%s unmanaged at %.1f FPS: too slow "
              "to show pacing at %g" % (label, fps, FPS))


def paced(args, x):
    """The standalone-paced glxgears and the batond-managed one, together."""
    cfg = write_config(os.path.join(args.tmp, "margin0.cfg"), sla_margin=0)
    nosock = client_env(x, BATON_SOCKET=args.nosock)
    runs = [("%s --fps 30" % label, [args.baton, "run", "--fps", "30", "--",
                                     path], nosock, libdir)
            for label, path, libdir in gears(args)]
    runs.append(("glxgears --sla 30 under batond",
                 [args.baton, "run", "--sla", "30", "--name", "gears", "--",
                  GEARS], client_env(x, BATON_SOCKET=args.sock),
                 args.libdir))
    with Batond(args.batond, args.baton, args.sock,
                ["--policy", "sa", "--sla", "30", "--config", cfg],
                client_env(x)) as d:
        clients = [Client(argv, env) for _, argv, env, _ in runs]
        try:
            with Steal() as st:
                for c in clients:
                    c.__enter__()
                d.wait_tenants(["gears"], 15)
                rates = [gears_fps(c, 3, 40) for c in clients]
                maps = [preloads(c.proc.pid) for c in clients]
                st.stop()
            tenant = d.tenants()["gears"]
        finally:
            for c in clients:
                c.__exit__(None, None, None)
    print("batond's tenant gears: target %.2f FPS, fps %.2f" % (
        tenant["target_fps"], tenant["fps"]))
    for (label, _, _, libdir), fps, mapped in zip(runs, rates, maps):
        print("%s: %s FPS, maps %s (%s)" % (label, fps, sorted(mapped), st))
        want = os.path.join(libdir, "baton", "libbaton_gl.so")
        check(mapped == {want}, "%s maps %s, not the installed %s" % (
            label, sorted(mapped), want))
    for (label, _, _, _), fps in zip(runs, rates):
        for v in fps[1:]:
            check_timing(abs(v - FPS) <= TOLERANCE * FPS,
                         "%s: %.3f FPS is not %g within %g%%: %s (%s)" % (
                             label, v, FPS, TOLERANCE * 100, fps, st))


def inserted_layer(argv, env):
    """The library the loader inserted VK_LAYER_BATON_pacing from, or None,
    for a 3-frame vkcube run as argv."""
    env = dict(env, VK_LOADER_DEBUG="layer")
    r = subprocess.run(argv + ["--c", "3"], env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", timeout=60)
    check(r.returncode == 0, "%s exited %d:\n%s" % (
        " ".join(argv), r.returncode, r.stdout[-3000:]))
    m = re.search(r'Insert instance layer "%s" \((\S+)\)' % VK_LAYER,
                  r.stdout)
    return m.group(1) if m else None


def vulkan(args, x):
    env = client_env(x, BATON_SOCKET=args.nosock)
    cubes = [("vkcube", VKCUBE, args.libdir)]
    if args.vkcube32:
        cubes.append(("32-bit vkcube", args.vkcube32, I386_LIBDIR))
    for label, path, libdir in cubes:
        want = os.path.join(libdir, "baton", "libVkLayer_baton.so")
        got = inserted_layer([args.baton, "run", "--fps", "30", "--", path],
                             env)
        print("%s under baton run: layer from %s" % (label, got))
        check(got == want, "%s under baton run: the layer came from %s, "
              "not the installed %s" % (label, got, want))
        got = inserted_layer([path], env)
        print("%s alone: layer %s" % (label, got or "not inserted"))
        check(got is None, "%s run plainly loaded the installed layer (%s)"
              % (label, got))


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--libdir", required=True,
                   help="the installed multiarch libdir of the 64-bit shim")
    p.add_argument("--glxgears32")
    p.add_argument("--vkcube32")
    p.add_argument("--xvfb", default="Xvfb")
    args = p.parse_args()
    try:
        with tempfile.TemporaryDirectory(prefix="baton-package-e2e-") as tmp:
            args.tmp = tmp
            args.sock = os.path.join(tmp, "batond.sock")
            # No daemon for the standalone runs: a batond on the machine
            # cannot change their target.
            args.nosock = os.path.join(tmp, "no-daemon.sock")
            with Xvfb(args.xvfb) as x:
                unmanaged(args, x)
                paced(args, x)
                vulkan(args, x)
    except TimingFail as e:
        return batonbed.timing_verdict(e)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
