#!/usr/bin/env python3
"""The Vulkan layer's video-memory limit end to end, on lavapipe: a client
(vram_client.c) with no window allocates BLOCK-byte blocks on a device-local
heap until VK_ERROR_OUT_OF_DEVICE_MEMORY or CAP, frees every other one and
allocates again, and says what it got and the heap budget it read
(VK_EXT_memory_budget).

    vram_e2e.py MODE --layer-dir DIR --client PATH [--baton PATH --shim PATH]

MODE is one of
  unlimited  the layer loaded, no limit: the client gets all CAP blocks, as
             lavapipe gives them;
  limit      BATON_VRAM_LIMIT=LIMIT: it gets at most LIMIT and at least
             LIMIT less one block, refused with VK_ERROR_OUT_OF_DEVICE_MEMORY;
             the budget it read, before and after, is at most LIMIT; after
             freeing, it gets back exactly as many blocks as it freed;
  run        the same through `baton run --vram-limit LIMIT`;
  bad        BATON_VRAM_LIMIT=12Q (BATON_LOG=warn): unlimited, and the layer
             says so in one line.

Every run uses VK_LOADER_DEBUG=layer, and the test checks that the loader
inserted this build's layer, so a run without it cannot pass. LIMIT is not a
multiple of BLOCK, so "at least LIMIT less one block" is a real bound.
"""

import argparse
import json
import os
import subprocess
import sys

LAYER = "VK_LAYER_BATON_pacing"
BLOCK = 16 << 20
CAP = 64  # 1 GiB: lavapipe's heap is the machine's memory, larger still
LIMIT = "200M"
LIMIT_BYTES = 200 << 20
VK_ERROR_OUT_OF_DEVICE_MEMORY = -2
LVP_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
SCRUBBED = ("ENABLE_BATON_LAYER", "DISABLE_BATON_LAYER", "VK_INSTANCE_LAYERS",
            "VK_LAYER_PATH", "VK_ADD_LAYER_PATH", "VK_IMPLICIT_LAYER_PATH",
            "VK_ADD_IMPLICIT_LAYER_PATH", "VK_LOADER_LAYERS_ENABLE",
            "VK_LOADER_LAYERS_DISABLE", "VK_LOADER_DEBUG")


class Failure(Exception):
    pass


def base_env(args):
    env = {k: v for k, v in os.environ.items()
           if k not in SCRUBBED and not k.startswith("BATON_")}
    env["XDG_DATA_DIRS"] = args.layer_dir + ":" + (
        os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share")
    env["BATON_SOCKET"] = "/nonexistent/baton.sock"
    env["VK_LOADER_DEBUG"] = "layer"
    env["ENABLE_BATON_LAYER"] = "1"
    # lavapipe only: a machine's hardware driver would make other numbers.
    if os.path.exists(LVP_ICD):
        env["VK_DRIVER_FILES"] = env["VK_ICD_FILENAMES"] = LVP_ICD
    return env


def run_client(args, env, prefix=()):
    cmd = list(prefix) + [args.client, str(BLOCK), str(CAP)]
    proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=60)
    out = proc.stdout.decode(errors="replace")
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                      + (out + err)[-4000:])
    manifest = os.path.join(args.layer_dir, "vulkan", "implicit_layer.d",
                            "VkLayer_baton.json")
    with open(manifest, encoding="utf-8") as f:
        library = json.load(f)["layer"]["library_path"]
    if f'Inserted device layer "{LAYER}" ({library})' not in out + err:
        raise Failure(f"{LAYER} ({library}) was not loaded:\n"
                      + (out + err)[-4000:])
    line = [x for x in out.splitlines() if x.startswith("{")]
    if not line:
        raise Failure("the client printed no result:\n" + out[-4000:])
    got = json.loads(line[-1])
    print(f"{' '.join(cmd[:-3]) or 'client'}: {got}")
    return got, err


def check_unlimited(args, env):
    got, _ = run_client(args, env)
    if got["first"] != CAP or got["again"] != got["freed"]:
        raise Failure(f"without a limit the client got {got['first']} "
                      f"blocks (then {got['again']} of {got['freed']} "
                      f"freed); lavapipe gives all {CAP}")
    return got


def check_limited(got):
    first_bytes = got["first"] * BLOCK
    print(f"limit {LIMIT_BYTES} bytes: got {first_bytes} "
          f"({got['first']} blocks of {BLOCK}), budget read "
          f"{got['budget']} before and {got['budget_full']} when full")
    if not LIMIT_BYTES - BLOCK <= first_bytes <= LIMIT_BYTES:
        raise Failure(f"{first_bytes} bytes is not within one block under "
                      f"the limit of {LIMIT_BYTES}")
    if got["first_end"] != VK_ERROR_OUT_OF_DEVICE_MEMORY:
        raise Failure(f"refused with {got['first_end']}, not "
                      "VK_ERROR_OUT_OF_DEVICE_MEMORY")
    if got["budget"] < 0:
        raise Failure("lavapipe has no VK_EXT_memory_budget here: the "
                      "budget cannot be checked")
    if got["budget"] > LIMIT_BYTES or got["budget_full"] > LIMIT_BYTES:
        raise Failure(f"heapBudget {got['budget']} / {got['budget_full']} "
                      f"is above the limit {LIMIT_BYTES}")
    if got["freed"] < 1 or got["again"] != got["freed"]:
        raise Failure(f"after freeing {got['freed']} blocks the client got "
                      f"{got['again']} back")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=("unlimited", "limit", "run", "bad"))
    p.add_argument("--layer-dir", required=True)
    p.add_argument("--client", required=True)
    p.add_argument("--baton")
    p.add_argument("--shim")
    args = p.parse_args()
    env = base_env(args)
    try:
        if args.mode == "unlimited":
            got = check_unlimited(args, env)
            print(f"unlimited: {got['first']} blocks, budget read "
                  f"{got['budget']}")
        elif args.mode == "limit":
            got, _ = run_client(args, dict(env, BATON_VRAM_LIMIT=LIMIT))
            check_limited(got)
        elif args.mode == "run":
            env["BATON_SHIM_PATH"] = args.shim
            got, _ = run_client(args, env, prefix=(
                args.baton, "run", "--vram-limit", LIMIT, "--"))
            check_limited(got)
        else:
            bad = dict(env, BATON_VRAM_LIMIT="12Q", BATON_LOG="warn")
            got, err = run_client(args, bad)
            if got["first"] != CAP:
                raise Failure(f"a bad limit limited: {got['first']} blocks")
            lines = [x for x in err.splitlines()
                     if "BATON_VRAM_LIMIT=12Q" in x]
            print(f"log: {lines}")
            if len(lines) != 1:
                raise Failure(f"want one log line naming the bad value, "
                              f"got {len(lines)}:\n" + err[-4000:])
    except Failure as e:
        print(f"FAIL: {e}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
