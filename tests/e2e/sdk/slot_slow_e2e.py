#!/usr/bin/env python3
"""The BE SDK's slot sub-launches on a slower machine
(docs/harvesting.md, "The slot on a slower machine"): a real game
(glmark2 build on llvmpipe, under `baton run`) and be-matmul through the
SDK in the games' slot at normal priority (--no-space), under batond,
the whole test (batond, the X server, the game, the BE program) run in a
CPU cgroup whose quota is about one of the two cores, so every process
here runs slower and is stalled in bursts, as on a host with steal
time, without batond counting other processes' load. Standard library
only.

  slot_slow_e2e.py --baton B --batond D --matmul M --xvfb X --glmark2 G

Checks, on be-matmul's --trace (each sub-launch's window and device
time), over the periodical sub-launches given in the slot:
  fits      the share of them that end more than a tenth of their window
            past it is at most OVER_MAX: the SDK sizes a sub-launch so
            that it ends within its window on this machine as it is now,
            not only on average (sized to the fit's mean, 31 % ran past
            their window by over a tenth here, and at normal priority
            each one that does lands on a game's frame);
  harvest   the sub-launches still fill the slot: BE at work (wall time
            in its sub-launches over the run) at least FILL_MIN of the
            slot's share of the period (batond's status, median).
Both are ratios measured in the same run. Exit 0, 1 on a failed check,
77 with no OpenCL device, without a writable CPU cgroup (cgroup v2
cpu.max or v1 cpu.cfs_quota_us; root), or with too few slot sub-launches
to judge."""

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      kill_group, terminate_on_sigterm)

# The cgroup's quota in each period: about one core of the two, in 5-ms
# periods, so a process that wants both cores is held back for part of
# each period (steal-like stalls of a few ms) and runs about half as fast.
PERIOD_US = 5000
QUOTA_US = 5500
BE_SECONDS = 20
# a sub-launch "past its window": by more than a tenth of it
OVER_TOL = 0.10
OVER_MAX = 0.20
FILL_MIN = 0.75
MIN_LAUNCHES = 40


def cgroup_enter():
    """Moves this process into a new CPU cgroup with the quota above;
    its path, or None where there is none to make (not root, no cpu
    controller)."""
    name = "baton-slot-slow-%d" % os.getpid()
    tries = [("/sys/fs/cgroup", "cpu.max", "%d %d" % (QUOTA_US, PERIOD_US)),
             ("/sys/fs/cgroup/cpu", None, None)]
    for root, knob, value in tries:
        path = os.path.join(root, name)
        try:
            if knob and "cpu" not in open(
                    os.path.join(root, "cgroup.subtree_control")).read():
                continue
            os.mkdir(path)
            if knob:
                with open(os.path.join(path, knob), "w") as f:
                    f.write(value)
            else:
                with open(os.path.join(path, "cpu.cfs_period_us"), "w") as f:
                    f.write(str(PERIOD_US))
                with open(os.path.join(path, "cpu.cfs_quota_us"), "w") as f:
                    f.write(str(QUOTA_US))
            with open(os.path.join(path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
            return path
        except OSError:
            try:
                os.rmdir(path)
            except OSError:
                pass
    return None


def cgroup_leave(path):
    """Back to the parent cgroup, and the test's removed."""
    parent = os.path.dirname(path)
    try:
        with open(os.path.join(parent, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
        time.sleep(0.2)
        os.rmdir(path)
    except OSError as e:
        print("note: cgroup %s not removed: %s" % (path, e))


def read_trace(path):
    """be-matmul --trace: (start_s, end_s, rows, device_ms, window_ms,
    partition) per sub-launch."""
    out = []
    with open(path) as f:
        for line in f:
            v = line.strip().split(",")
            if len(v) == 6 and v[0][:1].isdigit():  # not the header
                out.append((float(v[0]), float(v[1]), int(v[2]),
                            float(v[3]), float(v[4]), int(v[5])))
    return out


def run(a, tmp):
    sock = os.path.join(tmp, "batond.sock")
    conf = os.path.join(tmp, "batond.conf")
    with open(conf, "w") as f:
        f.write("harvest = { align = true; };\n")
    trace = os.path.join(tmp, "trace.csv")
    with Xvfb(a.xvfb) as x:
        env = x.env(BATON_SOCKET=sock)
        daemon = Batond(a.batond, a.baton, sock,
                        ["--policy", "sa", "--sla", "30", "--config", conf],
                        env)
        daemon.start()
        game = mm = None
        try:
            game = Client([a.baton, "run", "--name", "gl-build", "--",
                           a.glmark2, "-s", "640x360", "-b",
                           "build:duration=%d" % (BE_SECONDS + 60)],
                          env).__enter__()
            daemon.wait_tenants(["gl-build"], 20)
            time.sleep(4.0)  # the controller learns the game's cost
            benv = dict(env)
            benv.pop("LD_PRELOAD", None)
            mm = Client([a.matmul, "--n", "512", "--seconds",
                         str(BE_SECONDS), "--no-space", "--name", "slow-mm",
                         "--trace", trace], benv).__enter__()
            shares = []  # the slot's share of the period, batond's
            t_end = time.monotonic() + BE_SECONDS + 60
            while mm.proc.poll() is None and time.monotonic() < t_end:
                st = daemon.status()
                if st.get("slot_ms", 0) > 0 and st.get("slot_period_ms"):
                    shares.append(st["slot_ms"] / st["slot_period_ms"])
                time.sleep(0.5)
            rc = mm.wait_exit(10)
            if rc == 77:
                print("SKIP: no OpenCL device")
                return 77
            check(rc == 0, "be-matmul exited %d:\n%s" % (rc, mm.output()))
            check(game.proc.poll() is None, "the game exited:\n%s" %
                  game.output())
        finally:
            for c in (mm, game):
                if c:
                    kill_group(c.proc)
            daemon.stop()
    if a.out:
        shutil.copy(trace, a.out)
    return judge(read_trace(trace), shares)


def judge(rows, shares):
    # periodical sub-launches in the slot: not on a partition, and given
    # less than the continuous window (17 ms)
    slot = [r for r in rows if not r[5] and 0.0 < r[4] < 16.5]
    print("sub-launches: %d, in the slot %d" % (len(rows), len(slot)))
    if len(slot) < MIN_LAUNCHES:
        print("SKIP: %d slot sub-launches, too few to judge (the machine "
              "was too busy for batond to give a budget?)" % len(slot))
        return 77
    use = sorted(r[3] / r[4] for r in slot)
    over = sum(1 for u in use if u > 1.0 + OVER_TOL) / len(use)
    p90 = use[int(0.9 * (len(use) - 1))]
    print("device time / window: median %.2f, p90 %.2f, max %.2f; "
          "past the window by over %d%%: %.1f%% of them"
          % (use[len(use) // 2], p90, use[-1], OVER_TOL * 100, over * 100))
    check(over <= OVER_MAX, "fits: %.1f%% of the slot's sub-launches ran "
          "past their window by over %d%% (at most %.0f%%)"
          % (over * 100, OVER_TOL * 100, OVER_MAX * 100))
    # BE at work over the run against the slot's share of the period:
    # smaller sub-launches still fill the slot, back to back
    span = rows[-1][1] - rows[0][0]
    duty = sum(r[1] - r[0] for r in slot) / span if span > 0 else 0.0
    share = sorted(shares)[len(shares) // 2] if shares else float("nan")
    print("BE at work %.2f of the time, the slot %.2f of the period "
          "(median of %d samples): %.2f of it" % (duty, share, len(shares),
                                                  duty / share))
    check(duty >= FILL_MIN * share, "harvest: BE at work %.2f of the "
          "time, under %.2f of the slot's share %.2f"
          % (duty, FILL_MIN, share))
    print("fits, harvest: ok")
    return 0


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for a in ("baton", "batond", "matmul", "xvfb", "glmark2"):
        p.add_argument("--" + a, required=True)
    p.add_argument("--out", help="a folder to keep the trace in")
    a = p.parse_args()
    cg = cgroup_enter()
    if not cg:
        print("SKIP: no CPU cgroup to slow the test down (needs root and "
              "the cpu controller)")
        return 77
    try:
        with tempfile.TemporaryDirectory(prefix="baton-slot-slow-") as tmp:
            return run(a, tmp)
    finally:
        cgroup_leave(cg)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
