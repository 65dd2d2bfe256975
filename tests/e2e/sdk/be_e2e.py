#!/usr/bin/env python3
"""The BE SDK and the OpenCL gate against a real batond: no
display, PoCL for the device. Standard library only.

  be_e2e.py --baton B --batond D --matmul M

Checks, on a private socket:
  sdk       be-matmul (the SDK) registers as a best-effort tenant; batond's
            status shows it with work done, no bad records, continuous mode
            (no games); the product is right.
  lost      batond is killed while be-matmul runs: the program says it
            lost batond, finishes in the probe loop, product right.
  gate      an unmodified OpenCL program (be-matmul --naive) under
            `baton run --be` with BATON_CL_SPLIT=matmul: registered under
            its --name, work done, product right.
  deadline  batond keeps the whole GPU from best-effort work
            (harvest.util_margin = 1): be-matmul --seconds 1 still stops
            within a few seconds, having done nothing, instead of
            waiting for a window forever.
Exit 0, 1 on a failed check, 77 with no OpenCL device."""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


class Batond:
    def __init__(self, exe, sock):
        self.exe, self.sock, self.proc = exe, sock, None

    def start(self, config=None):
        extra = ["--config", config] if config else []
        self.proc = subprocess.Popen(
            [self.exe, "--socket", self.sock, "--metrics", "off"] + extra,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.sock):
            check(time.monotonic() < deadline and self.proc.poll() is None,
                  "batond did not bind %s" % self.sock)
            time.sleep(0.05)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if os.path.exists(self.sock):
            os.unlink(self.sock)


def status(baton, env):
    out = subprocess.run([baton, "status", "--json"], env=env,
                         capture_output=True, text=True, timeout=10)
    check(out.returncode == 0, "baton status failed: " + out.stderr)
    return json.loads(out.stdout)


def be_row(baton, env, name, timeout=10.0):
    """The status row of BE tenant name once it has done some work."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for row in status(baton, env).get("be", []):
            if row.get("name") == name and row.get("units", 0) > 0:
                return row
        time.sleep(0.2)
    fail("no BE tenant %s with work done in batond's status" % name)


def finish(proc, what):
    out, err = proc.communicate(timeout=300)
    check(proc.returncode == 0, "%s exited %d:\n%s%s"
          % (what, proc.returncode, out, err))
    check("check ok" in out, "%s: product not checked ok:\n%s" % (what, out))
    return out, err


def check_deadline(a, env, d, tmp):
    cfg = os.path.join(tmp, "no-be.cfg")
    with open(cfg, "w") as f:
        f.write("harvest = { util_margin = 1.0; };\n")
    d.start(cfg)
    t0 = time.monotonic()
    try:
        p = subprocess.run([a.matmul, "--n", "256", "--seconds", "1",
                            "--name", "deadline-mm"], env=env,
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        fail("be-matmul --seconds 1 still waiting for a window after 30 s")
    took = time.monotonic() - t0
    os.unlink(cfg)
    check(p.returncode == 0, "be-matmul exited %d:\n%s"
          % (p.returncode, p.stderr))
    check("batond" in p.stdout and " 0 rows" in p.stdout,
          "expected no work under batond: " + p.stdout)
    check(took < 10, "be-matmul --seconds 1 took %.1f s" % took)
    print("deadline: ok (stopped after %.1f s with no window)" % took)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--batond", required=True)
    ap.add_argument("--matmul", required=True)
    a = ap.parse_args()
    probe = subprocess.run([a.matmul, "--n", "8", "--tasks", "1", "--naive",
                            "--quiet"], capture_output=True)
    if probe.returncode == 77:
        print("no OpenCL device: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="baton-be-e2e-")
    env = dict(os.environ, BATON_SOCKET=os.path.join(tmp, "batond.sock"))
    env.pop("LD_PRELOAD", None)
    d = Batond(a.batond, env["BATON_SOCKET"])
    try:
        # sdk
        d.start()
        p = subprocess.Popen([a.matmul, "--n", "384", "--tasks", "40",
                              "--check", "--name", "sdk-mm"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        row = be_row(a.baton, env, "sdk-mm")
        check(row["bad_records"] == 0, "bad records: %s" % row)
        deadline = time.monotonic() + 5
        while row["mode"] != "continuous" and time.monotonic() < deadline:
            time.sleep(0.2)
            row = be_row(a.baton, env, "sdk-mm")
        check(row["mode"] == "continuous",
              "not continuous with no games: %s" % row)
        out, _ = finish(p, "be-matmul")
        check("batond" in out, "be-matmul did not end registered: " + out)
        print("sdk: ok (%.0f units/s in status, %s)"
              % (row["units_per_s"], out.strip().splitlines()[0]))

        # lost
        p = subprocess.Popen([a.matmul, "--n", "384", "--tasks", "40",
                              "--check", "--name", "lost-mm"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        be_row(a.baton, env, "lost-mm")
        d.kill()
        out, err = finish(p, "be-matmul after losing batond")
        check("lost batond" in err, "no word of the lost batond:\n" + err)
        check("probe" in out, "did not end in the probe loop: " + out)
        print("lost: ok (%s)" % out.strip().splitlines()[0])

        # gate
        d.start()
        genv = dict(env, BATON_CL_SPLIT="matmul")
        p = subprocess.Popen([a.baton, "run", "--be", "--name", "gated-mm",
                              "--", a.matmul, "--naive", "--n", "384",
                              "--tasks", "40", "--check"], env=genv,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        row = be_row(a.baton, env, "gated-mm")
        check(row["bad_records"] == 0, "bad records: %s" % row)
        out, _ = finish(p, "be-matmul under the gate")
        print("gate: ok (%.0f units/s in status, %s)"
              % (row["units_per_s"], out.strip().splitlines()[0]))
        d.kill()
        check_deadline(a, env, d, tmp)
    finally:
        d.kill()
        try:
            os.rmdir(tmp)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main())
