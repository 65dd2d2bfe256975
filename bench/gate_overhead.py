#!/usr/bin/env python3
"""A launch gate's own cost per launch (target: < 5 us).

Runs `be_overhead cl N` (plain) and `be_overhead clfake N` (libbaton_cl.so
preloaded, under be_overhead's in-process fake batond with its window
always open) alternately, ROUNDS times each, and prints each run's median
and p99 per launch (launch + clFinish), then the difference of the
medians, gated - plain. --api cuda does the same for the CUDA gate
(`be_overhead cuda` / `cudafake`, libbaton_cuda.so, launch +
cuStreamSynchronize); --api cudaasync times the CUDA gate's launch call
alone (`be_overhead cudaasync` / `cudaasyncfake`): its launches are
asynchronous, so that is what a program queuing kernels pays.

    flock /tmp/baton-cpu.lock bench/gate_overhead.py [--build DIR]
        [--api cl|cuda|cudaasync] [--rounds 3] [--n 20000] [--runtime stub|real]

--runtime stub (the default) puts a fake runtime first on
LD_LIBRARY_PATH: build/bench/cl_stub (bench/cl_stub.c) for OpenCL, the
CUDA gate test's stub driver (build/tests/unit/sdk, stub_cuda.c) for
CUDA. Their calls do no device work, so the difference is the gate's CPU
cost alone. --runtime real (OpenCL only) leaves the ICD loader (PoCL
here), whose own launch + finish varies by tens of us from run to run;
the CUDA gate on a real driver is bench/cuda_gate_check.sh's (a GPU).

The commands it runs, from the build folder:
    LD_LIBRARY_PATH=bench/cl_stub bench/be_overhead cl 20000
    LD_LIBRARY_PATH=bench/cl_stub \\
        LD_PRELOAD=$PWD/src/sdk/cl/libbaton_cl.so bench/be_overhead clfake 20000
    LD_LIBRARY_PATH=tests/unit/sdk bench/be_overhead cuda 20000
    LD_LIBRARY_PATH=tests/unit/sdk \\
        LD_PRELOAD=$PWD/src/sdk/cuda/libbaton_cuda.so bench/be_overhead cudafake 20000
be_overhead fails unless every timed gated launch was reported in the
fake batond's ring (the gate was on the path: one record each for
OpenCL, one block of a batch's record for CUDA) and, on a stub, the stub
took every launch.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"median ([0-9.]+) us, p99 ([0-9.]+) us")


def run(build, mode, n, env):
    cmd = [os.path.join(build, "bench", "be_overhead"), mode, str(n)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    m = LINE.search(p.stdout)
    if p.returncode != 0 or not m:
        sys.exit(
            f"gate_overhead: {' '.join(cmd)} failed (rc {p.returncode}):\n"
            f"{p.stdout}{p.stderr}"
        )
    return float(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--api", choices=["cl", "cuda", "cudaasync"], default="cl")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runtime", choices=["stub", "real"], default="stub")
    a = ap.parse_args()
    if a.api.startswith("cuda") and a.runtime == "real":
        sys.exit(
            "gate_overhead: --api cuda runs on the stub driver only; on a "
            "GPU, bench/cuda_gate_check.sh measures the CUDA gate"
        )
    build = os.path.abspath(a.build)
    if a.api == "cl":
        gate = os.path.join(build, "src", "sdk", "cl", "libbaton_cl.so")
        stub = os.path.join(build, "bench", "cl_stub")
        stub_lib = "libOpenCL.so.1"
    else:
        gate = os.path.join(build, "src", "sdk", "cuda", "libbaton_cuda.so")
        stub = os.path.join(build, "tests", "unit", "sdk")
        stub_lib = "libcuda.so.1"
    for f in (gate, os.path.join(build, "bench", "be_overhead")):
        if not os.path.exists(f):
            sys.exit(f"gate_overhead: {f} is not built (ninja -C {a.build})")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if a.runtime == "stub":
        if not os.path.exists(os.path.join(stub, stub_lib)):
            sys.exit(f"gate_overhead: no stub runtime {stub_lib} in {stub}")
        env["LD_LIBRARY_PATH"] = ":".join(
            p for p in (stub, os.environ.get("LD_LIBRARY_PATH")) if p
        )
    gated_env = dict(env, LD_PRELOAD=gate)

    print(f"{a.api} gate, runtime {a.runtime}, {a.n} launches a run, {a.rounds} rounds")
    print("round  plain median/p99 us  gated median/p99 us  gated-plain us")
    plain, gated = [], []
    for r in range(a.rounds):
        p = run(build, a.api, a.n, env)
        g = run(build, a.api + "fake", a.n, gated_env)
        plain.append(p)
        gated.append(g)
        print(
            f"{r + 1:5d}  {p[0]:8.2f} / {p[1]:7.2f}   "
            f"{g[0]:8.2f} / {g[1]:7.2f}   {g[0] - p[0]:+8.2f}"
        )
    pm = statistics.median(x[0] for x in plain)
    gm = statistics.median(x[0] for x in gated)
    diffs = [g[0] - p[0] for p, g in zip(plain, gated)]
    print(
        f"median of the rounds: plain {pm:.2f} us, gated {gm:.2f} us, "
        f"gated-plain {gm - pm:+.2f} us "
        f"(per round {min(diffs):+.2f} to {max(diffs):+.2f}); "
        f"p99 plain {max(x[1] for x in plain):.2f}, "
        f"gated {max(x[1] for x in gated):.2f} us at most"
    )


if __name__ == "__main__":
    main()
