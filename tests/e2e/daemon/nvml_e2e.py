#!/usr/bin/env python3
"""NVML accounting end to end: two glxgears games on llvmpipe under a real
batond that loads the stub libnvidia-ml (tests/unit/daemon/stub_nvml.c and
stub_nvml_procs.c, NVML's documented calls and structs) through
LD_LIBRARY_PATH, the way it would load the driver's. batond's one GPU is
the stub's first device, named by its NVML UUID in the config, so batond
knows it as a hardware GPU and its tenants' GPU time can only come from
NVML (the games hold no DRM fds on Xvfb) or their shims.

The test plays the driver: every 50 ms it writes the stub's script, where
each game's SM utilization is FACTOR x its real CPU rate (game "heavy" 6,
"light" 1), and integrates that as the fake's busy time.

The checks, on measurements of the same run:
- status names the source of both ("gpu_source": "nvml") and batond logs
  once for each that NVML counts it;
- the controller's k follows NVML: within 30 % of the fake's busy time per
  frame, heavy several times light while the swap durations are alike;
- ESA's common rate is at most U / sum k of the accounted k.
Then the stub's device utilization says 30 points more than the games'
(a load that belongs to no tenant): the GPU's other_util reads about
0.30 and ESA's allotment (common rate x sum k) shrinks by it."""

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
OTHER = 30  # points of device utilization no tenant accounts for
UUID = "GPU-6a1c4f2e-0000-1111-2222-333344445551"  # the stub's device 0
SETTLE_S = 8.0
WINDOW_S = 5.0


class FakeDriver:
    """Writes the stub's script every 50 ms: each game's SM percent from
    its CPU rate over the last 0.25 s, x FACTOR; the device's utilization
    as their sum plus `extra` points."""

    def __init__(self, path):
        self.path = path
        self.games = {}  # name -> [pid, factor, [(t, cpu)...]]
        self.busy = {}  # name -> fake busy s since added
        self.other = 0.0  # device busy s no game's, integrated
        self.extra = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def add(self, name, pid, factor):
        self.games[name] = [pid, factor, []]
        self.busy[name] = 0.0

    def sm_of(self, name, now):
        pid, factor, hist = self.games[name]
        cpu = cpu_seconds(pid)
        if cpu is None:
            return 0
        hist.append((now, cpu))
        while len(hist) > 2 and now - hist[1][0] >= 0.25:
            hist.pop(0)
        t0, c0 = hist[0]
        rate = (cpu - c0) / (now - t0) if now > t0 else 0.0
        return max(0, min(100, int(round(factor * rate * 100))))

    def write(self, sms):
        """The script; returns the device's points no game has (a
        device is at most 100 % busy)."""
        lines = ["period_us 50000"]
        total = 0
        for name, sm in sms.items():
            lines.append("proc 0 %d %d %d graphics" % (
                self.games[name][0], sm, 64 << 20))
            total += sm
        util = min(100, total + self.extra)
        lines.append("util 0 %d" % util)
        with open(self.path + ".new", "w") as f:
            f.write("\n".join(lines) + "\n")
        os.rename(self.path + ".new", self.path)
        return max(0, util - total)

    def run(self):
        last, sms, other = time.monotonic(), {}, 0
        while not self.stop.is_set():
            now = time.monotonic()
            for name, sm in sms.items():
                self.busy[name] += sm / 100.0 * (now - last)
            self.other += other / 100.0 * (now - last)
            sms = {name: self.sm_of(name, now) for name in self.games}
            try:
                other = self.write(sms)
            except OSError:
                return  # the test is over: its folder is gone
            last = now
            time.sleep(0.05)


def sample(d, driver):
    return time.monotonic(), d.status(), dict(driver.busy), driver.other


def check_nvml(a, b):
    """k from NVML against the fake's; ESA's rate against U / sum k.
    Returns (sum k, common rate, other_util)."""
    ks, _, gpu = check_k_follows(a, b, FACTORS, "nvml",
                                 "the fake NVML")
    common, other = gpu["common_fps"], gpu["other_util"]
    f_acct = (UTIL_TARGET - other) / sum(ks.values())
    print("ESA common rate %.1f FPS; U / sum k %.1f (other_util %.3f)" % (
        common, f_acct, other))
    check(common <= 1.25 * f_acct,
          "common rate %.1f above U / sum k %.1f" % (common, f_acct))
    return sum(ks.values()), common, other


def check_logged(d):
    logged = [ln for ln in d.log if "NVML's count" in ln]
    print("batond:", "\n        ".join(logged))
    for name in FACTORS:
        check(sum(1 for ln in logged if '"%s"' % name in ln) == 1,
              "%s: not one line when NVML started counting it" % name)


def main():
    terminate_on_sigterm()
    args = gears_args(__doc__, "stub-nvml")
    try:
        with tempfile.TemporaryDirectory(prefix="baton-nvml-") as tmp, \
                Xvfb(args.xvfb) as x:
            libdir = os.path.join(tmp, "lib")
            os.mkdir(libdir)
            os.symlink(os.path.abspath(args.stub_nvml),
                       os.path.join(libdir, "libnvidia-ml.so.1"))
            script = os.path.join(tmp, "nvml.script")
            driver = FakeDriver(script)
            driver.write({})
            cfg = os.path.join(tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write('policy = "esa";\ngpus = ( { name = "gpu0"; '
                        'device = "%s"; } );\n' % UUID)
            sock = os.path.join(tmp, "batond.sock")
            env = x.env(BATON_SOCKET=sock)
            d = Batond(args.batond, args.baton, sock,
                       ["--config", cfg, "--sla", "30"], env)
            d.env["BATON_LOG"] = "info"
            d.env["LD_LIBRARY_PATH"] = libdir
            d.env["BATON_STUB_NVML_SCRIPT"] = script
            with d, \
                    Client([args.baton, "run", "--name", "heavy", "--",
                            args.glxgears], env), \
                    Client([args.baton, "run", "--name", "light", "--",
                            args.glxgears], env):
                d.wait_tenants(list(FACTORS), 20)
                pids = {n: t["pid"] for n, t in d.tenants().items()}
                for name, factor in FACTORS.items():
                    driver.add(name, pids[name], factor)
                driver.thread.start()
                wait_for("both games counted by NVML", lambda: all(
                    t["gpu_source"] == "nvml"
                    for t in d.status()["tenants"]), 10)
                time.sleep(SETTLE_S)
                a = sample(d, driver)
                time.sleep(WINDOW_S)
                sum_k1, common1, other1 = check_nvml(a, sample(d, driver))
                check(other1 < 0.1, "other_util %.3f with no other load"
                      % other1)
                check_logged(d)

                driver.extra = OTHER
                time.sleep(SETTLE_S)
                a = sample(d, driver)
                time.sleep(WINDOW_S)
                b = sample(d, driver)
                sum_k2, common2, other2 = check_nvml(a, b)
                fake_other = (b[3] - a[3]) / (b[0] - a[0])
                print("other_util %.3f; the device's time no game had: "
                      "%.3f" % (other2, fake_other))
                check(fake_other > 0.15, "the fake's other load %.3f is "
                      "too small to show anything" % fake_other)
                check(abs(other2 - fake_other) <= 0.08,
                      "other_util %.3f is not the device's time no "
                      "tenant accounts for (%.3f)" % (other2, fake_other))
                allot1, allot2 = common1 * sum_k1, common2 * sum_k2
                print("ESA's allotment (common rate x sum k): %.3f, then "
                      "%.3f beside the other load" % (allot1, allot2))
                check(allot2 < allot1 - 0.5 * other2,
                      "ESA's allotment did not shrink by other_util")
    except (Fail, subprocess.TimeoutExpired) as e:
        print("FAIL:", e)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
