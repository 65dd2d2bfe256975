"""uid 65534 against a root batond's event loop.

  linger   a TCP socket with SO_LINGER {1, 20} and a full send buffer,
           passed through SCM_RIGHTS with one byte and no hello, the
           attacker's copy closed at once. Before: the loop
           blocked in close() for the linger's 20 s.
  unread   1000 connections that send a hello, then 32 kB of status
           requests whenever the socket takes more, and never read the
           "denied" replies; closed ones are reopened. Before: 1 MiB of replies queued per
           connection, RSS past a gigabyte, 100 % CPU.
  idle     1024 connections that never say hello. Before: the
           connection cap reached, root's admin and new games refused, no
           deadline. Now: the per-uid cap refuses the extra with a reason
           and the deadline closes the rest.
  emfile   batond started under RLIMIT_NOFILE 64 and 300 idle connections.
           Before: accept() failed with EMFILE on every
           wake-up, 100 % CPU and a log line each time. Now: the caps
           follow the limit and refusals are logged once a second.

Throughout each: root's `baton status` answers within 1 s; with --xvfb
and --glxgears, a well-behaved game (glxgears, SLA 30) runs beside the
linger and unread attacks and keeps at least 85 % of its target. Bounds, all
against what the same run measured: batond's RSS grows by less than
64 MiB under any attack; its CPU time over the emfile window is under half
the window; its log over that window is under 30 lines (a second's
refusals are one line).

Usage: loop_attacks.py --baton B --batond D [--xvfb X --glxgears G]
                       [MODE...] (default: all)
Exit 0 pass, 1 fail, 77 skipped (not root)."""
import argparse
import contextlib
import fcntl
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import (Bed, Fail, Responsiveness, Xvfb, as_nobody,  # noqa
                     check, game, rss_kb, skip_unless_root)
from batonbed import cpu_seconds  # noqa: E402

RSS_GROWTH_MAX_KB = 64 * 1024
STATUS_MAX_S = 1.0
# SIGTERM to exit with a lingering close stuck in the closer: its 1 s grace
# and the rest of the shutdown.
EXIT_MAX_S = 3.0

# The attacker's side, run as uid 65534: raises its own descriptor limit
# (inherited from root's test) and prints one "key value" line per fact.
ATTACKER_PRELUDE = r"""
import os, resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
SOCK = sys.argv[1]
HELLO = b'{"type":"hello","version":1,"role":"client"}\n'
def say(k, v):
    print(k, v, flush=True)
"""

LINGER = ATTACKER_PRELUDE + r"""
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.socket()
c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
c.connect(l.getsockname())
srv, _ = l.accept()
c.setblocking(False)
idle = 0
while idle < 20:
    try:
        c.send(b"x" * 4096); idle = 0
    except BlockingIOError:
        idle += 1; time.sleep(0.005)
c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
             (1).to_bytes(4, "little") + (20).to_bytes(4, "little"))
u = socket.socket(socket.AF_UNIX)
u.connect(SOCK)
socket.send_fds(u, [b"x"], [c.fileno()])
c.close(); u.close()
say("passed", 1)
time.sleep(float(sys.argv[2]))  # holds the server end: the linger lasts
srv.close()
"""

UNREAD = ATTACKER_PRELUDE + r"""
N, T = int(sys.argv[2]), float(sys.argv[3])
REQ = b'{"type":"status"}\n' * 1800  # 32 kB
socks, opened, failed = [], 0, 0
def fill():
    global opened, failed
    while len(socks) < N:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(0.2)
        try:
            s.connect(SOCK); s.sendall(HELLO); opened += 1
        except OSError:
            failed += 1; s.close(); return
        s.setblocking(False); socks.append(s)
end = time.monotonic() + T
sent = 0
while time.monotonic() < end:
    fill()
    for s in list(socks):
        try:
            s.send(REQ); sent += 1
        except BlockingIOError:
            pass
        except OSError:  # closed by batond: reconnect on the next round
            socks.remove(s); s.close()
    time.sleep(0.05)
say("opened", opened)
say("sent", sent)
"""

IDLE = ATTACKER_PRELUDE + r"""
N, T = int(sys.argv[2]), float(sys.argv[3])
socks, refusals, other = [], 0, 0
deadline = time.monotonic() + 5.0
while len(socks) < N and time.monotonic() < deadline:
    s = socket.socket(socket.AF_UNIX)
    s.setblocking(False)
    try:
        s.connect(SOCK)
    except OSError:  # the listen backlog is full: let batond catch up
        s.close(); time.sleep(0.01); continue
    socks.append(s)
say("connected", len(socks))
time.sleep(0.3)
for s in socks:
    try:
        line = s.recv(4096)
    except BlockingIOError:
        continue
    except OSError:
        line = b""
    if b"max_conns_per_uid" in line:
        refusals += 1
    elif line:
        other += 1
say("refused_per_uid", refusals)
say("other_replies", other)
time.sleep(T)
"""


def attacker_facts(proc, timeout):
    out, err = proc.communicate(timeout=timeout)
    facts = {}
    for line in out.splitlines():
        k, _, v = line.partition(" ")
        facts[k] = v
    if proc.returncode not in (0, None):
        raise Fail("attacker exited %d: %s" % (proc.returncode,
                                                err.strip()[-500:]))
    return facts


def shm_memfd():
    """A sealed memfd laid out as ipc/shm.h wants (a fake game's)."""
    size = 3 * 64 + 256 * 64
    fd = os.memfd_create("baton-test", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    os.pwrite(fd, struct.pack("<QIIQ6I2Q", 0x31534d484e544142, 1, 64, size,
                              64, 128, 192, 64, 256, os.getpid(), 0, 0), 0)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK |
                fcntl.F_SEAL_GROW)
    return fd


def register_tenant(sock, name):
    """Registers a quiet tenant as root; its reply line."""
    fd = shm_memfd()
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(2.0)
    try:
        s.connect(sock)
        hello = ('{"type":"hello","version":1,"role":"tenant","name":"%s"}\n'
                 % name).encode()
        socket.send_fds(s, [hello], [fd])
        return s.recv(4096).decode(errors="replace").strip()
    except OSError as e:
        return "failed: %s" % e
    finally:
        s.close()
        os.close(fd)


@contextlib.contextmanager
def beside(a, bed):
    """A well-behaved game (glxgears under `baton run`, SLA 30) on a
    private Xvfb while the attack runs, when --xvfb and --glxgears are
    given; yields whether there is one."""
    if not (a.xvfb and a.glxgears):
        yield False
        return
    with Xvfb(a.xvfb) as x, game(bed, x, a.glxgears):
        bed.daemon.wait_tenants(["game"], 15)
        time.sleep(1.5)  # a second of frames at its target
        yield True


def watch(bed, seconds, with_game=False):
    """Samples batond's RSS while root asks for status, and the game's
    rate against its target once a second; (peak RSS KiB, Responsiveness,
    lowest fps / target of the game or None)."""
    pid = bed.daemon.proc.pid
    peak = rss_kb(pid)
    worst_ratio = None
    with Responsiveness(bed.daemon, period=0.2, timeout=5.0) as r:
        t0 = time.monotonic()
        end = t0 + seconds
        next_game = t0 + 1.0
        while time.monotonic() < end:
            peak = max(peak, rss_kb(pid))
            if with_game and time.monotonic() >= next_game:
                next_game += 1.0
                try:
                    g = bed.daemon.tenants().get("game")
                except Fail:
                    g = None
                ratio = (g["fps"] / g["target_fps"]
                         if g and g["target_fps"] > 0 else 0.0)
                worst_ratio = (ratio if worst_ratio is None
                               else min(worst_ratio, ratio))
            time.sleep(0.1)
    return peak, r, worst_ratio


def check_game(name, ratio):
    """The game kept (within 15 %) the rate batond gives it."""
    if ratio is None:
        return
    print("%s: the game ran at >= %.0f%% of its target throughout"
          % (name, ratio * 100))
    check(ratio >= 0.85, "%s: the game fell to %.0f%% of its target"
          % (name, ratio * 100))


def check_clean(name, bed):
    """No sanitizer report in batond's log (a sanitized build)."""
    bad = [l for l in bed.daemon.log
           if "Sanitizer" in l or "runtime error:" in l]
    check(not bad, "%s: batond's log has %s" % (name, bad[:3]))


def check_served(name, r, rss0, peak):
    print("%s: %s; RSS %d -> peak %d KiB" % (name, r, rss0, peak))
    check(not r.failures, "%s: status failed: %s" % (name, r.failures[:2]))
    check(r.worst <= STATUS_MAX_S, "%s: root's status took %.2f s (at most "
          "%.1f s allowed)" % (name, r.worst, STATUS_MAX_S))
    check(peak - rss0 < RSS_GROWTH_MAX_KB, "%s: batond's RSS grew by %d KiB "
          "(bound %d)" % (name, peak - rss0, RSS_GROWTH_MAX_KB))


def mode_linger(a):
    with Bed(a.baton, a.batond) as bed, beside(a, bed) as g:
        rss0 = rss_kb(bed.daemon.proc.pid)
        atk = nobody_python_args(LINGER, [bed.sock, "8"])
        first = atk.stdout.readline().strip()
        check(first == "passed 1", "linger: attacker did not pass its "
              "socket: %r" % first)
        peak, r, ratio = watch(bed, 5.0, g)
        check_clean("linger", bed)
        check_served("linger", r, rss0, peak)
        check_game("linger", ratio)
        # SIGTERM while the attacker still holds the linger (it lets go
        # 8 s after passing it): batond gives its closer 1 s, then exits,
        # where the kernel does not linger.
        t0 = time.monotonic()
        bed.daemon.proc.send_signal(signal.SIGTERM)
        try:
            rc = bed.daemon.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            raise Fail("linger: batond still running 5 s after SIGTERM")
        took = time.monotonic() - t0
        print("linger: SIGTERM to exit %.2f s (rc %d)" % (took, rc))
        check(rc == 0 and took < EXIT_MAX_S, "linger: batond took %.2f s "
              "to exit after SIGTERM (rc %d; bound %.1f s)" % (
                  took, rc, EXIT_MAX_S))
        attacker_facts(atk, 20)


def mode_unread(a):
    with Bed(a.baton, a.batond) as bed, beside(a, bed) as g:
        pid = bed.daemon.proc.pid
        rss0 = rss_kb(pid)
        cpu0, t0 = cpu_seconds(pid), time.monotonic()
        atk = nobody_python_args(UNREAD, [bed.sock, "1000", "10"])
        peak, r, ratio = watch(bed, 10.0, g)
        facts = attacker_facts(atk, 30)
        cpu = (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)
        print("unread: attacker opened %s connections, sent %s batches; "
              "batond used %.0f%% of a core" % (facts.get("opened"),
                                                facts.get("sent"),
                                                cpu * 100))
        check_clean("unread", bed)
        check_served("unread", r, rss0, peak)
        check_game("unread", ratio)


def mode_idle(a):
    with Bed(a.baton, a.batond) as bed:
        rss0 = rss_kb(bed.daemon.proc.pid)
        atk = nobody_python_args(IDLE, [bed.sock, "1024", "6"])
        facts = {}
        for _ in range(3):
            k, _, v = atk.stdout.readline().strip().partition(" ")
            facts[k] = v
        print("idle: attacker connected %s, refused with the per-uid "
              "reason %s, other replies %s" % (
                  facts.get("connected"), facts.get("refused_per_uid"),
                  facts.get("other_replies")))
        peak, r, _ = watch(bed, 3.0)
        reply = register_tenant(bed.sock, "newgame")
        print("idle: a new root tenant got %s" % reply)
        check('"welcome"' in reply, "idle: a new tenant was refused: %s"
              % reply)
        check(int(facts.get("refused_per_uid", 0)) > 0,
              "idle: no connection was refused with the per-uid reason")
        check_clean("idle", bed)
        check_served("idle", r, rss0, peak)
        atk.kill()
        atk.wait()


def mode_emfile(a):
    with Bed(a.baton, a.batond) as bed0:
        # A wrapper that starts batond with 64 descriptors, soft and hard:
        # it cannot raise them.
        wrapper = os.path.join(bed0.tmp, "batond-64")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec prlimit --nofile=64:64 -- '%s' \"$@\"\n"
                    % a.batond)
        os.chmod(wrapper, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP |
                 stat.S_IROTH | stat.S_IXOTH)
        bed0.daemon.stop()
        bed0.daemon.exe = wrapper
        bed0.daemon.start()
        bed = bed0
        pid = bed.daemon.proc.pid
        rss0 = rss_kb(pid)
        log0 = len(bed.daemon.log)
        cpu0, t0 = cpu_seconds(pid), time.monotonic()
        atk = nobody_python_args(IDLE, [bed.sock, "300", "6"])
        peak, r, _ = watch(bed, 5.0)
        window = time.monotonic() - t0
        cpu = cpu_seconds(pid) - cpu0
        time.sleep(0.3)
        lines = len(bed.daemon.log) - log0
        print("emfile: batond used %.2f CPU s over %.2f s, logged %d lines"
              % (cpu, window, lines))
        for line in bed.daemon.log[log0:log0 + 3]:
            print("  log:", line[:160])
        atk.kill()
        atk.wait()
        check_clean("emfile", bed)
        check_served("emfile", r, rss0, peak)
        check(cpu < 0.5 * window, "emfile: batond used %.2f CPU s over a "
              "%.2f s window" % (cpu, window))
        check(lines < 30, "emfile: %d log lines in %.1f s" % (lines, window))


def nobody_python_args(code, args):
    """hostile.nobody_python, with arguments after the code."""
    return subprocess.Popen(as_nobody([sys.executable, "-c", code] + args),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


MODES = {"linger": mode_linger, "unread": mode_unread, "idle": mode_idle,
         "emfile": mode_emfile}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--batond", required=True)
    ap.add_argument("--xvfb", help="with --glxgears: a game beside the "
                    "linger and unread attacks")
    ap.add_argument("--glxgears")
    ap.add_argument("modes", nargs="*", default=list(MODES))
    a = ap.parse_args()
    skip_unless_root()
    failed = []
    for m in a.modes:
        t0 = time.monotonic()
        try:
            MODES[m](a)
            print("PASS %s (%.1f s)" % (m, time.monotonic() - t0))
        except Fail as e:
            print("FAIL %s: %s" % (m, e))
            failed.append(m)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
