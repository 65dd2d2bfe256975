"""The bed of the hostile-user tests: a real batond (as root) on a private
socket in a directory every user can reach, and helpers to act against it
as an unprivileged local user (uid/gid 65534, no supplementary groups,
through setpriv), to watch whether it still answers, and to run a
well-behaved game (glxgears under `baton run` on a private Xvfb) beside
the attack. Standard library only; the daemon and client plumbing comes
from the daemon end-to-end tests (tests/e2e/daemon/batonbed.py).

Tests built on it exit 0 pass, 1 fail, 77 skipped (not root, or setpriv
missing)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
from batonbed import Batond, Fail, check  # noqa: E402,F401
from glharness import Client, Xvfb, gears_fps  # noqa: E402,F401

NOBODY = 65534
SKIP = 77


def skip_unless_root():
    """Exit 77 unless the test can drop to another user."""
    if os.geteuid() != 0:
        print("SKIP: hostile-user tests need root (to run batond as root "
              "and the attacker as uid %d)" % NOBODY)
        sys.exit(SKIP)
    if not shutil.which("setpriv"):
        print("SKIP: setpriv (util-linux) not found")
        sys.exit(SKIP)


def game_test_args(doc):
    """The command line of a test that runs a well-behaved game beside
    its attack (--baton, --batond, --xvfb, --glxgears), or None, said, when
    the test cannot run here (not root, setpriv, Xvfb or glxgears
    missing): the caller returns SKIP."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--xvfb", default="Xvfb")
    p.add_argument("--glxgears", default="glxgears")
    args = p.parse_args()
    skip_unless_root()
    for prog in (args.xvfb, args.glxgears):
        if not shutil.which(prog):
            print("SKIP: %s not found (packages xvfb, mesa-utils)" % prog)
            return None
    return args


def as_nobody(argv):
    """argv run as uid/gid 65534 with no supplementary groups."""
    return ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
            "--clear-groups", "--"] + list(argv)


def nobody_python(code, env=None, **kw):
    """Starts `python3 -c code` as nobody (a Popen): the attacker. The
    child's stdout/stderr are pipes unless given."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(as_nobody([sys.executable, "-c", code]),
                            env=env, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True, **kw)


class Bed:
    """A private directory every user can enter (0755, owned by root) that
    holds batond's socket; batond runs as root with the given arguments.

        with Bed(baton, batond, ["--policy", "sa"]) as bed:
            bed.daemon.status(); bed.sock; bed.env
    """

    def __init__(self, baton, batond, args=(), env=None):
        self.baton, self.batond, self.args = baton, batond, list(args)
        self.tmp = tempfile.mkdtemp(prefix="baton-hostile-")
        os.chmod(self.tmp, 0o755)
        self.run_dir = os.path.join(self.tmp, "run")
        os.mkdir(self.run_dir, 0o755)
        os.chmod(self.run_dir, 0o755)
        self.sock = os.path.join(self.run_dir, "batond.sock")
        self.env = dict(env if env is not None else os.environ)
        self.env["BATON_SOCKET"] = self.sock
        self.daemon = Batond(batond, baton, self.sock, self.args, self.env)

    def __enter__(self):
        self.daemon.start()
        return self

    def __exit__(self, *exc):
        if self.daemon.alive():
            self.daemon.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)
        return False

    def log_tail(self, n=20):
        return "\n".join(self.daemon.log[-n:])


def rss_kb(pid):
    """Resident set of a process, in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


class Responsiveness:
    """Asks batond for its status as root every `period` s in the
    background and keeps the slowest answer (a timed-out or failed one
    counts as `timeout`): whether an admin is still served while an attack
    runs. `worst` and `failures` after stop()."""

    def __init__(self, daemon, period=0.25, timeout=5.0):
        self.daemon, self.period, self.timeout = daemon, period, timeout
        self.worst = 0.0
        self.samples = 0
        self.failures = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                self.daemon.status(timeout=self.timeout)
            except Fail as e:
                self.failures.append(str(e))
            dt = time.monotonic() - t0
            self.worst = max(self.worst, dt)
            self.samples += 1
            self._stop.wait(max(0.0, self.period - dt))

    def __str__(self):
        return "status answered %d times, slowest %.3f s, %d failed" % (
            self.samples, self.worst, len(self.failures))


def game(bed, x, glxgears="glxgears", name="game", sla=30):
    """A well-behaved game (root's glxgears under `baton run`) on the
    private X server x; a Client to use in a with statement, whose
    gears_fps() reads its rate."""
    env = x.env(BATON_SOCKET=bed.sock)
    return Client([bed.baton, "run", "--name", name, "--sla", str(sla),
                   "--", glxgears], env)


def target_of(bed, name):
    """The target batond gives the tenant called name (None if absent)."""
    for t in bed.daemon.status()["tenants"]:
        if t["name"] == name:
            return t["target_fps"]
    return None
