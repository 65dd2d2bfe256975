"""Shared pieces of the OpenGL end-to-end tests: the private Xvfb (the one
of tests/e2e/xvfb.py) with the clients' environment, clients started in
their own process group and always reaped, and readers for what they
print. Standard library only."""

import os
import re
import signal
import subprocess
import sys
import threading
import time

# The X server is every end-to-end area's: tests/e2e/xvfb.py. The source
# tree must stay free of __pycache__.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import xvfb  # noqa: E402
from xvfb import kill_group  # noqa: E402,F401  (batonbed uses it from here)

# Environment every GL client gets: software rendering, no vsync (Mesa
# would sync glxgears to a 60 Hz fake refresh otherwise), and nothing of
# Baton inherited from whoever runs the tests.
SCRUBBED = ("LD_PRELOAD", "BATON_FPS", "BATON_SLA", "BATON_CAP",
            "BATON_NAME", "BATON_DISABLE", "BATON_LOG", "BATON_SOCKET",
            "BATON_SPIN_US", "BATON_SHIM_PATH", "MANGOHUD",
            "MANGOHUD_CONFIG")


class Fail(Exception):
    """A test assertion: reported as FAIL with its message."""


class Inconclusive(Exception):
    """The machine was too busy to measure: reported as SKIP (exit 77)."""


def check(cond, message):
    if not cond:
        raise Fail(message)


def terminate_on_sigterm():
    """meson test kills a test that runs past its timeout with SIGTERM;
    turning that into SystemExit lets every finally: clause clean up."""
    def handler(signum, frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, handler)


class Xvfb(xvfb.Xvfb):
    """The shared private X server (tests/e2e/xvfb.py), with the GL
    clients' environment, and a server that does not start reported as a
    test failure."""

    def __enter__(self):
        try:
            return super().__enter__()
        except xvfb.XvfbError as e:
            raise Fail(str(e)) from None

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        env.update(DISPLAY=self.display, LIBGL_ALWAYS_SOFTWARE="1",
                   vblank_mode="0")
        env.update(extra)
        return env


class Client:
    """A GL client in its own process group, its output collected line by
    line in the background."""

    def __init__(self, argv, env):
        self.argv = argv
        self.env = env
        self.proc = None
        self.lines = []
        self._eof = False
        self._cond = threading.Condition()

    def __enter__(self):
        self.proc = subprocess.Popen(
            self.argv, env=self.env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, text=True, errors="replace")
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def __exit__(self, *exc):
        kill_group(self.proc)
        return False

    def _read(self):
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def wait_lines(self, pattern, count, timeout):
        """The first `count` lines matching pattern (a compiled regex), as
        match objects; fails if they do not come in time."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [m for m in map(pattern.search, self.lines) if m]
                if len(found) >= count:
                    return found[:count]
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    raise Fail("expected %d lines matching %r from %s, got "
                               "%d; output:\n%s" % (
                                   count, pattern.pattern, self.argv[0],
                                   len(found), self.output()))
                self._cond.wait(min(left, 0.5))

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Fail("%s did not exit within %.0f s; output:\n%s" % (
                self.argv[0], timeout, self.output()))

    def output(self):
        with self._cond:
            return "\n".join(self.lines[-40:])


GEARS_LINE = re.compile(r"(\d+) frames in ([\d.]+) seconds = ([\d.]+) FPS")


def gears_fps(client, count, timeout):
    """The FPS of glxgears' first `count` five-second lines."""
    return [float(m.group(3))
            for m in client.wait_lines(GEARS_LINE, count, timeout)]


def shim_state(pid):
    """(thread, memfd): whether the shim's registration thread runs in pid
    and whether its shared memory is open there."""
    thread = memfd = False
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                thread |= f.read().strip() == "baton-shim"
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            memfd |= target.startswith("/memfd:baton-tenant")
    except OSError:
        pass
    return thread, memfd


CLK_TCK = os.sysconf("SC_CLK_TCK")


def _ticks(path, first, count):
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[-1].split()
    return sum(int(v) for v in fields[first:first + count])


class Share:
    """A process's share of the device on a software rasterizer, measured
    by the kernel, not by the shim: its CPU time (every thread's, utime +
    stime) over the wall time and the cores it may run on, the unit of the
    GPU time the shim reports there (docs/shim.md)."""

    def __init__(self, pid):
        self.pid = pid
        self.cores = len(os.sched_getaffinity(pid))
        self.start = self._sample()

    def _sample(self):
        return time.monotonic(), _ticks("/proc/%d/stat" % self.pid, 11, 2)

    def fraction(self):
        t1, c1 = self._sample()
        t0, c0 = self.start
        return (c1 - c0) / CLK_TCK / ((t1 - t0) * self.cores)


class Noise:
    """How much of the machine was not ours while a test measured: CPU
    time the hypervisor stole (/proc/stat) plus CPU used by processes
    other than the given ones, as a fraction of all CPU time. A shared VM
    can make a frame rate miss by several percent; a test then reports
    that it could not measure, not that the pacer failed."""

    def __init__(self, pids):
        self.pids = [p for p in pids if p]
        self.start = self._sample()

    def _sample(self):
        with open("/proc/stat") as f:
            cpu = [int(v) for v in f.readline().split()[1:]]
        busy = sum(cpu[:3]) + sum(cpu[4:7])  # user nice system irq softirq
        ours = 0
        for pid in self.pids:
            try:
                # utime stime cutime cstime: fields 14-17, after comm
                ours += _ticks("/proc/%d/stat" % pid, 11, 4)
            except OSError:
                pass
        return time.monotonic(), cpu[7], busy - ours

    def fraction(self):
        t1, steal1, other1 = self._sample()
        t0, steal0, other0 = self.start
        total = (t1 - t0) * CLK_TCK * os.cpu_count()
        return max(0.0, (steal1 - steal0) + (other1 - other0)) / total
