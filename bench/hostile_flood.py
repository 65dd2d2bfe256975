"""batond under a hostile local user's load (issue 8), as figures rather than
pass/fail: a root batond on a private socket (tests/e2e/hostile/hostile.py's
bed), then

  churn  root registers and drops tenants as fast as K workers can for T s:
         registrations per second, batond's RSS and descriptors before and
         after (drift).
  flood  uid 65534 holds 1000 connections that send status requests and
         never read (loop_attacks.py's unread attacker) for T s: batond's
         peak RSS, its CPU, the slowest root `baton status`, and the
         longest gap between two ticks as a registered tenant sees them
         (its control block's policy_epoch, read every 5 ms).

Needs root (for the attacker's uid). Usage:
  python3 bench/hostile_flood.py --baton build/src/cli/baton \
      --batond build/src/daemon/batond [--seconds 10] [--workers 4]"""
import argparse
import mmap
import os
import socket
import struct
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e", "hostile"))
from hostile import Bed, Responsiveness, fd_count, rss_kb  # noqa: E402
from batonbed import cpu_seconds  # noqa: E402
import loop_attacks  # noqa: E402

# struct baton_control's policy_epoch: after the 64-byte header, seq (4),
# version (4), target_period_ns (8).
EPOCH_OFFSET = 64 + 16


def register(sock, name):
    """A tenant of root's: (socket, memfd) once welcomed, else None."""
    fd = loop_attacks.shm_memfd()
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5.0)
    try:
        s.connect(sock)
        socket.send_fds(s, [('{"type":"hello","version":1,"role":"tenant",'
                             '"name":"%s"}\n' % name).encode()], [fd])
        if b'"welcome"' in s.recv(4096):
            return s, fd
    except OSError:
        pass
    s.close()
    os.close(fd)
    return None


def churn(bed, seconds, workers):
    pid = bed.daemon.proc.pid
    time.sleep(0.5)
    rss0, fds0 = rss_kb(pid), fd_count(pid)
    counts = [0] * workers
    end = time.monotonic() + seconds

    def work(i):
        while time.monotonic() < end:
            t = register(bed.sock, "churn-%d" % i)
            if t:
                t[0].close()
                os.close(t[1])
                counts[i] += 1
    threads = [threading.Thread(target=work, args=(i,))
               for i in range(workers)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    time.sleep(0.5)  # the last drops
    rss1, fds1 = rss_kb(pid), fd_count(pid)
    print("churn: %d registrations in %.1f s = %.0f/s (%d workers); "
          "RSS %d -> %d KiB (%+d), fds %d -> %d (%+d)" % (
              sum(counts), took, sum(counts) / took, workers, rss0, rss1,
              rss1 - rss0, fds0, fds1, fds1 - fds0))


class TickWatch:
    """The longest wall-clock gap between two changes of a tenant's
    policy_epoch (one per tick)."""

    def __init__(self, memfd):
        self.map = mmap.mmap(memfd, 4096, mmap.MAP_SHARED, mmap.PROT_READ)
        self.longest = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _epoch(self):
        return struct.unpack_from("<Q", self.map, EPOCH_OFFSET)[0]

    def _run(self):
        last, since = self._epoch(), time.monotonic()
        while not self._stop.wait(0.005):
            e = self._epoch()
            now = time.monotonic()
            if e != last:
                self.longest = max(self.longest, now - since)
                last, since = e, now
        self.longest = max(self.longest, time.monotonic() - since)

    def stop(self):
        self._stop.set()
        self._thread.join()
        self.map.close()


def flood(bed, seconds):
    pid = bed.daemon.proc.pid
    tenant = register(bed.sock, "watcher")
    if not tenant:
        print("flood: could not register the watcher tenant")
        return
    ticks = TickWatch(tenant[1])
    rss0 = rss_kb(pid)
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    atk = loop_attacks.nobody_python_args(
        loop_attacks.UNREAD, [bed.sock, "1000", str(seconds)])
    peak, r, _ = loop_attacks.watch(bed, seconds)
    facts = loop_attacks.attacker_facts(atk, seconds + 30)
    cpu = cpu_seconds(pid) - cpu0
    window = time.monotonic() - t0
    ticks.stop()
    print("flood: %s connections opened by uid 65534 in %.1f s; batond "
          "RSS %d -> peak %d KiB (%+d), %.0f%% of a core; root status: %s; "
          "longest gap between ticks %.3f s (epoch 0.1 s)" % (
              facts.get("opened"), window, rss0, peak, peak - rss0,
              100 * cpu / window, r, ticks.longest))
    tenant[0].close()
    os.close(tenant[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--batond", required=True)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=4)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root (the flood runs as uid 65534)")
        return 77
    with Bed(a.baton, a.batond) as bed:
        churn(bed, a.seconds, a.workers)
    with Bed(a.baton, a.batond) as bed:
        flood(bed, a.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
