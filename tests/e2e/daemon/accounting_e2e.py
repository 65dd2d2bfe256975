#!/usr/bin/env python3
"""GPU accounting end to end: two glxgears games on llvmpipe under a real
batond whose config points its fdinfo reader (`fdinfo_root`) at a fake
/proc tree. The test plays the kernel: each game gets one DRM fd
(fd/3 -> /dev/dri/renderD128) whose fdinfo, in amdgpu's format
(drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c, keys of the kernel's
Documentation/gpu/drm-usage-stats.rst), counts a "gfx" engine busy time
of FACTOR x the game's real CPU time, updated every 50 ms. Game "heavy"
costs 6 times its CPU time, game "light" once.

The checks, on measurements of the same run:
- status names the source of both ("gpu_source": "fdinfo"), as do
  /metrics (baton_tenant_gpu_source_info) and the history file;
- the controller's k (status k_ms) follows the accounting: k within 30 %
  of the fake's busy time per frame, the heavy game's k several times the
  light one's, while what the shim's swap durations claim is alike;
- ESA's common rate follows the accounting: at most U / sum k (the
  accounted k) and well under U / sum of the swap durations' k, and both
  games run near it.

Then the fake tree's fdinfo is removed: the tenants fall back to the next
source ("cpu" on this software rasterizer) with one log line each."""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      check_k_follows,
                      cpu_seconds, gears_args, terminate_on_sigterm,
                      wait_for)

FACTORS = {"heavy": 6.0, "light": 1.0}
UTIL_TARGET = 0.95  # batond's default util_target
SETTLE_S = 8.0
WINDOW_S = 4.0


class FakeKernel:
    """Writes ROOT/PID/fdinfo/3 for each game every 50 ms: its gfx engine
    busy ns = FACTOR x its CPU time since the start (and the same client
    on a second fd, fd 4, as Mesa's dup'ed fds would be), on the GPU of
    PCI slot pdev."""

    def __init__(self, root):
        self.root = root
        self.games = {}  # name -> (pid, factor, cpu at start)
        self.pdevs = {}  # name -> its drm-pdev
        self.stop = threading.Event()
        self.busy = {}  # name -> busy s written last
        self.thread = threading.Thread(target=self.run, daemon=True)

    def add(self, name, pid, factor, pdev="0000:03:00.0"):
        self.pdevs[name] = pdev
        d = os.path.join(self.root, str(pid))
        for sub in ("fd", "fdinfo"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        for fd in (3, 4):
            link = os.path.join(d, "fd", str(fd))
            if not os.path.islink(link):
                os.symlink("/dev/dri/renderD128", link)
        self.games[name] = (pid, factor, cpu_seconds(pid))

    def write(self, name):
        pid, factor, cpu0 = self.games[name]
        cpu = cpu_seconds(pid)
        if cpu is None:
            return
        busy = factor * (cpu - cpu0)
        self.busy[name] = busy
        text = ("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1055\n"
                "drm-driver:\tamdgpu\ndrm-client-id:\t%d\n"
                "drm-pdev:\t%s\n"
                "drm-resident-vram:\t44564 KiB\n"
                "drm-engine-gfx:\t%d ns\ndrm-engine-enc:\t0 ns\n"
                % (pid, self.pdevs[name], int(busy * 1e9)))
        for fd in (3, 4):
            path = os.path.join(self.root, str(pid), "fdinfo", str(fd))
            with open(path + ".new", "w") as f:
                f.write(text)
            os.rename(path + ".new", path)

    def run(self):
        while not self.stop.is_set():
            for name in list(self.games):
                self.write(name)
            time.sleep(0.05)

    def remove(self):
        self.stop.set()
        self.thread.join()
        for pid, _, _ in self.games.values():
            d = os.path.join(self.root, str(pid), "fdinfo")
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))


def sample(d, kernel, pids):
    """Status, the games' CPU and fake busy seconds, at one instant."""
    st = d.status()
    return (time.monotonic(), st, dict(kernel.busy),
            {n: cpu_seconds(p) for n, p in pids.items()})


def check_accounting(a, b):
    ks, ks_claim, gpu = check_k_follows(a, b, FACTORS, "fdinfo",
                                        "the fake kernel")
    common = gpu["common_fps"]
    other = gpu["other_util"]
    f_acct = (UTIL_TARGET - other) / sum(ks.values())
    f_claim = (UTIL_TARGET - other) / sum(ks_claim.values())
    print("ESA common rate %.1f FPS; U / sum k: %.1f from the accounting, "
          "%.1f from the swap durations (other_util %.3f)" % (
              common, f_acct, f_claim, other))
    check(common <= 1.25 * f_acct,
          "common rate %.1f above U / sum k %.1f" % (common, f_acct))
    check(common < 0.6 * f_claim,
          "common rate %.1f follows the swap durations (%.1f)" % (
              common, f_claim))


def check_reports(d, hist):
    m = d.metrics()
    lines = [ln for ln in m.splitlines()
             if ln.startswith("baton_tenant_gpu_source_info{")]
    print("\n".join(lines))
    check(len(lines) == 2 and all('source="fdinfo"' in ln for ln in lines),
          "metrics do not name fdinfo for both games")
    with open(hist) as f:
        last = [json.loads(ln) for ln in f][-1]
    src = {t["name"]: t.get("gpu_source") for t in last["tenants"]}
    print("history:", src)
    check(set(src.values()) == {"fdinfo"}, "history sources %s" % src)


def fall_back(d, kernel):
    kernel.remove()
    wait_for("both games back on the cpu source", lambda: all(
        t["gpu_source"] == "cpu" for t in d.status()["tenants"]), 10)
    logged = [ln for ln in d.log if "no longer counts" in ln or
              "kernel's count" in ln]
    print("batond:", "\n        ".join(logged))
    for name in FACTORS:
        check(sum(1 for ln in logged if '"%s"' % name in ln) == 2,
              "%s: not one line when counted, one when it fell back" %
              name)


def main():
    terminate_on_sigterm()
    args = gears_args(__doc__)
    try:
        with tempfile.TemporaryDirectory(prefix="baton-acct-") as tmp, \
                Xvfb(args.xvfb) as x:
            root = os.path.join(tmp, "proc")
            os.mkdir(root)
            cfg = os.path.join(tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write('fdinfo_root = "%s";\npolicy = "esa";\n' % root)
            sock = os.path.join(tmp, "batond.sock")
            hist = os.path.join(tmp, "history.jsonl")
            env = x.env(BATON_SOCKET=sock)
            d = Batond(args.batond, args.baton, sock,
                       ["--config", cfg, "--sla", "30", "--record", hist],
                       env)
            d.env["BATON_LOG"] = "info"
            kernel = FakeKernel(root)
            with d, \
                    Client([args.baton, "run", "--name", "heavy", "--",
                            args.glxgears], env), \
                    Client([args.baton, "run", "--name", "light", "--",
                            args.glxgears], env):
                d.wait_tenants(list(FACTORS), 20)
                pids = {n: t["pid"] for n, t in d.tenants().items()}
                for name, factor in FACTORS.items():
                    kernel.add(name, pids[name], factor)
                kernel.thread.start()
                time.sleep(SETTLE_S)
                a = sample(d, kernel, pids)
                time.sleep(WINDOW_S)
                b = sample(d, kernel, pids)
                check_accounting(a, b)
                check_reports(d, hist)
                fall_back(d, kernel)
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
