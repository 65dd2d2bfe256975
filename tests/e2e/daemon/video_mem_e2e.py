#!/usr/bin/env python3
"""The encoder and VRAM as admission's second and third resources, end to
end: two glxgears games on llvmpipe under a real batond whose fdinfo
reader (`fdinfo_root`) reads a fake /proc tree. The test plays the
kernel: each game gets one DRM fd whose fdinfo, in amdgpu's format
(drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c, keys of the kernel's
Documentation/gpu/drm-usage-stats.rst), counts its "gfx" engine as its
CPU time, its "enc" engine busy for a share of the wall time the test
sets, and "drm-resident-vram" as the test sets. The GPU's VRAM is the
config's (gpus = ( { name = "gpu0"; vram_mb = 4096; } )), as on a GPU
where neither NVML nor amdgpu's sysfs tells.

Profiles (batond's apps): "stream" needs 0.25 of the encoder, "bigtex"
1024 MiB of VRAM, "plain" neither; each costs 0.5 ms a frame at 10 FPS,
and the 3D engine's U_l is set high (3), so that on this shared machine
the 3D engine never binds and every refusal seen is the encoder's or
VRAM's. cap_encoder_limit is its default, 0.9.

Checks, on figures of the same run:
- encoder: with the games' encoders at 0.1 each, status' GPU encoder
  load is their sum (within 0.05), each game's video_share its own; a
  stream session's count is the encoder's, floor-strict
  (0.9 - load) / 0.25, smaller than the 3D engine's count, and /metrics'
  baton_admissible_sessions for "stream" says the same; then one game's
  encoder goes to 0.65: the load follows, `baton capacity --profile
  stream` exits 5 naming the encoder, /metrics drops to 0, "plain" still
  fits;
- VRAM: the games' resident VRAM (1024 MiB each) is the GPU's used VRAM
  (source config), "bigtex" fits (4096 - 2048) / 1024 = 2; one game grows
  to 2560 MiB: "bigtex" is refused naming VRAM, `baton capacity --vram
  256M` on a cost fits, and `baton run --wait --vram-limit 1G --name
  plain` waits and gives up (exit 5) where the same without
  --vram-limit starts at once;
- `baton status` (text) shows the encoder and VRAM line, /metrics the
  families, the history file the fields."""

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      cpu_seconds, gears_args, terminate_on_sigterm,
                      wait_for)

MIB = 1024 * 1024
VRAM_MB = 4096
ENC_LIMIT = 0.9  # batond's default cap_encoder_limit
STREAM_SHARE = 0.25
CONFIG = """fdinfo_root = "%s";
policy = "sa";
params = { cap_u_limit = 3.0; };
gpus = ( { name = "gpu0"; vram_mb = %d; } );
apps = (
  { name = "stream"; cost_ms = 0.5; sla = 10; encoder = %g; },
  { name = "bigtex"; cost_ms = 0.5; sla = 10; vram_mb = 1024; },
  { name = "plain"; cost_ms = 0.5; sla = 10; }
);
"""


class FakeKernel:
    """Writes ROOT/PID/fdinfo/3 for each game every 50 ms: gfx busy = its
    CPU time, enc busy = the integral of its encoder share over wall
    time, resident VRAM as set."""

    def __init__(self, root):
        self.root = root
        self.games = {}  # name -> dict(pid, cpu0, enc_s, share, vram, t)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def add(self, name, pid, share, vram_mb):
        d = os.path.join(self.root, str(pid))
        for sub in ("fd", "fdinfo"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        os.symlink("/dev/dri/renderD128", os.path.join(d, "fd", "3"))
        self.games[name] = dict(pid=pid, cpu0=cpu_seconds(pid), enc_s=0.0,
                                share=share, vram=vram_mb,
                                t=time.monotonic())

    def set(self, name, share=None, vram_mb=None):
        with self.lock:
            g = self.games[name]
            if share is not None:
                g["share"] = share
            if vram_mb is not None:
                g["vram"] = vram_mb

    def write(self, name):
        with self.lock:
            g = self.games[name]
            now = time.monotonic()
            g["enc_s"] += g["share"] * (now - g["t"])
            g["t"] = now
            enc_ns, vram_kib = int(g["enc_s"] * 1e9), g["vram"] * 1024
        cpu = cpu_seconds(g["pid"])
        if cpu is None:
            return
        text = ("pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1055\n"
                "drm-driver:\tamdgpu\ndrm-client-id:\t%d\n"
                "drm-pdev:\t0000:03:00.0\n"
                "drm-resident-vram:\t%d KiB\n"
                "drm-engine-gfx:\t%d ns\ndrm-engine-enc:\t%d ns\n"
                % (g["pid"], vram_kib, int((cpu - g["cpu0"]) * 1e9),
                   enc_ns))
        path = os.path.join(self.root, str(g["pid"]), "fdinfo", "3")
        with open(path + ".new", "w") as f:
            f.write(text)
        os.rename(path + ".new", path)

    def run(self):
        while not self.stop.is_set():
            for name in list(self.games):
                self.write(name)
            time.sleep(0.05)


def capacity(baton, env, *args):
    """`baton capacity ARGS --json`: (exit status, reply, its text)."""
    r = subprocess.run([baton, "capacity"] + list(args) + ["--json"],
                       env=env, capture_output=True, text=True, timeout=10)
    check(r.returncode in (0, 5), "baton capacity %s exited %d: %s" % (
        " ".join(args), r.returncode, r.stderr.strip()))
    t = subprocess.run([baton, "capacity"] + list(args), env=env,
                       capture_output=True, text=True, timeout=10)
    return r.returncode, json.loads(r.stdout), t.stdout.strip()


def admissible(metrics, profile):
    m = re.search(r'^baton_admissible_sessions\{gpu="0",profile="%s"\} '
                  r'(\S+)$' % profile, metrics, re.M)
    check(m is not None, "no baton_admissible_sessions for %s" % profile)
    return float(m.group(1))


def strict_count(load, share, limit=ENC_LIMIT):
    k = 0
    while load + (k + 1) * share < limit:
        k += 1
    return k


def encoder_phase(d, kernel, baton, env):
    st = wait_for("the encoder counted from fdinfo, near 0.2",
                  lambda: next((s for s in [d.status()]
                                if s["gpus"][0]["encoder_source"] == "fdinfo"
                                and abs(s["gpus"][0]["encoder_util"] - 0.2)
                                < 0.05), None), 15)
    games = {t["name"]: t for t in st["tenants"]}
    shares = [games[n]["video_share"] for n in ("g1", "g2")]
    print("video_share g1 %.3f g2 %.3f, GPU encoder %.3f; vram %.0f, "
          "%.0f MiB" % (shares[0], shares[1],
                        st["gpus"][0]["encoder_util"],
                        games["g1"]["vram_mb"], games["g2"]["vram_mb"]))
    check(abs(sum(shares) - st["gpus"][0]["encoder_util"]) < 0.01,
          "the GPU's encoder load is not its games' sum")
    check(all(abs(s - 0.1) < 0.05 for s in shares),
          "video shares %s, not 0.1 each" % shares)
    # wait until the 3D engine admits (quiet periods after the joins)
    rc, plain, _ = wait_for("a plain session fits", lambda: (
        lambda r: r if r[0] == 0 else None)(capacity(
            baton, env, "--profile", "plain")), 15)
    rc, st, text = capacity(baton, env, "--profile", "stream")
    g = st["gpus"][0]
    load = g["encoder_load"]
    want = strict_count(load, STREAM_SHARE)
    print("encoder load %.3f; stream: %s" % (load, text))
    check(rc == 0 and st["fits"], "stream refused at encoder load %.2f: "
          "%s" % (load, st["reason"]))
    check(g["more_encoder"] == want, "encoder count %s, not %d" % (
        g["more_encoder"], want))
    check(st["more"] == want and g["more_3d"] > want,
          "stream's count %d is not the encoder's %d under the 3D "
          "engine's %d" % (st["more"], want, g["more_3d"]))
    check(plain["gpus"][0]["more_encoder"] is None and
          plain["more"] == plain["gpus"][0]["more_3d"],
          "plain, which streams nothing, is bound by the encoder")
    pub = admissible(d.metrics(), "stream")
    check(abs(pub - want) <= 1, "metrics admit %g streams, capacity %d" % (
        pub, want))
    before = load

    kernel.set("g2", share=0.65)
    gpu = wait_for("the encoder load near 0.75", lambda: next(
        (g for g in [d.status()["gpus"][0]]
         if abs(g["encoder_util"] - 0.75) < 0.05), None), 10)
    rc, st, text = capacity(baton, env, "--profile", "stream")
    print("encoder load %.3f; stream: %s" % (gpu["encoder_util"], text))
    check(rc == 5 and not st["fits"], "stream still fits at encoder load "
          "%.2f" % gpu["encoder_util"])
    check("encoder" in st["reason"] and "encoder" in text,
          "the refusal does not name the encoder: %s" % st["reason"])
    check(gpu["encoder_util"] / before > 3.0,
          "encoder load %.2f -> %.2f does not follow the fake's 0.2 -> "
          "0.75" % (before, gpu["encoder_util"]))
    wait_for("metrics admit no stream", lambda: admissible(
        d.metrics(), "stream") == 0, 5)
    rc, _, _ = capacity(baton, env, "--profile", "plain")
    check(rc == 0, "plain refused beside a busy encoder")


def vram_phase(d, kernel, baton, env):
    gpu = d.status()["gpus"][0]
    print("VRAM %.0f of %s MiB used (%s)" % (
        gpu["vram_used_mb"], gpu["vram_total_mb"], gpu["vram_source"]))
    check(gpu["vram_source"] == "config" and
          gpu["vram_total_mb"] == VRAM_MB, "VRAM total not the config's")
    check(abs(gpu["vram_used_mb"] - 2048) < 1,
          "used VRAM %.0f MiB is not the games' 2048" % gpu["vram_used_mb"])
    rc, st, text = capacity(baton, env, "--profile", "bigtex")
    print("bigtex:", text)
    check(rc == 0 and st["gpus"][0]["more_vram"] == 2 and st["more"] == 2,
          "bigtex: %s more, VRAM's %s, not 2" % (
              st["more"], st["gpus"][0]["more_vram"]))

    kernel.set("g2", vram_mb=2560)
    wait_for("used VRAM at 3584 MiB", lambda: abs(
        d.status()["gpus"][0]["vram_used_mb"] - 3584) < 1, 5)
    rc, st, text = capacity(baton, env, "--profile", "bigtex")
    print("bigtex:", text)
    check(rc == 5 and "VRAM" in st["reason"] and "VRAM" in text,
          "bigtex not refused for VRAM: %s" % st["reason"])
    rc, st, _ = capacity(baton, env, "--cost", "0.5", "--sla", "10",
                         "--vram", "256M")
    check(rc == 0 and st["gpus"][0]["more_vram"] == 2,
          "256 MiB does not fit twice in 512 free: %s" % st)
    # baton run --wait: --vram-limit is what the session needs
    t0 = time.monotonic()
    r = subprocess.run([baton, "run", "--wait", "--wait-timeout", "2",
                        "--vram-limit", "1G", "--name", "plain", "--",
                        "true"], env=env, capture_output=True, text=True,
                       timeout=20)
    print("run --wait --vram-limit 1G: exit %d after %.1f s: %s" % (
        r.returncode, time.monotonic() - t0, r.stderr.strip()[-160:]))
    check(r.returncode == 5 and "VRAM" in r.stderr,
          "run --wait --vram-limit 1G did not wait for VRAM")
    r = subprocess.run([baton, "run", "--wait", "--wait-timeout", "2",
                        "--name", "plain", "--", "true"], env=env,
                       capture_output=True, text=True, timeout=20)
    check(r.returncode == 0, "run --wait without --vram-limit exited %d: "
          "%s" % (r.returncode, r.stderr.strip()))


def check_reports(d, baton, env, hist):
    text = subprocess.run([baton, "status"], env=env, capture_output=True,
                          text=True, timeout=10).stdout
    line = [ln for ln in text.splitlines() if ln.startswith("VIDEO/VRAM")]
    print("\n".join(line))
    check(line and "encoder" in line[0] and "VRAM" in line[0],
          "baton status shows no encoder and VRAM line")
    check("VIDEO " in text, "no tenant's VIDEO note in baton status")
    m = d.metrics()
    for fam in ("baton_gpu_encoder_utilization{", "baton_tenant_video_share{",
                'baton_gpu_vram_bytes{gpu="0",kind="total"} %d' %
                (VRAM_MB * MIB), "baton_tenant_vram_bytes{"):
        check(fam in m, "metrics lack %s" % fam)
    with open(hist) as f:
        last = [json.loads(ln) for ln in f][-1]
    g = last["gpus"][0]
    print("history: encoder_util %.3f vram %s/%s MiB" % (
        g["encoder_util"], g["vram_used_mb"], g["vram_total_mb"]))
    check(g["encoder_source"] == "fdinfo" and g["vram_total_mb"] == VRAM_MB
          and all("video_share" in t for t in last["tenants"]),
          "the history file lacks the encoder and VRAM fields")


def main():
    terminate_on_sigterm()
    args = gears_args(__doc__)
    try:
        with tempfile.TemporaryDirectory(prefix="baton-res-") as tmp, \
                Xvfb(args.xvfb) as x:
            root = os.path.join(tmp, "proc")
            os.mkdir(root)
            cfg = os.path.join(tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write(CONFIG % (root, VRAM_MB, STREAM_SHARE))
            sock = os.path.join(tmp, "batond.sock")
            hist = os.path.join(tmp, "history.jsonl")
            env = x.env(BATON_SOCKET=sock)
            d = Batond(args.batond, args.baton, sock,
                       ["--config", cfg, "--sla", "10", "--record", hist],
                       env)
            kernel = FakeKernel(root)
            with d, \
                    Client([args.baton, "run", "--name", "g1", "--",
                            args.glxgears], env), \
                    Client([args.baton, "run", "--name", "g2", "--",
                            args.glxgears], env):
                d.wait_tenants(["g1", "g2"], 20)
                pids = {n: t["pid"] for n, t in d.tenants().items()}
                for name in ("g1", "g2"):
                    kernel.add(name, pids[name], 0.1, 1024)
                kernel.thread.start()
                encoder_phase(d, kernel, args.baton, env)
                vram_phase(d, kernel, args.baton, env)
                check_reports(d, args.baton, env, hist)
                kernel.stop.set()
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
