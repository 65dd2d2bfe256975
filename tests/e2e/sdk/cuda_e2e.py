#!/usr/bin/env python3
"""The CUDA gate beside a real game under a real batond, on the stub
driver (tests/unit/sdk/stub_cuda.c; no GPU here): an unmodified CUDA job
(tests/unit/sdk/cuda_be_job.c, two streams of 5-ms kernels launched
without waiting) under `baton run --be`, glxgears under `baton run` on
Xvfb. Standard library only.

  cuda_e2e.py --baton B --batond D --xvfb X --glxgears G --job J
      --stub-dir S --gate L

Checks:
  gated     the job registers and batond counts its launches (the gate's
            batches, reported once their kernels end).
  dies      the job is killed (SIGKILL) with launches in flight: batond
            answers, drops its tenant, never marks anything stuck, and
            the game keeps presenting at a rate within half of its rate
            beside the job (measured in this run).
  lost      batond is killed under a second job: the gate says it lost
            batond and goes on in the probe loop (its launches keep
            going, paced by the probe's windows), never stopping the job.
Exit 0, 1 on a failed check."""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      kill_group, terminate_on_sigterm, wait_for)


def game_fps(daemon, name, seconds):
    """The mean of the game's status fps over seconds."""
    got = []
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        row = daemon.tenants().get(name)
        check(row is not None, "game %s gone from status" % name)
        got.append(row["fps"])
        time.sleep(0.25)
    return sum(got) / len(got)


def be_rows(daemon):
    return {b["name"]: b for b in daemon.status().get("be", [])}


def job(a, env, name, seconds):
    return Client([a.baton, "run", "--be", "--name", name, "--", a.job,
                   "5000", str(seconds)], env).__enter__()


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for k in ("baton", "batond", "xvfb", "glxgears", "job", "stub-dir",
              "gate"):
        p.add_argument("--" + k, required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="baton-cuda-") as tmp, \
            Xvfb(a.xvfb) as x:
        sock = os.path.join(tmp, "batond.sock")
        env = x.env(BATON_SOCKET=sock)
        daemon = Batond(a.batond, a.baton, sock,
                        ["--policy", "sa", "--sla", "30"], env)
        daemon.start()
        jenv = dict(env, LD_LIBRARY_PATH=a.stub_dir,
                    BATON_CUDA_GATE_PATH=a.gate)
        jenv.pop("LD_PRELOAD", None)
        game = j = None
        try:
            game = Client([a.baton, "run", "--name", "gears", "--",
                           a.glxgears], env).__enter__()
            daemon.wait_tenants(["gears"], 20)
            j = job(a, jenv, "cuda-job", 0)
            row = wait_for("batond counting the CUDA job's launches",
                           lambda: be_rows(daemon).get("cuda-job", {})
                           .get("units", 0) > 0 and
                           be_rows(daemon)["cuda-job"], 20)
            beside = game_fps(daemon, "gears", 3)
            print("gated: ok (%s units so far; the game at %.1f FPS "
                  "beside it)" % (row["units"], beside))

            os.killpg(j.proc.pid, signal.SIGKILL)
            j.proc.wait()
            wait_for("the killed job's tenant dropped",
                     lambda: "cuda-job" not in be_rows(daemon), 5)
            check(daemon.alive(), "batond died with the job")
            after = game_fps(daemon, "gears", 3)
            check(after >= 0.5 * beside,
                  "the game at %.1f FPS after the job died, %.1f beside "
                  "it" % (after, beside))
            stuck = [ln for ln in daemon.log if "stuck" in ln]
            check(not stuck, "batond saw a stuck sub-launch:\n%s"
                  % "\n".join(stuck))
            print("dies: ok (batond up, tenant dropped, the game at "
                  "%.1f FPS after, %.1f beside)" % (after, beside))

            j = job(a, jenv, "cuda-lost", 6)
            wait_for("the second job registered",
                     lambda: be_rows(daemon).get("cuda-lost", {})
                     .get("units", 0) > 0, 20)
            daemon.kill9()
            rc = j.wait_exit(30)
            out = j.output()
            check(rc == 0, "the job exited %d after batond was killed:\n%s"
                  % (rc, out))
            check("lost batond: back to the probe loop" in out,
                  "the gate did not say it lost batond:\n%s" % out)
            print("lost: ok (%s)" % out.strip().splitlines()[-1])
        finally:
            for c in (j, game):
                if c:
                    kill_group(c.proc)
            if daemon.alive():
                daemon.stop()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
