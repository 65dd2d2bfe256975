#!/usr/bin/env python3
"""The OpenCL gate's device filter end to end: cl-devices (an unmodified
OpenCL program that lists the platforms and devices it is shown, and the
devices of a context clCreateContextFromType makes on each) under
`baton run --be`, with PoCL and a fake ICD (fake_icd.c: fake-a and
fake-b report a UUID and a PCI slot, fake-c a slot only) visible through
OCL_ICD_VENDORS.

    cl_devices_e2e.py MODE --baton B --batond D --gate G --program P
                      --fake-icd F

MODE is one of
  gate  the variables set by hand (no batond): without them the program
        sees every device; with fake-a's UUID only fake-a (one platform,
        its context and the default device fake-a too), with fake-b's
        only fake-b; with fake-c's slot (BATON_DEVICE_PCI) only fake-c,
        with fake-a's slot and no UUID only fake-a; with a UUID no device
        has, or a malformed one, every device, and one line saying why
        (a malformed UUID beside a good slot: the slot's device, the
        value named in the same line);
  run   batond with two logical GPUs whose devices are fake-b's and
        fake-a's NVML-style UUIDs ("left", "right") and one named by
        fake-c's PCI slot: `baton run --be` without --gpu is placed left
        and sees fake-b alone; under taskset on right's CPUs, placed
        right, fake-a alone; --gpu on the third, fake-c alone.
Exit 0, 1 on a failed check, 77 when PoCL's ICD is not installed."""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
from batonbed import Batond, Fail, check, cpu_list  # noqa: E402

# fake_icd.c's devices: (UUID, PCI slot or None)
FAKE = {"fake-a": ("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", "0000:0a:00.0"),
        "fake-b": ("b0b1b2b3b4b5b6b7b8b9babbbcbdbebf", "0000:0b:00.0"),
        "fake-c": (None, "0000:0c:00.0")}
NOWHERE = "c0ffee00c0ffee00c0ffee00c0ffee00"
VARS = ("BATON_VK_DEVICE_UUID", "BATON_DEVICE_PCI", "BATON_GPU")


def vendors(tmp, fake_icd):
    """A folder of .icd files: the system's (PoCL's) and the fake's."""
    d = os.path.join(tmp, "vendors")
    os.mkdir(d)
    found = glob.glob("/etc/OpenCL/vendors/*.icd")
    for f in found:
        with open(f) as src, open(os.path.join(d, os.path.basename(f)),
                                  "w") as dst:
            dst.write(src.read())
    with open(os.path.join(d, "baton-fake.icd"), "w") as f:
        f.write(fake_icd + "\n")
    return d, any("pocl" in os.path.basename(f) for f in found)


def run(a, env, what, prefix=(), gpu=()):
    argv = list(prefix) + [a.baton, "run", "--be"] + list(gpu) + \
        ["--", a.program]
    r = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, errors="replace",
                       timeout=60)
    check(r.returncode == 0, "%s exited %d:\n%s" % (
        " ".join(argv), r.returncode, (r.stdout + r.stderr)[-3000:]))
    line = [x for x in r.stdout.splitlines() if x.startswith("{")]
    check(line, "the program printed nothing:\n" + r.stdout + r.stderr)
    got = json.loads(line[-1])
    shown = {p["name"]: p["devices"] for p in got["platforms"]}
    print("%s: %s, default %s" % (what, shown, got["default"]))
    return got, r.stderr


def devices(got):
    return sorted(d for p in got["platforms"] for d in p["devices"])


def check_only(got, err, name, what):
    """Exactly device name is shown: one platform, its only device, in
    the context made from type, and the default."""
    p = got["platforms"]
    check(len(p) == 1 and p[0]["devices"] == [name] and
          p[0]["context"] == [name] and got["default"] == name,
          "%s: want %s alone, saw %s" % (what, name, got))
    check("showing the program only the device placed on" in err and
          ": 1 of " in err,
          "%s: no line naming the filter:\n%s" % (what, err))


def check_all(got, err, everything, what, why):
    check(devices(got) == everything,
          "%s: want every device %s, saw %s" % (what, everything, got))
    check(why in err, "%s: no line \"%s\":\n%s" % (what, why, err))


def check_gate(a, env):
    got, _ = run(a, env, "no filter")
    everything = devices(got)
    fakes = [p for p in got["platforms"] if p["name"] == "Baton fake ICD"]
    check(fakes and fakes[0]["devices"] == sorted(FAKE) and
          fakes[0]["context"] == sorted(FAKE) and len(everything) > 3,
          "without a filter: want PoCL's and the three fake devices, "
          "saw %s" % got)
    for name in ("fake-a", "fake-b"):
        what = "%s's UUID" % name
        got, err = run(a, dict(env, BATON_VK_DEVICE_UUID=FAKE[name][0]),
                       what)
        check_only(got, err, name, what)
    for name in ("fake-c", "fake-a"):
        what = "%s's slot" % name
        got, err = run(a, dict(env, BATON_DEVICE_PCI=FAKE[name][1]), what)
        check_only(got, err, name, what)
    what = "a UUID no device has"
    got, err = run(a, dict(env, BATON_VK_DEVICE_UUID=NOWHERE), what)
    check_all(got, err, everything, what,
              "no device is the GPU placed on (UUID %s): of %d devices 2 "
              "report a UUID" % (NOWHERE, len(everything)))
    what = "a malformed UUID"
    got, err = run(a, dict(env, BATON_VK_DEVICE_UUID="GPU-xyz\n"), what)
    check_all(got, err, everything, what,
              'BATON_VK_DEVICE_UUID="GPU-xyz?" is not a device UUID')
    what = "a malformed UUID beside fake-b's slot"
    got, err = run(a, dict(env, BATON_VK_DEVICE_UUID="GPU-xyz",
                           BATON_DEVICE_PCI=FAKE["fake-b"][1]), what)
    check_only(got, err, "fake-b", what)
    check('BATON_VK_DEVICE_UUID="GPU-xyz" is not' in err,
          "%s: the malformed value not named:\n%s" % (what, err))
    print("gate: each fake kept alone by its UUID or slot; every device "
          "kept for no match and for a malformed value")


def nvml_form(u):
    return "GPU-%s-%s-%s-%s-%s" % (u[:8], u[8:12], u[12:16], u[16:20],
                                   u[20:])


def check_run(a, env, tmp):
    cpus = sorted(os.sched_getaffinity(0))
    left, right = (cpu_list(cpus[:1]), cpu_list(cpus[1:])) \
        if len(cpus) > 1 else (cpu_list(cpus), None)
    conf = os.path.join(tmp, "batond.conf")
    with open(conf, "w") as f:
        f.write('gpus = ( { name = "left"; cpus = "%s"; device = "%s"; },\n'
                % (left, nvml_form(FAKE["fake-b"][0])))
        if right:
            f.write('  { name = "right"; cpus = "%s"; device = "%s"; },\n'
                    % (right, nvml_form(FAKE["fake-a"][0])))
        f.write('  { name = "slot"; device = "%s"; } );\n'
                'placement = "spread";\n' % FAKE["fake-c"][1])
    sock = os.path.join(tmp, "batond.sock")
    env = dict(env, BATON_SOCKET=sock)
    with Batond(a.batond, a.baton, sock, ["--config", conf], env):
        what = "placed (left)"
        got, err = run(a, env, what)
        check_only(got, err, "fake-b", what)
        if right:
            what = "placed under taskset (right)"
            got, err = run(a, env, what, ("taskset", "-c", right))
            check_only(got, err, "fake-a", what)
        what = "--gpu slot"
        got, err = run(a, env, what, gpu=("--gpu", "slot"))
        check_only(got, err, "fake-c", what)
    print("run: placed left sees fake-b, right fake-a%s; --gpu slot "
          "fake-c" % ("" if right else " (skipped: one CPU)"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=("gate", "run"))
    for x in ("baton", "batond", "gate", "program", "fake-icd"):
        p.add_argument("--" + x, required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="baton-cldev-") as tmp:
        vdir, pocl = vendors(tmp, os.path.abspath(a.fake_icd))
        if not pocl:
            print("SKIP: PoCL's ICD is not installed")
            return 77
        env = {k: v for k, v in os.environ.items()
               if k not in VARS and k != "LD_PRELOAD"}
        env.update(OCL_ICD_VENDORS=vdir, BATON_CL_GATE_PATH=a.gate,
                   BATON_SOCKET=os.path.join(tmp, "none.sock"))
        try:
            if a.mode == "gate":
                check_gate(a, env)
            else:
                check_run(a, env, tmp)
        except Fail as e:
            print("FAIL: %s" % e)
            return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
