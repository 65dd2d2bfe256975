#!/usr/bin/env python3
"""The Vulkan layer's device selection end to end, on lavapipe: a client
(devices_client.c, no window) lists the physical devices and groups it
sees.

    devices_e2e.py MODE --layer-dir DIR --client PATH
                   [--baton PATH --batond PATH --shim PATH
                    --xvfb PATH --glxgears PATH]

MODE is one of
  layer  BATON_VK_DEVICE_UUID set by hand: without it the client sees
         lavapipe; with lavapipe's own UUID it sees that device alone (and
         one group of one); with any other UUID it sees none; with a
         malformed value the filter is off;
  run    batond with two GPUs named by NVML-style UUIDs, one lavapipe's,
         one not: `baton run --gpu` on the first shows the client
         lavapipe, on the second nothing;
  gl     the same batond, the second GPU listed first: glxgears with the
         GL shim preloaded (no baton run, no BATON_GPU) reports its
         device's UUID (GL_EXT_memory_object's GL_DEVICE_UUID_EXT, on
         Mesa the same as lavapipe's deviceUUID), and batond puts it on
         the GPU of that UUID, not on the first.

Every run uses VK_LOADER_DEBUG=layer, and the test checks that the loader
inserted this build's layer, so a run without it cannot pass."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
from vram_e2e import LAYER, Failure, base_env  # noqa: E402


def run_client(args, env, prefix=()):
    cmd = list(prefix) + [args.client]
    proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, errors="replace",
                          timeout=60)
    out, err = proc.stdout, proc.stderr
    if proc.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                      + (out + err)[-4000:])
    if f'"{LAYER}"' not in err or "Insert" not in err:
        raise Failure(f"{LAYER} was not loaded:\n" + err[-4000:])
    line = [x for x in out.splitlines() if x.startswith("{")]
    if not line:
        raise Failure("the client printed no result:\n" + out[-4000:])
    got = json.loads(line[-1])
    print(f"{' '.join(cmd[:-1]) or 'client'}: {got}")
    return got


def other(uuid):
    """A UUID that is not uuid (its last digit changed)."""
    return uuid[:-1] + ("0" if uuid[-1] != "0" else "1")


def nvml_form(uuid):
    u = uuid
    return "GPU-%s-%s-%s-%s-%s" % (u[:8], u[8:12], u[12:16], u[16:20],
                                   u[20:])


def lavapipe(args, env):
    got = run_client(args, env)
    if got["count"] < 1:
        raise Failure("without a selection the client sees no device")
    return got["devices"][0]["uuid"], got["count"]


def check_layer(args, env):
    uuid, n = lavapipe(args, env)
    got = run_client(args, dict(env, BATON_VK_DEVICE_UUID=uuid))
    if got["count"] != 1 or got["devices"][0]["uuid"] != uuid or \
            got["groups"] != [1]:
        raise Failure(f"selected {uuid}: saw {got}")
    got = run_client(args, dict(env, BATON_VK_DEVICE_UUID=other(uuid)))
    if got["count"] != 0 or got["groups"] != []:
        raise Failure(f"selected another device: saw {got}")
    got = run_client(args, dict(env, BATON_VK_DEVICE_UUID="GPU-xyz"))
    if got["count"] != n:
        raise Failure(f"a malformed selection hid devices: {got}")
    print(f"layer: lavapipe {uuid} kept by its UUID, hidden by another")


def check_run(args, env):
    from batonbed import Batond
    uuid, _ = lavapipe(args, env)
    with tempfile.TemporaryDirectory(prefix="baton-vkdev-") as tmp:
        sock = os.path.join(tmp, "batond.sock")
        conf = batond_conf(tmp, [("lvp", uuid), ("other", other(uuid))])
        env = dict(env, BATON_SOCKET=sock, BATON_SHIM_PATH=args.shim)
        with Batond(args.batond, args.baton, sock, ["--config", conf],
                    env):
            on = run_client(args, env, (args.baton, "run", "--gpu", "lvp",
                                        "--"))
            off = run_client(args, env, (args.baton, "run", "--gpu",
                                         "other", "--"))
    if on["count"] != 1 or on["devices"][0]["uuid"] != uuid:
        raise Failure(f"--gpu lvp: saw {on}")
    if off["count"] != 0:
        raise Failure(f"--gpu other: saw {off}")
    print("run: --gpu lvp sees lavapipe, --gpu other sees no device")


def batond_conf(tmp, gpus):
    conf = os.path.join(tmp, "batond.conf")
    with open(conf, "w") as f:
        f.write("gpus = ( %s );\n" % ",\n".join(
            '{ name = "%s"; device = "%s"; }' % (n, nvml_form(u))
            for n, u in gpus))
    return conf


def check_gl(args, env):
    from batonbed import Batond, Client, Xvfb, wait_for
    uuid, _ = lavapipe(args, env)
    with tempfile.TemporaryDirectory(prefix="baton-gldev-") as tmp, \
            Xvfb(args.xvfb) as x:
        sock = os.path.join(tmp, "batond.sock")
        conf = batond_conf(tmp, [("other", other(uuid)), ("llvm", uuid)])
        genv = x.env(BATON_SOCKET=sock, LD_PRELOAD=args.shim)
        genv.pop("BATON_GPU", None)
        with Batond(args.batond, args.baton, sock, ["--config", conf],
                    dict(env, BATON_SOCKET=sock)) as d, \
                Client([args.glxgears], genv):
            d.wait_tenants(["glxgears"], 20)
            on = wait_for("glxgears in status", lambda: {
                t["name"]: t["gpu"] for t in d.status()["tenants"]}, 5)
    if on.get("glxgears") != "llvm":
        raise Failure(f"glxgears on {on}, want llvm (its GL device "
                      f"{uuid})")
    print(f"gl: glxgears reported {uuid} and is on llvm, not the first")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=("layer", "run", "gl"))
    p.add_argument("--layer-dir", required=True)
    p.add_argument("--client", required=True)
    p.add_argument("--baton")
    p.add_argument("--batond")
    p.add_argument("--shim")
    p.add_argument("--xvfb")
    p.add_argument("--glxgears")
    args = p.parse_args()
    env = base_env(args)
    try:
        if args.mode == "layer":
            check_layer(args, env)
        elif args.mode == "run":
            check_run(args, env)
        else:
            check_gl(args, env)
    except Failure as e:
        print(f"FAIL: {e}")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
