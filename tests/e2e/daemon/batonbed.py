"""The test bed of the daemon end-to-end tests: a real batond on a private
socket, real clients under `baton run` on a private Xvfb, and readers for
what they all report. Standard library only.

The X server is every end-to-end area's (tests/e2e/xvfb.py); it comes,
with the GL clients' environment, the process-group handling and the
client output readers, from the OpenGL tests' tests/e2e/gl/glharness.py.
This adds batond, the swap probe's frame timestamps, glmark2's reports and
CPU accounting."""

import argparse
import json
import os
import resource
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gl"))
from glharness import (Client, Fail, Xvfb, check, gears_fps,  # noqa: E402,F401
                       kill_group, terminate_on_sigterm)

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Batond:
    """batond in its own process group on a private socket, with its
    metrics endpoint on an ephemeral port. start() may be called again
    after kill9() or stop(): the same socket, a new process. If the
    metrics port cannot be bound (args may name one), batond runs without
    metrics: metrics_url stays None and `warnings` holds the line."""

    def __init__(self, exe, baton, sock, args, env=None):
        self.exe = exe
        self.baton = baton
        self.sock = sock
        self.args = list(args)
        self.env = dict(env if env is not None else os.environ)
        self.env.pop("BATON_LOG", None)
        self.env["BATON_SOCKET"] = sock
        self.proc = None
        self.metrics_url = None
        self.warnings = []
        self.log = []

    def start(self, timeout=10.0):
        argv = [self.exe, "--socket", self.sock, "--metrics", "127.0.0.1:0"]
        argv += self.args
        self.metrics_url = None
        self.proc = subprocess.Popen(
            argv, env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            errors="replace", start_new_session=True)
        ready = threading.Event()
        proc = self.proc

        def read():
            for line in proc.stderr:
                self.log.append(line.rstrip("\n"))
                m = re.search(r"metrics on (http://\S+)", line)
                if m:
                    self.metrics_url = m.group(1)
                    ready.set()
                elif "running without metrics" in line:
                    self.warnings.append(line.rstrip("\n"))
                    ready.set()
            ready.set()
        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + timeout
        check(ready.wait(timeout), "batond did not report its metrics "
              "endpoint in %.0f s" % timeout)
        check(self.metrics_url or (self.warnings and self.alive()),
              "batond exited at start:\n%s" % "\n".join(self.log[-20:]))
        # The metrics line comes after the socket is bound; a status
        # request proves it answers.
        while True:
            try:
                self.status()
                return self
            except Fail:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        """SIGKILL, as a crash: no cleanup, the socket file stays."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        kill_group(self.proc)

    def status(self, timeout=5.0):
        """`baton status --json`, parsed."""
        try:
            r = subprocess.run([self.baton, "status", "--json"],
                               env=self.env, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Fail("baton status --json took over %.0f s" % timeout)
        if r.returncode != 0:
            raise Fail("baton status --json exited %d: %s" % (
                r.returncode, r.stderr.strip()))
        return json.loads(r.stdout)

    def tenants(self):
        return {t["name"]: t for t in self.status()["tenants"]}

    def metrics(self):
        with urllib.request.urlopen(self.metrics_url, timeout=5) as r:
            return r.read().decode()

    def wait_tenants(self, names, timeout):
        """Polls status until every name is registered; returns the
        seconds it took."""
        t0 = time.monotonic()
        while True:
            have = set(self.tenants())
            if set(names) <= have:
                return time.monotonic() - t0
            if time.monotonic() - t0 > timeout:
                raise Fail("tenants %s not all registered after %.1f s "
                           "(have %s)" % (sorted(names), timeout,
                                          sorted(have)))
            time.sleep(0.02)


def write_config(path, **params):
    """A batond --config file with a params group."""
    with open(path, "w") as f:
        f.write("params = {\n")
        for k, v in params.items():
            f.write("  %s = %r;\n" % (k, float(v)))
        f.write("};\n")
    return path


def read_probe(path):
    """The frame timestamps (CLOCK_MONOTONIC ns) bench/swap_probe.c
    wrote."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    if len(data) < 8:
        return []
    n = struct.unpack_from("<Q", data)[0]
    return list(struct.unpack_from("<%dq" % n, data, 8))


def cpu_seconds(pid):
    """utime + stime of every thread of pid; None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


# The most host steal any Steal block of this process saw: a timing check
# that fails while the hypervisor took more than STEAL_SKIP of the CPU is
# reported as skipped (exit 77), not failed (daemon_e2e.main).
MAX_STEAL = [0.0]
STEAL_SKIP = 0.05


class TimingFail(Fail):
    """A frame-rate or stall check failed: the machine may be to blame."""


def timing_verdict(e):
    """Exit status for a timing check that failed: skipped (77), naming the
    steal, while the host stole more than STEAL_SKIP of the CPU during the
    test (its frame rates cannot be judged); failed (1) otherwise."""
    if MAX_STEAL[0] > STEAL_SKIP:
        print("SKIP: %s, while the host stole %.0f%% of the CPU: the "
              "frame rates cannot be judged" % (e, MAX_STEAL[0] * 100))
        return 77
    print("FAIL:", e)
    return 1


def scratch_dir(prefix):
    """A folder for a test's sockets, configs and logs, open (0755) to
    the clients it runs as other users; scratch_done disposes of it."""
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    return d


def scratch_done(d, rc):
    """After a run that exits rc: d removed if it passed or was skipped
    (0, 77), kept and named if it failed, for its logs."""
    if rc in (0, 77):
        shutil.rmtree(d, ignore_errors=True)
    else:
        print("its files are kept in %s" % d)
    return rc


def check_timing(cond, message):
    if not cond:
        raise TimingFail(message)


class Steal:
    """Share of this VM's CPU time the hypervisor gave to others (and the
    busy share) over the with block, from /proc/stat: a noisy host is
    reported next to every number it spoils. With `xvfb` (a pid), also the
    cores that processes other than this test's used on average: this
    process, its reaped children (call stop() after reaping them) and the
    X server are the test's; the rest is other people's work."""

    def __init__(self, xvfb=None):
        self.xvfb = xvfb

    @staticmethod
    def _ours():
        t = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            r = resource.getrusage(who)
            t += r.ru_utime + r.ru_stime
        return t

    @staticmethod
    def _read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v

    def __enter__(self):
        self.t0 = time.monotonic()
        self.a = self._read()
        self.ours0 = self._ours()
        self.x0 = cpu_seconds(self.xvfb) if self.xvfb else None
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self):
        b = self._read()
        d = [y - x for x, y in zip(self.a, b)]
        total = sum(d[:8]) or 1
        self.steal = d[7] / total
        MAX_STEAL[0] = max(MAX_STEAL[0], self.steal)
        self.idle = (d[3] + d[4]) / total
        self.others = None
        if self.x0 is not None:
            busy = (d[0] + d[1] + d[2] + d[5] + d[6]) / CLK_TCK
            ours = self._ours() - self.ours0 + (
                (cpu_seconds(self.xvfb) or self.x0) - self.x0)
            self.others = max(busy - ours, 0.0) / (time.monotonic() -
                                                   self.t0)
        return self

    def __str__(self):
        if not hasattr(self, "steal"):
            self.stop()
        s = "host steal %.0f%%, idle %.0f%%" % (self.steal * 100,
                                                self.idle * 100)
        if self.others is not None:
            s += ", other processes %.2f cores" % self.others
        return s


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


GLMARK2_LINE = re.compile(
    r"\[(\w+)\] (\S+): FPS: (\d+) FrameTime: ([\d.]+) ms")


class Glmark2(Client):
    """One glmark2 scene; its report is read back as FPS from the exact
    frame time (glmark2 rounds the FPS it prints)."""

    def fps(self, timeout):
        m = self.wait_lines(GLMARK2_LINE, 1, timeout)[0]
        return 1000.0 / float(m.group(4))


def busy_share(seconds=1.0):
    """Share of this VM's CPU time that was busy (or stolen) over the
    next `seconds`."""
    s = Steal().__enter__()
    time.sleep(seconds)
    s.stop()
    return 1.0 - s.idle


def wait_quiet(limit_s, threshold=0.25):
    """Waits up to limit_s for the machine to be quiet (others'
    benchmarks share it): busy under threshold over one second. Returns
    (quiet, busy share last seen); the caller reports it either way."""
    deadline = time.monotonic() + limit_s
    while True:
        busy = busy_share()
        if busy < threshold or time.monotonic() >= deadline:
            return busy < threshold, busy


def cpu_list(cpus):
    """The kernel's list form of a set of CPU numbers ("0", "1-3")."""
    cpus = sorted(cpus)
    runs, start = [], cpus[0]
    for a, b in zip(cpus, cpus[1:] + [None]):
        if b != a + 1:
            runs.append(str(start) if start == a else "%d-%d" % (start, a))
            start = b
    return ",".join(runs)


def thread_cpus(pid):
    """The Cpus_allowed_list of every thread of pid (a set of strings),
    but Mesa's disk cache thread ("...:disk$0"), which sets its own
    affinity to every CPU: it compiles shaders into the cache, it does
    not render."""
    out = set()
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, task)) as f:
                if ":disk$" in f.read():
                    continue
            with open("/proc/%d/task/%s/status" % (pid, task)) as f:
                for line in f:
                    if line.startswith("Cpus_allowed_list:"):
                        out.add(line.split(":", 1)[1].strip())
        except OSError:
            pass  # a thread that ended meanwhile
    return out


def child_or_self(root):
    """The program under `baton run` (its child, else itself)."""
    try:
        with open("/proc/%d/task/%d/children" % (root, root)) as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        kids = []
    return kids[0] if kids else root


def wait_for(what, cond, timeout):
    """cond()'s first true value, polled every 0.2 s; Fail after
    timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        check(time.monotonic() < deadline,
              "%s within %.0f s" % (what, timeout))
        time.sleep(0.2)


def check_k_follows(a, b, names, source, fake):
    """The games' k follow an accounting source, not their swap claims:
    a and b are (time, status, fake busy seconds by name, ...) samples;
    each of names must have gpu_source `source` and k within 30 % of the
    fake's busy seconds a frame, "heavy" over "light" more than 3x while
    their swap claims differ less than 2x. Returns (k, claimed k) by
    name and the status's first GPU."""
    t0, _, busy0 = a[:3]
    t1, st, busy1 = b[:3]
    games = {t["name"]: t for t in st["tenants"]}
    ks, ks_claim = {}, {}
    for name in names:
        g = games[name]
        check(g["gpu_source"] == source, "%s: gpu_source %s, not %s" % (
            name, g["gpu_source"], source))
        fps = g["fps"]
        check(fps > 0, "%s has no frame rate" % name)
        fake_k = (busy1[name] - busy0[name]) / (t1 - t0) / fps
        ks[name] = g["k_ms"] * 1e-3
        ks_claim[name] = g["claimed_share"] / fps
        print("%-5s fps %6.1f  k %6.2f ms (%s %6.2f ms)  share %.3f  "
              "swap claim %.3f (%.2f ms a frame)" % (
                  name, fps, ks[name] * 1e3, fake, fake_k * 1e3,
                  g["gpu_share"], g["claimed_share"], ks_claim[name] * 1e3))
        check(abs(ks[name] - fake_k) <= 0.3 * fake_k,
              "%s: k %.2f ms is not %s's %.2f ms" % (
                  name, ks[name] * 1e3, fake, fake_k * 1e3))
    ratio = ks["heavy"] / ks["light"]
    claim_ratio = ks_claim["heavy"] / ks_claim["light"]
    print("k heavy / light: %.2f (swap claims: %.2f)" % (ratio, claim_ratio))
    check(ratio > 3.0, "k heavy / light %.2f: not %s's" % (ratio, fake))
    check(claim_ratio < 2.0, "the swap claims differ %.2f x already: the "
          "test shows nothing" % claim_ratio)
    return ks, ks_claim, st["gpus"][0]


def gears_args(doc, *required):
    """The command line of a test that runs glxgears under batond:
    --baton, --batond and each of required (all required), --xvfb and
    --glxgears (found on PATH by default). Unknown options are ignored,
    as meson may pass more."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    for name in ("baton", "batond") + required:
        p.add_argument("--" + name, required=True)
    p.add_argument("--xvfb", default="Xvfb")
    p.add_argument("--glxgears", default="glxgears")
    return p.parse_known_args()[0]
