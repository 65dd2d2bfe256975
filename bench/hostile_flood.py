"""batond under a hostile local user's load, as figures rather than
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

With --rate R, instead (churn with caps), one paced run:

  paced  root registers R tenants per second for T s (default 60), each
         with a cap in its hello (--cap, default 0.004; 0 for none) and
         held --hold s (default 0.25, so that a tick or two of batond's
         capacity stage joins it before its departure returns the cap);
         batond runs with --max-tenants-per-uid 0 to allow the R x hold
         live at once. Every 10 s: the rate held, live tenants, batond's
         RSS and fds; at the end, the rate held over the whole run and
         the drift of RSS and fds from before the first registration to
         after the last departure.

Needs root (for the attacker's uid; in the paced run, R x hold live
connections are past max_conns_per_uid for any user but root). Usage:
  python3 bench/hostile_flood.py --baton build/src/cli/baton \
      --batond build/src/daemon/batond [--seconds 10] [--workers 4]
  python3 bench/hostile_flood.py --baton build/src/cli/baton \
      --batond build/src/daemon/batond --rate 1000 [--seconds 60]"""
import argparse
import collections
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


def register(sock, name, cap=None):
    """A tenant of root's: (socket, memfd) once welcomed, else None. A
    cap goes into the hello as the shim's BATON_CAP would (a batond from
    before caps ignores the field)."""
    fd = loop_attacks.shm_memfd()
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5.0)
    extra = ',"cap":%.6f' % cap if cap else ""
    try:
        s.connect(sock)
        socket.send_fds(s, [('{"type":"hello","version":1,"role":"tenant",'
                             '"name":"%s"%s}\n' % (name, extra)).encode()],
                        [fd])
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


class Paced:
    """Registrations on a fixed schedule (slot i at start + i / rate),
    shared by `workers` threads so that one slow welcome does not hold
    the next; each tenant is dropped `hold` s after its welcome by one
    dropper thread."""

    def __init__(self, sock, rate, seconds, hold, cap, workers):
        self.sock, self.rate, self.hold, self.cap = sock, rate, hold, cap
        self.total = int(rate * seconds)
        self.start = time.monotonic() + 0.2
        self.ok = self.failed = 0
        self.worst_lag = 0.0  # behind schedule at a welcome, s
        self.last_welcome = self.start
        self.live = collections.deque()  # (drop at, socket)
        self._next = 0
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._threads = [threading.Thread(target=self._work)
                         for _ in range(workers)]
        self._dropper = threading.Thread(target=self._drop)

    def run(self):
        for t in self._threads + [self._dropper]:
            t.start()

    def running(self):
        return any(t.is_alive() for t in self._threads)

    def wait(self):
        for t in self._threads:
            t.join()
        self._done.set()
        self._dropper.join()

    def _work(self):
        while True:
            with self._lock:
                i = self._next
                self._next += 1
            if i >= self.total:
                return
            due = self.start + i / self.rate
            time.sleep(max(0.0, due - time.monotonic()))
            t = register(self.sock, "churn-%d" % i, self.cap)
            now = time.monotonic()
            with self._lock:
                if t:
                    self.ok += 1
                    self.last_welcome = max(self.last_welcome, now)
                else:
                    self.failed += 1
                self.worst_lag = max(self.worst_lag, now - due)
            if t:
                os.close(t[1])  # batond keeps its own mapping
                self.live.append((now + self.hold, t[0]))

    def _drop(self):
        # Workers append in near time order: a tenant due a little
        # before the head waits for it (a few ms at most).
        while not (self._done.is_set() and not self.live):
            now = time.monotonic()
            while self.live and self.live[0][0] <= now:
                self.live.popleft()[1].close()
            time.sleep(0.001)


def paced(bed, rate, seconds, hold, cap, workers):
    pid = bed.daemon.proc.pid
    time.sleep(0.5)
    rss0, fds0 = rss_kb(pid), fd_count(pid)
    print("paced: %g registrations/s for %g s, cap %g, held %g s, "
          "%d workers; batond RSS %d KiB, fds %d" % (
              rate, seconds, cap, hold, workers, rss0, fds0), flush=True)
    p = Paced(bed.sock, rate, seconds, hold, cap, workers)
    p.run()
    last_n, last_t = 0, p.start
    steady = []  # (s, RSS) at each progress line, tenants live
    while p.running():
        time.sleep(0.05)
        now = time.monotonic()
        if now < last_t + 10.0:
            continue
        n = p.ok
        steady.append((now - p.start, rss_kb(pid)))
        print("  %3.0f s: %.0f/s held over the last %.0f s, %d live; RSS "
              "%d KiB, fds %d" % (now - p.start, (n - last_n) / (now - last_t),
                                  now - last_t, len(p.live), steady[-1][1],
                                  fd_count(pid)), flush=True)
        last_n, last_t = n, now
    p.wait()
    took = p.last_welcome - p.start
    time.sleep(0.5)  # batond sees the last departures
    rss1, fds1 = rss_kb(pid), fd_count(pid)
    print("paced: %d registrations (%d failed) in %.1f s = %.0f/s held "
          "(asked %g/s; worst %.0f ms behind schedule); RSS %d -> %d KiB "
          "(%+d), fds %d -> %d (%+d)" % (
              p.ok, p.failed, took, p.ok / took, rate, 1e3 * p.worst_lag,
              rss0, rss1, rss1 - rss0, fds0, fds1, fds1 - fds0))
    # The step from before to after is the heap's high-water mark of the
    # R x hold live tenants (glibc keeps it); a leak grows between the
    # progress lines instead.
    if len(steady) >= 2:
        print("paced: RSS with tenants live %d KiB at %.0f s -> %d KiB at "
              "%.0f s (%+d)" % (steady[0][1], steady[0][0], steady[-1][1],
                                steady[-1][0], steady[-1][1] - steady[0][1]))


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
    ap.add_argument("--seconds", type=float,
                    help="10 (churn, flood) or 60 (--rate)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--rate", type=float,
                    help="the paced run: registrations per second")
    ap.add_argument("--hold", type=float, default=0.25)
    ap.add_argument("--cap", type=float, default=0.004)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root (the flood runs as uid 65534)")
        return 77
    if a.rate is not None:
        if a.rate <= 0 or a.hold < 0 or not 0 <= a.cap <= 1:
            ap.error("--rate > 0, --hold >= 0 and --cap in [0, 1]")
        with Bed(a.baton, a.batond, ["--max-tenants-per-uid", "0"]) as bed:
            paced(bed, a.rate, a.seconds or 60.0, a.hold, a.cap, a.workers)
        return 0
    a.seconds = a.seconds or 10.0
    with Bed(a.baton, a.batond) as bed:
        churn(bed, a.seconds, a.workers)
    with Bed(a.baton, a.batond) as bed:
        flood(bed, a.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
