#!/usr/bin/env python3
"""VK_LAYER_BATON_pacing end to end: vkcube on lavapipe under a private Xvfb,
with the layer from the build tree.

    vkcube_e2e.py MODE --layer-dir DIR --vkcube PATH --xvfb PATH

MODE is one of
  loaded   the layer is in vkcube's instance and device chains with
           ENABLE_BATON_LAYER=1, and absent without it or with
           DISABLE_BATON_LAYER=1 (it is an opt-in implicit layer);
  paced    with BATON_FPS=45, `vkcube --c 450` takes 10.0 s +-1% from its
           first present;
  unpaced  with the layer but no target, vkcube runs far above 45 FPS.
  missing  a manifest whose library is missing (a package half removed, a
           container that mounted the manifest but not the library):
           vkcube still runs, unpaced; `baton run` says once which
           library is missing (needs --baton and --shim).

DIR is the build tree's XDG data folder (build/src/shim/vulkan/layer.d): the
loader finds implicit layers under $XDG_DATA_DIRS/vulkan/implicit_layer.d.

Time from the first present. vkcube prints nothing per frame, and the shim
is silent, so the test times whole processes: a run of N frames costs
startup + (N - 1) frame periods + teardown, and a run of one frame costs
startup + teardown. Their difference is the time from the first present to
the last, 449 periods for 450 frames (9.98 s at 45 FPS, inside 10.0 s +-1%).
Startup (instance, device, swapchain, lavapipe compiling the pipeline) varies
by tens of milliseconds, so the one-frame cost is the median of several runs.

Every run uses VK_LOADER_DEBUG=layer, and the test checks in each that the
loader inserted this build's library, so a run that silently went without
the layer cannot pass. BATON_SOCKET points into an empty temporary folder,
so a batond running on the machine cannot change the target.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import shutil
import tempfile
import time

# The X server is every end-to-end area's: tests/e2e/xvfb.py. It sits in
# the source tree, which must stay free of __pycache__.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
from xvfb import Xvfb  # noqa: E402

LAYER = "VK_LAYER_BATON_pacing"
# The build tree's XDG data folder (--layer-dir), once parsed.
BUILD_LAYER_DIR = []
FPS = 45
FRAMES = 450
EXPECTED_S = FRAMES / FPS
TOLERANCE = 0.01
UNPACED_MIN_FPS = 2 * FPS
STARTUP_RUNS = 5
VKCUBE_TIMEOUT_S = 60
# Variables of the caller's that would change which layers load or what the
# shim does; the test sets the ones it needs itself.
SCRUBBED = ("ENABLE_BATON_LAYER", "DISABLE_BATON_LAYER", "VK_INSTANCE_LAYERS",
            "VK_LAYER_PATH", "VK_ADD_LAYER_PATH", "VK_IMPLICIT_LAYER_PATH",
            "VK_ADD_IMPLICIT_LAYER_PATH", "VK_LOADER_LAYERS_ENABLE",
            "VK_LOADER_LAYERS_DISABLE", "VK_LOADER_DEBUG")


class Failure(Exception):
    pass


class Bed:
    """What every run shares: the X display, the environment, vkcube."""

    def __init__(self, args, display, tmp):
        self.vkcube = args.vkcube
        self.baton = args.baton
        self.shim = args.shim
        self.tmp = tmp
        BUILD_LAYER_DIR[:] = [args.layer_dir]
        manifest = os.path.join(args.layer_dir, "vulkan", "implicit_layer.d",
                                "VkLayer_baton.json")
        with open(manifest, encoding="utf-8") as f:
            self.library = json.load(f)["layer"]["library_path"]
        env = {k: v for k, v in os.environ.items()
               if k not in SCRUBBED and not k.startswith("BATON_")}
        env["DISPLAY"] = display
        env["XDG_DATA_DIRS"] = args.layer_dir + ":" + (
            os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share")
        env["BATON_SOCKET"] = os.path.join(tmp, "no-daemon.sock")
        env["VK_LOADER_DEBUG"] = "layer"
        self.env = env

    def run(self, frames, **extra):
        """Runs vkcube for `frames` presents; returns (wall s, output)."""
        env = dict(self.env, **extra)
        start = time.monotonic()
        proc = subprocess.run([self.vkcube, "--c", str(frames)], env=env,
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              timeout=VKCUBE_TIMEOUT_S)
        wall = time.monotonic() - start
        out = proc.stdout.decode(errors="replace")
        if proc.returncode != 0:
            raise Failure(f"vkcube --c {frames} exited {proc.returncode}:\n"
                          + out[-4000:])
        return wall, out

    def loaded(self, out):
        return (f'Insert instance layer "{LAYER}" ({self.library})' in out
                and f'Inserted device layer "{LAYER}" ({self.library})'
                in out)

    def absent(self, out):
        return f'layer "{LAYER}"' not in out and \
            f"Loading layer library {self.library}" not in out

    def run_with_layer(self, frames, **extra):
        wall, out = self.run(frames, ENABLE_BATON_LAYER="1", **extra)
        if not self.loaded(out):
            raise Failure(f"{LAYER} ({self.library}) was not loaded:\n"
                          + out[-4000:])
        return wall

    def paced_seconds(self, **extra):
        """Seconds from the first present to the last of FRAMES frames."""
        startup = [self.run_with_layer(1, **extra)
                   for _ in range(STARTUP_RUNS)]
        whole = self.run_with_layer(FRAMES, **extra)
        one = statistics.median(startup)
        print(f"vkcube --c {FRAMES}: {whole:.3f} s; --c 1: median "
              f"{one:.3f} s of {', '.join(f'{s:.3f}' for s in startup)}")
        return whole - one


def check_loaded(bed):
    _, out = bed.run(3, ENABLE_BATON_LAYER="1")
    if not bed.loaded(out):
        raise Failure("ENABLE_BATON_LAYER=1: layer not inserted:\n"
                      + out[-4000:])
    print(f"ENABLE_BATON_LAYER=1: {LAYER} inserted from {bed.library}")
    _, out = bed.run(3, ENABLE_BATON_LAYER="1", DISABLE_BATON_LAYER="1")
    if not bed.absent(out):
        raise Failure("DISABLE_BATON_LAYER=1: layer still loaded:\n"
                      + out[-4000:])
    print("ENABLE_BATON_LAYER=1 DISABLE_BATON_LAYER=1: absent")
    _, out = bed.run(3)
    if not bed.absent(out):
        raise Failure("no ENABLE_BATON_LAYER: layer loaded anyway:\n"
                      + out[-4000:])
    print("without ENABLE_BATON_LAYER: absent")


class Skip(Exception):
    """The machine, not the layer, spoiled the measurement."""


# Host steal above this during a timing check that fails makes the test
# report itself skipped (exit 77) rather than failed: the hypervisor took
# the CPU the paced frames needed, and no pacer can wait through that.
STEAL_SKIP = 0.05


def cpu_ticks():
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


def check_paced(bed):
    a = cpu_ticks()
    elapsed = bed.paced_seconds(BATON_FPS=str(FPS))
    d = [y - x for x, y in zip(a, cpu_ticks())]
    steal = d[7] / (sum(d) or 1)
    fps = (FRAMES - 1) / elapsed
    print(f"BATON_FPS={FPS}: {elapsed:.3f} s from the first present "
          f"({fps:.2f} FPS); want {EXPECTED_S:.1f} s +-{TOLERANCE:.0%}")
    print(f"host steal meanwhile: {steal:.0%}")
    if abs(elapsed - EXPECTED_S) > TOLERANCE * EXPECTED_S:
        if steal > STEAL_SKIP:
            raise Skip(f"{elapsed:.3f} s is not {EXPECTED_S:.1f} s "
                       f"+-{TOLERANCE:.0%}, but the host stole "
                       f"{steal:.0%} of the CPU meanwhile")
        raise Failure(f"{elapsed:.3f} s is not {EXPECTED_S:.1f} s "
                      f"+-{TOLERANCE:.0%}")


def check_unpaced(bed):
    elapsed = bed.paced_seconds()
    fps = (FRAMES - 1) / elapsed
    print(f"no target: {elapsed:.3f} s from the first present, "
          f"{fps:.1f} FPS; want at least {UNPACED_MIN_FPS}")
    if fps < UNPACED_MIN_FPS:
        raise Failure(f"{fps:.1f} FPS unpaced: the layer holds vkcube back")


def write_broken_layer(folder, gone):
    """This build's manifest, copied into folder's implicit_layer.d, naming
    the library gone instead."""
    with open(os.path.join(BUILD_LAYER_DIR[0], "vulkan", "implicit_layer.d",
                           "VkLayer_baton.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["layer"]["library_path"] = gone
    d = os.path.join(folder, "vulkan", "implicit_layer.d")
    os.makedirs(d)
    with open(os.path.join(d, "VkLayer_baton.json"), "w",
              encoding="utf-8") as f:
        json.dump(manifest, f)


def check_missing(bed):
    """A manifest naming a missing library: first found by the loader
    alone (silent unless VK_LOADER_DEBUG asks), then by `baton run` in an
    installed tree (bin/baton beside share/vulkan), which says so."""
    gone = os.path.join(bed.tmp, "removed", "libVkLayer_baton.so")
    data = os.path.join(bed.tmp, "data")
    write_broken_layer(data, gone)
    # Not the build tree's folder: the loader would take its manifest of
    # the same layer name instead.
    dirs = data + ":" + (os.environ.get("XDG_DATA_DIRS")
                         or "/usr/local/share:/usr/share")
    frames = FRAMES // 3
    wall, out = bed.run(frames, ENABLE_BATON_LAYER="1", BATON_FPS=str(FPS),
                        XDG_DATA_DIRS=dirs)
    print(f"vkcube --c {frames}, the layer's library missing: exit 0 in "
          f"{wall:.2f} s")
    if bed.loaded(out):
        raise Failure("a layer was inserted from a missing library")
    # Unpaced: at 45 FPS the frames alone would take (frames - 1) / 45 s.
    if wall >= (frames - 1) / FPS:
        raise Failure(f"{wall:.2f} s for {frames} frames: something "
                      "paced vkcube without the layer")

    tree = os.path.join(bed.tmp, "installed")
    os.makedirs(os.path.join(tree, "bin"))
    baton = os.path.join(tree, "bin", "baton")
    shutil.copy(bed.baton, baton)
    write_broken_layer(os.path.join(tree, "share"), gone)
    env = dict(bed.env, BATON_SHIM_PATH=bed.shim)
    proc = subprocess.run([baton, "run", "--fps", str(FPS), "--", bed.vkcube,
                           "--c", "3"], env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=VKCUBE_TIMEOUT_S)
    err = proc.stderr.decode(errors="replace")
    said = [line for line in err.splitlines()
            if line.startswith("baton run:") and gone in line]
    print(f"baton run from {tree}: exit {proc.returncode}; it said:")
    for line in said:
        print("  " + line)
    if proc.returncode != 0:
        raise Failure(f"vkcube under baton run exited {proc.returncode}:\n"
                      + err[-4000:])
    if len(said) != 1:
        raise Failure("baton run did not say once that the layer's "
                      "library is missing:\n" + err[-4000:])


CHECKS = {"loaded": check_loaded, "paced": check_paced,
          "unpaced": check_unpaced, "missing": check_missing}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=sorted(CHECKS))
    parser.add_argument("--layer-dir", required=True)
    parser.add_argument("--vkcube", default="vkcube")
    parser.add_argument("--xvfb", default="Xvfb")
    parser.add_argument("--baton", help="the baton CLI (missing)")
    parser.add_argument("--shim", help="the GL preload (missing)")
    args = parser.parse_args()
    try:
        with tempfile.TemporaryDirectory(prefix="baton-vk-") as tmp, \
                Xvfb(args.xvfb, screen="1024x768x24") as x:
            CHECKS[args.mode](Bed(args, x.display, tmp))
    except Skip as e:
        print(f"SKIP: {e}")
        return 77
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
