#!/usr/bin/env python3
"""An OpenGL game batond was not told the GPU of is placed by the kernel's
word: its DRM clients' drm-pdev. One batond with two hardware GPUs by PCI
slot (config `gpus`: gpu0 at 0000:03:00.0, gpu1 at 0000:04:00.0) whose
fdinfo reader (`fdinfo_root`) reads a fake /proc tree, as on a node of
two AMD or Intel GPUs that batond finds through sysfs, with no UUID to
match. The test plays the kernel (accounting_e2e.FakeKernel: amdgpu's
fdinfo format, drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c, keys of the
kernel's Documentation/gpu/drm-usage-stats.rst).

Three glxgears on llvmpipe through the GL shim (LD_PRELOAD, not `baton
run`, which would name a GPU):
  wanderer  names no GPU; its DRM clients are on gpu1's slot: batond
            moves it to gpu1 (one log line naming it, the slot and the
            GPU), and counts its GPU time from them there ("fdinfo");
  pinned    BATON_GPU=gpu0, its clients on gpu1's slot too: it named its
            GPU and stays on gpu0;
  stray     names no GPU; its drm-pdev is no PCI slot ("0000:04:00"):
            one warning naming the value, and it stays on gpu0.
`baton status` shows each on its GPU and each GPU's tenant count.

Before batond read drm-pdev for placement, the wanderer stayed on gpu0."""

import argparse
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accounting_e2e import FakeKernel  # noqa: E402
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      terminate_on_sigterm, wait_for)

SLOTS = ("0000:03:00.0", "0000:04:00.0")
CONFIG = """fdinfo_root = "%s";
policy = "sa";
gpus = ( { name = "gpu0"; device = "%s"; },
         { name = "gpu1"; device = "%s"; } );
"""
# name -> (BATON_GPU, drm-pdev of its clients)
GAMES = {"wanderer": (None, SLOTS[1]),
         "pinned": ("gpu0", SLOTS[1]),
         "stray": (None, "0000:04:00")}


def game(x, sock, shim, glxgears, name, gpu):
    env = x.env(BATON_SOCKET=sock, BATON_NAME=name, LD_PRELOAD=shim)
    env.pop("BATON_GPU", None)
    if gpu:
        env["BATON_GPU"] = gpu
    return Client([glxgears], env)


def placed(d):
    st = d.status()
    on = {t["name"]: t for t in st["tenants"]}
    if len(on) < 3 or on["wanderer"]["gpu"] != "gpu1" or \
            on["wanderer"]["gpu_source"] != "fdinfo":
        return None
    return st


def check_placement(d, baton, env):
    try:
        st = wait_for("the wanderer on gpu1, counted from its fdinfo",
                      lambda: placed(d), 15)
    except Fail:
        st = d.status()
        print("status:", {t["name"]: (t["gpu"], t["gpu_source"])
                          for t in st["tenants"]})
        raise
    on = {t["name"]: t["gpu"] for t in st["tenants"]}
    print("tenants on", on)
    check(on == {"wanderer": "gpu1", "pinned": "gpu0", "stray": "gpu0"},
          "tenants on %s" % on)
    counts = {g["name"]: g["tenants"] for g in st["gpus"]}
    check(counts == {"gpu0": 2, "gpu1": 1}, "GPUs' tenants %s" % counts)
    text = subprocess.run([baton, "status"], env=env, capture_output=True,
                          text=True, timeout=10).stdout
    row = [ln for ln in text.splitlines() if "wanderer" in ln]
    print("baton status:", *row)
    check(row and "gpu1" in row[0], "baton status does not show the "
          "wanderer on gpu1")


def check_log(d):
    moved = [ln for ln in d.log if "moved from" in ln]
    print("batond:", *moved, sep="\n  ")
    check(len(moved) == 1 and '"wanderer"' in moved[0] and
          SLOTS[1] in moved[0] and "to gpu1" in moved[0],
          "not one line moving the wanderer to gpu1: %s" % moved)
    bad = [ln for ln in d.log if "no PCI slot" in ln]
    print("batond:", *bad, sep="\n  ")
    check(len(bad) == 1 and '"stray"' in bad[0] and
          '"0000:04:00"' in bad[0], "not one warning naming the stray's "
          "drm-pdev: %s" % bad)
    check(not any('"pinned"' in ln and "DRM clients" in ln
                  for ln in d.log), "the pinned game was placed by its "
          "DRM clients")


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for a in ("baton", "batond", "xvfb", "glxgears", "gl-shim"):
        p.add_argument("--" + a, required=True)
    args, _ = p.parse_known_args()
    try:
        with tempfile.TemporaryDirectory(prefix="baton-pdev-") as tmp, \
                Xvfb(args.xvfb) as x:
            root = os.path.join(tmp, "proc")
            os.mkdir(root)
            cfg = os.path.join(tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write(CONFIG % ((root,) + SLOTS))
            sock = os.path.join(tmp, "batond.sock")
            env = x.env(BATON_SOCKET=sock)
            d = Batond(args.batond, args.baton, sock,
                       ["--config", cfg, "--sla", "30"], env)
            d.env["BATON_LOG"] = "info"
            kernel = FakeKernel(root)
            kernel.thread.start()
            clients = []
            with d:
                try:
                    for name, (gpu, pdev) in GAMES.items():
                        c = game(x, sock, args.gl_shim, args.glxgears,
                                 name, gpu).__enter__()
                        clients.append(c)
                        # its fds before its first frame, as a real
                        # game's are
                        kernel.add(name, c.proc.pid, 1.0, pdev)
                    d.wait_tenants(list(GAMES), 20)
                    check_placement(d, args.baton, env)
                    check_log(d)
                finally:
                    kernel.stop.set()
                    for c in clients:
                        c.__exit__(None, None, None)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
