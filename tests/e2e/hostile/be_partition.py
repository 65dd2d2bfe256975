"""A best-effort tenant of uid 65534 against root's game on a CPU device
that batond divides (space harvesting: docs/harvesting.md, "Space
harvesting in batond"; docs/security.md, "Best-effort tenants"). A root
batond with harvest.space_units = the CPUs here, root's glxgears under
`baton run --sla 30` (llvmpipe), and, throughout, nobody's CPU hog pinned
to the first CPU: the one a partition leaves the games.

Phases, every number compared with the same run's baseline:

  baseline  the hog alone beside the game: its FPS (batond's, each
            0.25 s)
  idle      nobody registers a best-effort tenant with "partition": true
            whose process never computes: the game's threads keep every
            CPU at every sample, batond never divides, and its mean FPS
            stays at least 90 % of the baseline's. Before: confined to
            the hog's CPU, 23.6 FPS against 29.6.
  busy      the same process now burns the CPU a partition would give it
            (it earns one by what it uses): if the game, confined beside
            the hog, misses its SLA, batond gives the device back and
            holds the partition off; the game is confined for at most
            CONFINED_MAX_S of the phase, or its rate does not suffer, and
            never again after the release.

Throughout, the attacker claims more device time than there is in its
ring header's totals, so batond never reads the hog as load no tenant
reports: it never finds the CPUs overloaded, which would otherwise give
the game every CPU back whenever the hog and the host's other load
happen to add up.

Usage: be_partition.py --baton B --batond D --xvfb X --glxgears G
Exit 0 pass, 1 fail, 77 skipped (not root, one CPU, no X)."""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hostile import (NOBODY, SKIP, Bed, Fail, Xvfb, as_nobody,  # noqa: E402
                     check, game, skip_unless_root)
from batonbed import (Steal, TimingFail, check_timing,  # noqa: E402
                      child_or_self, cpu_list, thread_cpus, timing_verdict)
from loop_attacks import shm_memfd  # noqa: E402

SLA = 30
SAMPLE_S = 0.25
SETTLE_S, BASELINE_S, IDLE_S, BUSY_S = 2.0, 8.0, 12.0, 14.0
FPS_RATIO_MIN = 0.90
# earning (a fraction of a second), COMBO's 1 s hold, then at most two
# capacity periods (1 s) until a miss is read
CONFINED_MAX_S = 5.0

# The attacker, run as nobody with `python3 -c`: registers a best-effort
# tenant on the memfd it inherits (argv 1) and prints batond's reply.
# From then, every 10 ms, it claims 20 ms of device time in its ring
# header's totals (shm.h, at the ring's offset 128), the whole device and
# more: batond then counts the hog as reported load, not as load no
# tenant reports, and never finds the CPUs overloaded (so overload does
# not give the game its CPUs back by chance). It computes nothing until
# "burn" arrives on stdin; from then it burns the CPU of argv 3.
ATTACKER = r'''
import mmap, os, socket, struct, sys, threading, time
fd, sock, cpu = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sock)
hello = (b'{"type":"hello","version":1,"role":"be","name":"idle-be",'
         b'"partition":true}\n')
socket.send_fds(s, [hello], [fd])
mm = mmap.mmap(fd, os.fstat(fd).st_size)
s.settimeout(5)
print(s.recv(4096).decode(errors="replace").split("\n")[0], flush=True)
burn = threading.Event()
def read_stdin():
    if sys.stdin.readline().strip() == "burn":
        os.sched_setaffinity(0, {cpu})
        burn.set()
threading.Thread(target=read_stdin, daemon=True).start()
parent, n = os.getppid(), 0
while os.getppid() == parent:
    end = time.monotonic() + 0.01
    if burn.is_set():
        while time.monotonic() < end:
            pass
    else:
        time.sleep(0.01)
    n += 1
    struct.pack_into("<QQ", mm, 128 + 24, n, n * 20000000)
'''


def start_hog(cpu):
    """nobody's busy loop on CPU cpu."""
    return subprocess.Popen(
        as_nobody(["taskset", "-c", str(cpu), "sh", "-c",
                   "while :; do :; done"]),
        stdin=subprocess.DEVNULL, start_new_session=True)


def start_attacker(bed, burn_cpu):
    """nobody's best-effort tenant; the Popen, once batond welcomed it."""
    fd = shm_memfd()
    try:
        p = subprocess.Popen(
            as_nobody([sys.executable, "-c", ATTACKER, str(fd), bed.sock,
                       str(burn_cpu)]),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            pass_fds=[fd], start_new_session=True)
    finally:
        os.close(fd)
    reply = p.stdout.readline()
    check('"welcome"' in reply, "nobody's best-effort hello: %r" % reply)
    return p


def stop(p):
    if p and p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def watch(bed, gpid, whole, seconds):
    """Samples every SAMPLE_S: (t, the game's FPS as batond measures it,
    whether any of its threads lost a CPU, status's space object)."""
    rows = []
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        st = bed.daemon.status()
        fps = [t["fps"] for t in st["tenants"] if t["name"] == "game"]
        narrowed = thread_cpus(gpid) != {whole}
        rows.append((time.monotonic() - t0, fps[0] if fps else 0.0,
                     narrowed, st.get("space", {})))
        time.sleep(SAMPLE_S)
    return rows


def mean_fps(rows):
    return sum(r[1] for r in rows) / max(len(rows), 1)


def summary(name, rows):
    fps = [r[1] for r in rows]
    print("%s: %.1f FPS mean, %.1f min; confined in %d of %d samples; "
          "space at the end %s" % (name, mean_fps(rows), min(fps),
                                   sum(r[2] for r in rows), len(rows),
                                   rows[-1][3]))


def check_idle(rows, base):
    narrowed = [r for r in rows if r[2]]
    check(not narrowed, "the idle tenant confined root's game: %d of %d "
          "samples narrowed, first at %.1f s (space %s)"
          % (len(narrowed), len(rows), narrowed[0][0] if narrowed else 0,
             narrowed[0][3] if narrowed else {}))
    check(all(r[3].get("split", 0) == 0 for r in rows),
          "batond divided the CPUs for a tenant that computes nothing")
    fps = mean_fps(rows)
    check_timing(fps >= FPS_RATIO_MIN * base,
                 "the game at %.1f FPS beside the idle tenant, %.0f %% of "
                 "its %.1f baseline" % (fps, 100 * fps / base, base))
    print("idle: ok (never confined; %.1f FPS, baseline %.1f, ratio %.2f)"
          % (fps, base, fps / base))


def check_busy(rows, base):
    confined = [r for r in rows if r[2]]
    confined_s = len(confined) * SAMPLE_S
    released = [r for r in rows if r[3].get("releases", 0) > 0]
    fps_confined = mean_fps(confined) if confined else base
    check_timing(confined_s <= CONFINED_MAX_S or
                 fps_confined >= FPS_RATIO_MIN * base,
                 "the game confined for %.1f s at %.1f FPS (baseline %.1f)"
                 % (confined_s, fps_confined, base))
    if released:
        after = [r for r in rows if r[0] > released[0][0] and r[2]]
        check(not after, "the game confined again %.1f s after the "
              "release, within the hold-off" % (after[0][0] -
                                                 released[0][0])
              if after else "")
        check(released[-1][3].get("holdoff_s", 0) > 0,
              "no hold-off after the release: %s" % released[-1][3])
    print("busy: ok (confined %.1f s at %.1f FPS, %s; after: %.1f FPS, "
          "baseline %.1f)"
          % (confined_s, fps_confined,
             "released at %.1f s" % released[0][0] if released
             else "never released", mean_fps(rows[-8:]), base))


def run(a, cpus):
    whole = cpu_list(cpus)
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write("harvest = { space_units = %d; };\n" % len(cpus))
        conf = f.name
    os.chmod(conf, 0o644)
    hog = attacker = None
    try:
        with Bed(a.baton, a.batond, ["--policy", "sa", "--sla", str(SLA),
                                     "--config", conf]) as bed, \
                Xvfb(a.xvfb) as x, game(bed, x, a.glxgears, sla=SLA) as g:
            bed.daemon.wait_tenants(["game"], 15)
            gpid = child_or_self(g.proc.pid)
            hog = start_hog(cpus[0])
            time.sleep(SETTLE_S)
            with Steal() as steal:
                base = mean_fps(watch(bed, gpid, whole, BASELINE_S))
                attacker = start_attacker(bed, cpus[-1])
                idle = watch(bed, gpid, whole, IDLE_S)
                attacker.stdin.write("burn\n")
                attacker.stdin.flush()
                busy = watch(bed, gpid, whole, BUSY_S)
            print("baseline %.1f FPS (%s)" % (base, steal))
            summary("idle", idle)
            summary("busy", busy)
            check_idle(idle, base)
            check_busy(busy, base)
    finally:
        stop(attacker)
        stop(hog)
        os.unlink(conf)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for k in ("baton", "batond"):
        p.add_argument("--" + k, required=True)
    p.add_argument("--xvfb")
    p.add_argument("--glxgears")
    a = p.parse_args()
    skip_unless_root()
    if not (a.xvfb and a.glxgears):
        print("SKIP: no Xvfb or glxgears for the game")
        return SKIP
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        print("SKIP: one CPU, nothing to divide")
        return SKIP
    t0 = time.monotonic()
    try:
        run(a, cpus)
    except TimingFail as e:
        return timing_verdict(e)
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        print("%.1f s (uid %d against root's game)" % (time.monotonic() - t0,
                                                        NOBODY))
    return 0


if __name__ == "__main__":
    sys.exit(main())
