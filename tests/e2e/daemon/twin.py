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
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
from batonbed import Batond, Client, Fail, Steal, check, cpu_seconds  # noqa


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
    pinned    the rate it was pinned at (`baton set NAME fps=N`), or None
              for a free-running measurement"""

    def __init__(self, name, fps, cpu_ms, x_ms, k_ms, steal, cores,
                 pinned=None):
        self.name, self.fps, self.cpu_ms, self.x_ms = name, fps, cpu_ms, x_ms
        self.k_ms, self.steal, self.cores = k_ms, steal, cores
        self.pinned = pinned

    @property
    def frame_ms(self):
        return 1000.0 / self.fps

    def __repr__(self):
        return ("%s: %.1f FPS (%.2f ms)%s, CPU %.2f ms/frame (%.2f cores) + "
                "X server %.2f, batond k %.2f ms, steal %.0f%%" % (
                    self.name, self.fps, self.frame_ms,
                    " pinned at %g" % self.pinned if self.pinned else "",
                    self.cpu_ms, self.cpu_ms / self.frame_ms, self.x_ms,
                    self.k_ms, self.steal * 100))


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


def _measure(daemon, client, name, xpid, seconds, cores, fps):
    pid = client.proc.pid
    samples = []
    with Steal() as st:
        t0, c0, x0 = time.monotonic(), cpu_seconds(pid), cpu_seconds(xpid)
        while time.monotonic() < t0 + seconds:
            time.sleep(POLL_S)
            t = daemon.tenants().get(name)
            check(client.proc.poll() is None and t is not None,
                  "%s exited %.1f s into its solo measurement; output:\n%s"
                  % (name, time.monotonic() - t0, client.output()))
            samples.append((t["fps"], t["gpu_share"]))
        t1, c1, x1 = time.monotonic(), cpu_seconds(pid), cpu_seconds(xpid)
    rate = sum(s[0] for s in samples) / len(samples)
    share = sum(s[1] for s in samples) / len(samples)
    check(rate > 0 and c1 is not None, "%s presented no frame in its solo "
          "measurement" % name)
    frames = rate * (t1 - t0)
    return Cost(name, rate, (c1 - c0) / frames * 1e3,
                (x1 - x0) / frames * 1e3, share / rate * 1e3, st.steal,
                cores, fps)


# ------------------------------------------------------------ the model

# On a software rasterizer (Mesa llvmpipe, lavapipe) the "GPU" is the CPU
# cores: each client's rasterizer threads, its own thread (vertex work,
# binning) and the X server's copy of each of its frames all run there, and
# that is what the clients contend for. So one simulated device stands for
# all the cores, and a frame's device time is its CPU time over all threads
# plus the X server's, over the cores: gpu_ms = (CPU + X) / cores. A client
# alone does not fill every core (its threads wait on each other), so its
# frame takes longer than that; the rest of its solo frame time is latency
# off the device: cpu_ms = frame - gpu_ms, which makes each client's solo
# rate in the simulator its measured one. Present waits for the frame
# (llvmpipe renders inside the swap): max_in_flight = 0.
#
# Time slicing: sched_autogroup gives each session (each client runs in
# its own) an equal share of the cores when all are busy, which is the
# round robin of the timeslice model; EEVDF's base slice on 2 CPUs is
# 1.5 ms (0.75 ms x (1 + log2 CPUs)).
DEFAULT_GPU = {"model": "timeslice", "quantum_ms": 1.5, "switch_us": 20.0}
JITTER = 0.1


def model(cost):
    """(cpu_ms, gpu_ms) of the simulator's tenant for a measured Cost."""
    gpu = (cost.cpu_ms + cost.x_ms) / cost.cores
    return max(cost.frame_ms - gpu, 0.0), gpu


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
                 _str(t.name), float(t.sla or sla), cpu, dev, JITTER))
        if t.start_s:
            e += " start_s = %r;" % float(t.start_s)
        if t.stop_s:
            e += " stop_s = %r;" % float(t.stop_s)
        if t.scenes:
            e += "\n    scenes = ( %s );" % ", ".join(
                "{ at_s = %r; cpu_ms = %.4f; gpu_ms = %.4f; }" % (
                    (float(at),) + model(c)) for at, c in t.scenes)
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


def simulate(baton, scenario_path, policy):
    """{name: simulated mean FPS} of the scenario under policy."""
    r = subprocess.run([baton, "sim", scenario_path, "--policy", policy,
                        "--json", "--quiet"], capture_output=True,
                       text=True, timeout=120)
    check(r.returncode == 0, "baton sim %s --policy %s exited %d: %s" % (
        scenario_path, policy, r.returncode, r.stderr))
    return {t["name"]: t["fps_mean"] for t in json.loads(r.stdout)["tenants"]}
