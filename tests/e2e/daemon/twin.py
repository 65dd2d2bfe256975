"""The digital twin of a run on this machine: measure each client's solo
cost here and now, write a simulator scenario from those costs, run
`baton sim` on it. A scenario written from costs measured on another
machine (or on this one another day) is an example, not a reference: the
twin is only as good as costs measured in the same run as the reality it
is compared with.

    bed = twin.Bed(baton, batond, x, tmp)          # x: a running Xvfb
    costs = twin.measure_solo(bed, [("jellyfish", [glmark2, ...])], 3, 8)
    text = twin.scenario_text("t", "...", list(costs.values()), "esa",
                              duration_s=25, warmup_s=5, sla=30)
    fps = twin.simulate(baton, path_of(text), "esa")   # {name: FPS}

Standard library only, plus batonbed (the daemon tests' bed)."""

import json
import math
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
from batonbed import Batond, Client, Steal, check, cpu_seconds  # noqa


class Bed:
    """What measure_solo needs: the baton and batond executables, a
    running X server (glharness.Xvfb: .env() gives a client environment
    for its display, .proc.pid is the server, whose CPU time is counted),
    and a folder for the daemon's socket."""

    def __init__(self, baton, batond, x, tmp):
        self.baton, self.batond, self.x, self.tmp = baton, batond, x, tmp


class Cost:
    """One client measured alone on this machine.

    fps       frames per second (batond's 1-s rate, averaged)
    cpu_ms    CPU time of all the client's threads per frame
    x_ms      the X server's CPU time per frame (copying it to the screen)
    k_ms      batond's GPU time per frame (its gpu_share over fps; on a
              software rasterizer the shim reports CPU time over cores)
    steal     the host's CPU steal over the measurement (0..1)
    cores     CPUs this process may use (the device a software
              rasterizer renders on)
    others    cores that other processes (not the client, the X server,
              batond or this one) used meanwhile: someone else's work
    pinned    the rate it was pinned at (`baton set NAME fps=N`), or None
              for a free-running measurement
    jitter    how much its frame times vary: the log-normal sigma that
              gives batond's median ratio of the 90th percentile frame
              time to the median, ln(p90 / p50) / 1.2816 (what the
              simulator's `jitter` draws; None if batond had none)
    work_ms   how long a frame takes from its start to its present, its
              pacing sleep left out: the frame time if free running;
              pinned, 1000 / batond's reach_fps (its rate over the share
              of the time the pacer did not hold it)"""

    def __init__(self, name, fps, cpu_ms, x_ms, k_ms, steal=0.0, cores=2,
                 others=0.0, pinned=None, jitter=None, work_ms=None):
        self.name, self.fps, self.cpu_ms, self.x_ms = name, fps, cpu_ms, x_ms
        self.k_ms, self.steal, self.cores = k_ms, steal, cores
        self.others, self.pinned, self.jitter = others, pinned, jitter
        self.work_ms = work_ms or 1000.0 / fps

    @property
    def frame_ms(self):
        return 1000.0 / self.fps

    def __repr__(self):
        return ("%s: %.1f FPS (%.2f ms, %.2f ms of work)%s, CPU %.2f ms/frame (%.2f cores) + "
                "X server %.2f, batond k %.2f ms, steal %.0f%%" % (
                    self.name, self.fps, self.frame_ms, self.work_ms,
                    " pinned at %g" % self.pinned if self.pinned else "",
                    self.cpu_ms, self.cpu_ms / self.frame_ms, self.x_ms,
                    self.k_ms, self.steal * 100) +
                (", others %.2f cores" % self.others if self.others else "") +
                (", jitter %.3f" % self.jitter if self.jitter else ""))


# ------------------------------------------------------------ measuring

POLL_S = 0.5
REGISTER_S = 60


def measure_solo(bed, specs, warm_s, measure_s, fps=None):
    """Each (name, argv) of specs alone, one after the other, under
    `baton run --name NAME -- argv` with a `batond --policy none` of its
    own: warm_s seconds after it registers (start-up, caches), then
    measure_s seconds measured. The client must run at least that long;
    it is killed after. With fps, each is pinned there (`baton set`): a
    paced solo cost. Returns {name: Cost}."""
    sock = os.path.join(bed.tmp, "twin-solo.sock")
    env = bed.x.env(BATON_SOCKET=sock)
    cores = len(os.sched_getaffinity(0))
    out = {}
    with Batond(bed.batond, bed.baton, sock, ["--policy", "none"],
                env) as d:
        for name, argv in specs:
            cmd = [bed.baton, "run", "--name", name, "--"] + list(argv)
            with Client(cmd, env) as c:
                d.wait_tenants([name], REGISTER_S)
                if fps:
                    r = subprocess.run([bed.baton, "set", name,
                                        "fps=%g" % fps], env=env,
                                       capture_output=True, text=True,
                                       timeout=10)
                    check(r.returncode == 0, "baton set %s fps=%g: %s" % (
                        name, fps, r.stderr.strip()))
                time.sleep(warm_s)
                out[name] = _measure(d, c, name, bed.x.proc.pid, measure_s,
                                     cores, fps)
    return out


def _cpu(pids):
    return [cpu_seconds(p) or 0.0 for p in pids]


def _measure(daemon, client, name, xpid, seconds, cores, fps):
    """One client's Cost over the next `seconds`: its rate is the mean of
    batond's 1-s rate polled every POLL_S."""
    pids = (client.proc.pid, xpid, daemon.proc.pid)
    samples, spread = [], []
    with Steal() as st:
        t0, c0, s0 = time.monotonic(), _cpu(pids), Steal._ours()
        while time.monotonic() < t0 + seconds:
            time.sleep(POLL_S)
            t = daemon.tenants().get(name)
            check(client.proc.poll() is None and t is not None,
                  "%s exited %.1f s into its solo measurement; output:\n%s"
                  % (name, time.monotonic() - t0, client.output()))
            samples.append((t["fps"], t["gpu_share"],
                            t.get("reach_fps") or t["fps"]))
            q = _quantiles(daemon, t["id"])
            if q.get("0.5", 0) > 0 and q.get("0.9", 0) > 0:
                spread.append(q["0.9"] / q["0.5"])
        t1, c1, s1 = time.monotonic(), _cpu(pids), Steal._ours()
    rate = sum(s[0] for s in samples) / len(samples)
    share = sum(s[1] for s in samples) / len(samples)
    reach = sum(s[2] for s in samples) / len(samples)
    check(rate > 0 and c1[0] > c0[0], "%s presented no frame in its solo "
          "measurement" % name)
    frames = rate * (t1 - t0)
    ours = sum(c1) - sum(c0) + s1 - s0
    busy = (1.0 - st.idle - st.steal) * cores * (t1 - t0)
    return Cost(name, rate, (c1[0] - c0[0]) / frames * 1e3,
                (c1[1] - c0[1]) / frames * 1e3, share / rate * 1e3, st.steal,
                cores, max(busy - ours, 0.0) / (t1 - t0), fps,
                None if fps or not spread
                else math.log(_median(spread)) / P90_Z,
                1000.0 / reach if fps and reach > 0 else None)


# The 90th percentile of a standard normal.
P90_Z = 1.2816


def _median(v):
    v = sorted(v)
    return v[len(v) // 2]


def _quantiles(daemon, tenant_id):
    """{quantile: seconds} of the frame times over the last 2 s of the
    tenant with that id (`baton status`), from batond's /metrics (which
    labels tenants by id and uid; names only with metrics_names)."""
    try:
        text = daemon.metrics()
    except OSError:
        return {}
    return {m.group(1): float(m.group(2)) for m in re.finditer(
        r'^baton_tenant_frame_time_seconds\{id="%d",uid="\d+",'
        r'quantile="([\d.]+)"\} (\S+)$' % tenant_id, text, re.M)}


# ------------------------------------------------------------ the model

# On a software rasterizer (Mesa llvmpipe, lavapipe) the "GPU" is the CPU
# cores: each client's rasterizer threads, its own thread (vertex work,
# binning) and the X server's copy of each of its frames all run there, and
# that is what the clients contend for. So one simulated device stands for
# all the cores, and a frame's device time is its CPU time over all threads
# plus the X server's, over the cores: gpu_ms = (CPU + X) / cores. A client
# alone does not fill every core (its threads wait on each other), so its
# frame takes longer than that; the rest of its solo frame's work time is
# latency off the device: cpu_ms = work - gpu_ms, which makes each client's
# solo rate in the simulator its measured one (free running, work is the
# frame time; paced, the frame time less the pacing sleep). Present waits for the frame
# (llvmpipe renders inside the swap): max_in_flight = 0.
#
# Time slicing: sched_autogroup gives each session (each client runs in
# its own) an equal share of the cores while they all have work, and
# EEVDF keeps a task's lag across a short sleep, so a client back from its
# off-device phase is not sent to the back of a queue: processor sharing,
# which the timeslice model approaches with a quantum far under every
# frame's device time. A round robin with EEVDF's nominal 1.5 ms slice
# does not fit: with frames of 1.7 to 6 ms of device time it aliases (a
# 1.7 ms frame needs two quanta and waits a whole round between them): on
# one run's costs, 1.5, 2 and 4 ms quanta moved the simulated unmanaged
# rates by -21 to +19 % from processor sharing's, while 0.05 to 0.35 ms
# agreed within 2 %. No switch cost: switches are in the measured CPU time
# already.
DEFAULT_GPU = {"model": "timeslice", "quantum_ms": 0.1, "switch_us": 0.0}
JITTER = 0.1


def jitter(cost):
    """The simulator's jitter for a Cost: its measured one, else JITTER."""
    return cost.jitter if cost.jitter else JITTER


def model(cost):
    """(cpu_ms, gpu_ms) of the simulator's tenant for a measured Cost."""
    gpu = (cost.cpu_ms + cost.x_ms) / cost.cores
    return max(cost.work_ms - gpu, 0.0), gpu


class Tenant:
    """One tenant of a scenario: a Cost from start_s (to stop_s, 0 = the
    end), and from each (at_s, Cost) of scenes on, that cost instead."""

    def __init__(self, cost, name=None, start_s=0.0, stop_s=0.0, scenes=(),
                 sla=None):
        self.cost, self.name = cost, name or cost.name
        self.start_s, self.stop_s = start_s, stop_s
        self.scenes, self.sla = list(scenes), sla


def scenario_text(name, description, tenants, policy="sa", duration_s=25.0,
                  warmup_s=5.0, sla=30.0, gpu=None, seed=1):
    """A libconfig scenario (docs/scenarios.md) for `baton sim`: tenants
    are Costs or Tenants."""
    g = dict(DEFAULT_GPU, **(gpu or {}))
    lines = [
        "# Written by tests/e2e/daemon/twin.py from costs measured in the",
        "# same run (see model() there).",
        "name = %s;" % _str(name),
        "description = %s;" % _str(description),
        "duration_s = %r;" % float(duration_s),
        "warmup_s = %r;" % float(warmup_s),
        "seed = %d;" % seed,
        "gpu = { model = %s; quantum_ms = %r; switch_us = %r; };" % (
            _str(g["model"]), float(g["quantum_ms"]), float(g["switch_us"])),
        "policy = { name = %s; };" % _str(policy),
        "tenants = (",
    ]
    entries = []
    for t in tenants:
        if isinstance(t, Cost):
            t = Tenant(t)
        cpu, dev = model(t.cost)
        e = ("  { name = %s; sla_fps = %r; cpu_ms = %.4f; gpu_ms = %.4f; "
             "jitter = %r; max_in_flight = 0;" % (
                 _str(t.name), float(t.sla or sla), cpu, dev,
                 round(jitter(t.cost), 4)))
        if t.start_s:
            e += " start_s = %r;" % float(t.start_s)
        if t.stop_s:
            e += " stop_s = %r;" % float(t.stop_s)
        if t.scenes:
            # A scene's 0 cost means "unchanged" (docs/scenarios.md).
            e += "\n    scenes = ( %s );" % ", ".join(
                "{ at_s = %r; cpu_ms = %.4f; gpu_ms = %.4f; }" % (
                    (float(at),) + tuple(max(v, 1e-4) for v in model(c)))
                for at, c in t.scenes)
        entries.append(e + " }")
    lines.append(",\n".join(entries))
    lines.append(");")
    return "\n".join(lines) + "\n"


def _str(s):
    return json.dumps(s)


def write_scenario(path, *args, **kw):
    """scenario_text(*args, **kw) written to path; returns path."""
    with open(path, "w") as f:
        f.write(scenario_text(*args, **kw))
    return path


def simulate(baton, scenario_path, policy, seed=None):
    """{name: simulated mean FPS} of the scenario under policy (with seed,
    that random seed instead of the scenario's)."""
    argv = [baton, "sim", scenario_path, "--policy", policy, "--json",
            "--quiet"] + (["--seed", str(seed)] if seed is not None else [])
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "baton sim %s --policy %s exited %d: %s" % (
        scenario_path, policy, r.returncode, r.stderr))
    return {t["name"]: t["fps_mean"] for t in json.loads(r.stdout)["tenants"]}


def paced_at(free, pinned, fps):
    """The Cost of free's frames when paced at fps: CPU and X server time
    and work time per frame interpolated linearly in the rate between the
    pinned measurements of the same client (Costs from measure_solo(...,
    fps=...)), held at the nearest one outside their range. A paced frame
    costs more than a free-running one (measured: +10 to +45% of CPU at
    30 FPS on llvmpipe) and takes longer: it starts after a sleep, with
    cold caches and rasterizer threads to wake."""
    pts = sorted((c.fps, c.cpu_ms, c.x_ms, c.k_ms, c.work_ms)
                 for c in pinned)
    check(pts, "%s: no pinned measurement to pace it by" % free.name)
    if fps <= pts[0][0]:
        v = pts[0]
    elif fps >= pts[-1][0]:
        v = pts[-1]
    else:
        for a, b in zip(pts, pts[1:]):
            if a[0] <= fps <= b[0]:
                w = (fps - a[0]) / (b[0] - a[0])
                v = [x + (y - x) * w for x, y in zip(a, b)]
                break
    return Cost(free.name, fps, v[1], v[2], v[3], free.steal, free.cores,
                free.others, fps, free.jitter, v[4])
