#!/usr/bin/env python3
"""deploy/kubernetes/batond-daemonset.yaml and deploy/agones/fleet.yaml
against batond (test deploy-manifests; docs/deploy.md).

The DaemonSet: its service account is bound to a ClusterRole granting
`patch` on core `nodes/status` (what batond sends) and nothing wider;
NODE_NAME comes from the downward API (spec.nodeName); the token is
mounted; --config names the ConfigMap's key where it is mounted. The
Fleet: its GameServer declares the counter batond's config names. Each
ConfigMap's batond.cfg is started with the real batond (env as in the
pod, peers refusing) and must run: a key batond refuses fails the test.
Needs PyYAML.
Usage: check_manifests.py --batond EXE --source-root DIR
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import yaml


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def docs(path):
    with open(path) as f:
        return {(d["kind"], d["metadata"]["name"]): d
                for d in yaml.safe_load_all(f) if d}


def runs(batond, cfg_text, env_extra):
    """batond starts on cfg_text and is still running after 1.5 s."""
    with tempfile.TemporaryDirectory(prefix="baton-manifest-") as tmp:
        cfg = os.path.join(tmp, "batond.cfg")
        with open(cfg, "w") as f:
            f.write(cfg_text)
        env = dict(os.environ, **env_extra)
        env.pop("BATON_LOG", None)
        p = subprocess.Popen([batond, "--config", cfg, "--socket",
                              os.path.join(tmp, "s"), "--metrics", "off"],
                             env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        alive = p.poll() is None
        p.terminate()
        err = p.communicate(timeout=10)[1]
    if not alive:
        fail("batond refused the manifest's config (exit %s): %s\n%s"
             % (p.returncode, err.strip(), cfg_text))
    return err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batond", required=True)
    ap.add_argument("--source-root", required=True)
    a = ap.parse_args()
    ds = docs(os.path.join(a.source_root, "deploy", "kubernetes",
                           "batond-daemonset.yaml"))
    d = ds[("DaemonSet", "batond")]
    ns = d["metadata"]["namespace"]
    spec = d["spec"]["template"]["spec"]
    sa = spec["serviceAccountName"]
    if ("ServiceAccount", sa) not in ds:
        fail("no ServiceAccount %s" % sa)
    if spec.get("automountServiceAccountToken") is False:
        fail("the token is not mounted")
    binds = [b for (k, _), b in ds.items() if k == "ClusterRoleBinding"
             and any(s["kind"] == "ServiceAccount" and s["name"] == sa and
                     s["namespace"] == ns for s in b["subjects"])]
    if len(binds) != 1:
        fail("the service account is bound %d times" % len(binds))
    role = ds[("ClusterRole", binds[0]["roleRef"]["name"])]
    rules = role["rules"]
    if rules != [{"apiGroups": [""], "resources": ["nodes/status"],
                  "verbs": ["patch"]}]:
        fail("the ClusterRole grants %s, not just patch on nodes/status"
             % rules)
    c = spec["containers"][0]
    env = {e["name"]: e for e in c.get("env", [])}
    if env.get("NODE_NAME", {}).get("valueFrom", {}).get(
            "fieldRef", {}).get("fieldPath") != "spec.nodeName":
        fail("NODE_NAME is not the downward API's spec.nodeName")
    cfg_path = c["args"][c["args"].index("--config") + 1]
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in spec["volumes"]}
    folder, key = os.path.split(cfg_path)
    cm_name = vols[mounts[folder]]["configMap"]["name"]
    cfg = ds[("ConfigMap", cm_name)]["data"][key]
    if not re.search(r"kubernetes\s*=\s*\{[^}]*enabled\s*=\s*true", cfg):
        fail("the DaemonSet's config does not enable kubernetes")
    err = runs(a.batond, cfg, {"NODE_NAME": "node-1",
                               "KUBERNETES_SERVICE_HOST": "127.0.0.1",
                               "KUBERNETES_SERVICE_PORT": "1"})
    print("DaemonSet: RBAC %s; its config runs (%d lines of log)"
          % (rules, len(err.splitlines())))
    fl = docs(os.path.join(a.source_root, "deploy", "agones", "fleet.yaml"))
    fleet = fl[("Fleet", "baton-games")]
    gs = fleet["spec"]["template"]["spec"]
    pod = gs["template"]["spec"]
    b = [x for x in pod["containers"] if x["name"] == "batond"][0]
    bmounts = {m["mountPath"]: m["name"] for m in b["volumeMounts"]}
    folder, key = os.path.split(b["args"][b["args"].index("--config") + 1])
    bvols = {v["name"]: v for v in pod["volumes"]}
    cfg = fl[("ConfigMap", bvols[bmounts[folder]]["configMap"]["name"])][
        "data"][key]
    m = re.search(r'counter\s*=\s*"([^"]+)"', cfg)
    counter = m.group(1) if m else "sessions"
    if counter not in gs.get("counters", {}):
        fail("the GameServer has no counter %r (has %s)" % (
            counter, list(gs.get("counters", {}))))
    runs(a.batond, cfg, {"AGONES_SDK_HTTP_PORT": "1"})
    print("Fleet: counter %r declared; batond's config runs" % counter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
