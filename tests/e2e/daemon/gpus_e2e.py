#!/usr/bin/env python3
"""Several GPUs per node end to end: one batond with two
logical GPUs on llvmpipe, each a core set (`gpus` in its config: "left"
on the first CPU, "right" on the rest), and real games on both.

  gpus_e2e.py --baton B --batond D --xvfb X --glxgears G

Checks:
  run --gpu  `baton run --gpu left` and `--gpu right` start glxgears on
             each GPU: status puts each tenant on the GPU it named, its
             threads run on that GPU's CPUs only, and each GPU's
             controller sees load (its utilization above 0);
  affinity   a game started without --gpu but confined to the right
             GPU's CPUs (sched_setaffinity before exec) lands there too;
  metrics    /metrics has both GPUs' gauges and baton_gpu_info, and each
             tenant's baton_tenant_gpu;
  capacity   `baton capacity --json` answers per GPU and the node's
             `more` is their sum;
  unknown    `baton run --gpu nowhere` exits 1 naming the GPUs batond has,
             and starts nothing.
Exit 0, 1 on a failed check, 77 with one CPU."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batonbed import (Batond, Client, Fail, Xvfb, check,  # noqa: E402
                      child_or_self, cpu_list, kill_group,
                      terminate_on_sigterm, thread_cpus, wait_for)


def main():
    terminate_on_sigterm()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for a in ("baton", "batond", "xvfb", "glxgears"):
        p.add_argument("--" + a, required=True)
    a = p.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        print("SKIP: one CPU, no two core sets")
        return 77
    left, right = cpu_list(cpus[:1]), cpu_list(cpus[1:])
    with tempfile.TemporaryDirectory(prefix="baton-gpus-") as tmp, \
            Xvfb(a.xvfb) as x:
        sock = os.path.join(tmp, "batond.sock")
        conf = os.path.join(tmp, "batond.conf")
        with open(conf, "w") as f:
            f.write('gpus = ( { name = "left"; cpus = "%s"; },\n'
                    '         { name = "right"; cpus = "%s"; } );\n'
                    % (left, right))
        env = x.env(BATON_SOCKET=sock)
        daemon = Batond(a.batond, a.baton, sock,
                        ["--policy", "sa", "--sla", "30", "--config", conf],
                        env)
        daemon.start()
        clients = []
        try:
            # unknown: refused before anything starts
            r = subprocess.run([a.baton, "run", "--gpu", "nowhere", "--",
                                "true"], env=env, capture_output=True,
                               text=True, timeout=30)
            check(r.returncode == 1 and "no GPU \"nowhere\"" in r.stderr
                  and "left, right" in r.stderr,
                  "baton run --gpu nowhere: exit %d, %r" % (r.returncode,
                                                            r.stderr))
            print("unknown: ok (%s)" % r.stderr.strip())

            for name, gpu in (("g-left", "left"), ("g-right", "right")):
                clients.append(Client(
                    [a.baton, "run", "--gpu", gpu, "--name", name, "--",
                     a.glxgears], env).__enter__())
            # no --gpu: confined to the right GPU's CPUs by its parent
            clients.append(Client(
                ["taskset", "-c", right, a.baton, "run", "--name",
                 "g-pinned", "--", a.glxgears], env).__enter__())
            daemon.wait_tenants(["g-left", "g-right", "g-pinned"], 20)

            def placed():
                st = daemon.status()
                gpus = {g["name"]: g for g in st.get("gpus", [])}
                if len(gpus) != 2 or not all(
                        g["gpu_util"] > 0 for g in gpus.values()):
                    return None
                return st
            st = wait_for("both GPUs' controllers see load", placed, 15)
            on = {t["name"]: t["gpu"] for t in st["tenants"]}
            check(on == {"g-left": "left", "g-right": "right",
                         "g-pinned": "right"},
                  "tenants on %s" % on)
            gpus = {g["name"]: g for g in st["gpus"]}
            check(gpus["left"]["cpus"] == left and
                  gpus["right"]["cpus"] == right and
                  gpus["left"]["tenants"] == 1 and
                  gpus["right"]["tenants"] == 2,
                  "gpus in status: %s" % st["gpus"])
            for c, want in zip(clients, (left, right, right)):
                pid = child_or_self(c.proc.pid)
                check(thread_cpus(pid) == {want},
                      "pid %d on %s, want %s" % (pid, thread_cpus(pid),
                                                 want))
            print("run --gpu, affinity: ok (left %.3f, right %.3f busy)" %
                  (gpus["left"]["gpu_util"], gpus["right"]["gpu_util"]))

            m = daemon.metrics()
            for want in ('baton_gpu_utilization{gpu="0"}',
                         'baton_gpu_utilization{gpu="1"}',
                         'baton_gpu_info{gpu="1",gpu_id="right"'):
                check(want in m, "/metrics lacks %s" % want)
            gpu_of = re.findall(r'^baton_tenant_gpu\{[^}]*\} (\S+)$', m,
                                re.M)
            check(sorted(gpu_of) == ["0", "1", "1"],
                  "baton_tenant_gpu: %s" % gpu_of)
            print("metrics: ok")

            r = subprocess.run([a.baton, "capacity", "--cost", "2",
                                "--sla", "30", "--json"], env=env,
                               capture_output=True, text=True, timeout=30)
            check(r.returncode in (0, 5), "baton capacity: exit %d %s" % (
                r.returncode, r.stderr))
            cap = json.loads(r.stdout)
            per = cap.get("gpus", [])
            check([g["name"] for g in per] == ["left", "right"],
                  "capacity gpus: %s" % per)
            check(cap["more"] == sum(g["more"] for g in per),
                  "node more %s is not the sum of %s" % (cap["more"], per))
            print("capacity: ok (node %d more: %s)" % (
                cap["more"], ", ".join("%s %d" % (g["name"], g["more"])
                                       for g in per)))
        finally:
            for c in clients:
                kill_group(c.proc)
            daemon.stop()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
