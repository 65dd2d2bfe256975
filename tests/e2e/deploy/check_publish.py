#!/usr/bin/env python3
"""batond publishing admission to Agones and Kubernetes
(docs/deploy.md), against the loopback fakes of fakes.py (Agones'
routes and bodies from its v1.56.0 SDK OpenAPI files; a TLS API server
with a self-signed certificate made by openssl).

A real batond with apps = ({ name = "glxgears"; cost_ms; sla }), agones
and kubernetes enabled; the SDK port and the node name come from
AGONES_SDK_HTTP_PORT and NODE_NAME (the env fallbacks), the API server
from the config (api, token_file, ca_file: the fake's certificate is
the only trust anchor). Checks:
  - with no game: the counter is set (count 0, capacity what
    `baton capacity --profile glxgears --json` says is `more`) before
    Ready is sent; Health comes again and again; the node's status holds
    baton.dev/game-sessions = more in capacity and allocatable;
  - with glxgears running under `baton run` on a private Xvfb: count 1
    and capacity 1 + more (or 1 while admission says no), the node at the
    same, within 20 s (admission moves with the load: compared until they
    agree);
  - the fakes found nothing a real server would refuse (path, verb,
    content type, body schema, bearer token);
  - each kubectl given sends the same patch: the same verb, path,
    content type, token and body (JSON-equal). Debian 12 packages kubectl
    as kubernetes-client 1.20.2, which has no --subresource (1.24+) and
    so cannot patch a node's status: with it, the node object is patched
    and the request must be batond's but for the path's /status (run by
    hand: `apt-get download kubernetes-client`, `dpkg -x`, then
    --kubectl .../usr/bin/kubectl). Meson passes the kubectl on PATH
    (here Google's 1.32.4, which has --subresource). The API
    documentation's own example (Advertise Extended Resources for a
    Node) is the same JSON patch with "~1" for the slash.
Usage: check_publish.py --batond EXE --baton EXE --glxgears EXE
       --xvfb EXE [--kubectl EXE]...
"""
import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
import fakes  # noqa: E402
from batonbed import Batond, Client, Fail, Xvfb, check  # noqa: E402

RESOURCE = "baton.dev/game-sessions"
NODE = "node-1"


def config(path, k8s, token, cert):
    with open(path, "w") as f:
        f.write('apps = ( { name = "glxgears"; cost_ms = 4.0; sla = 30.0; }'
                ' );\n'
                'agones = { enabled = true; health_ms = 500; };\n'
                'kubernetes = { enabled = true; api = "https://127.0.0.1:%d";'
                ' token_file = "%s"; ca_file = "%s"; refresh_ms = 1000; };\n'
                % (k8s.port, token, cert))


def capacity(baton, env):
    r = subprocess.run([baton, "capacity", "--profile", "glxgears",
                        "--json"], env=env, capture_output=True, text=True,
                       timeout=10)
    check(r.returncode in (0, 3) or r.stdout, "baton capacity failed: %s"
          % r.stderr)
    return json.loads(r.stdout)


def node_value(k8s):
    st = k8s.node["status"]
    return st["capacity"].get(RESOURCE), st["allocatable"].get(RESOURCE)


def agree(baton, env, ag, k8s, sessions, timeout):
    """Waits until `baton capacity` says it fits (a join or a departure
    holds admission back for cap_quiet periods, and then the capacity
    published is the count) and the counter and the node match it;
    returns (capacity answer, counter, node value)."""
    end = time.monotonic() + timeout
    while True:
        cap = capacity(baton, env)
        want = sessions + (cap["more"] if cap["fits"] else 0)
        c = dict(ag.counters["sessions"])
        node = node_value(k8s)
        if cap["fits"] and c == {"count": sessions, "capacity": want} and \
                node == (str(want), str(want)):
            return cap, c, node
        if time.monotonic() > end:
            raise Fail("after %.0f s: baton capacity says %s (want count "
                       "%d capacity %d); the counter is %s, the node %s"
                       % (timeout, cap, sessions, want, c, node))
        time.sleep(0.2)


def wait(cond, timeout, what):
    end = time.monotonic() + timeout
    while not cond():
        check(time.monotonic() < end, "%s: not within %.0f s" %
              (what, timeout))
        time.sleep(0.05)


def kubectl_same(kubectl, k8s, token, cert):
    """kubectl's patch of the same value against the fake, compared with
    batond's last. A kubectl without --subresource (before 1.24, as
    Debian 12's 1.20.2) patches the node object instead: the same request
    but for the path's /status."""
    t, verb, path, ctype, body, auth = k8s.patches[-1]
    with tempfile.TemporaryDirectory(prefix="baton-kubectl-") as home:
        kubectl_patch(kubectl, k8s, token, cert, home, t, verb, path, ctype,
                      body, auth)


def kubectl_patch(kubectl, k8s, token, cert, home, t, verb, path, ctype,
                  body, auth):
    env = {"HOME": home, "PATH": "/usr/bin:/bin"}
    h = subprocess.run([kubectl, "patch", "--help"], env=env,
                       capture_output=True, text=True, timeout=30)
    sub = "--subresource" in h.stdout
    r = subprocess.run([kubectl, "--server", "https://127.0.0.1:%d" %
                        k8s.port, "--certificate-authority", cert,
                        "--token", token, "patch", "node", NODE] +
                       (["--subresource=status"] if sub else []) +
                       ["--type=json", "-p", json.dumps(body)],
                       env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "kubectl patch failed: %s" % r.stderr[-500:])
    kt, kverb, kpath, kctype, kbody, kauth = k8s.patches[-1]
    check(kt != t, "kubectl's patch did not reach the fake")
    ours = path.split("?")[0]
    if not sub:
        ours = ours[:-len("/status")]
    pairs = [("verb", verb, kverb),
             ("path", ours, kpath.split("?")[0]),
             ("content type", ctype, kctype),
             ("body", body, kbody),
             ("authorization", auth, kauth)]
    for what, a, b in pairs:
        check(a == b, "batond's %s %r is not kubectl's %r" % (what, a, b))
    print("kubectl (%s, %s) sends what batond sends%s: %s %s, %s, %s" % (
        kubectl, "with --subresource" if sub else "no --subresource",
        "" if sub else " but for /status", kverb, kpath, kctype,
        json.dumps(kbody)))


def main():
    ap = argparse.ArgumentParser()
    for a in ("batond", "baton", "glxgears", "xvfb"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--kubectl", action="append", default=[],
                    help="may be given more than once")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="baton-publish-")
    cert, key = fakes.make_cert(tmp)
    token = secrets.token_hex(24)
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(token + "\n")
    ag = fakes.agones()
    k8s = fakes.kubernetes(token, (cert, key), NODE)
    cfg = os.path.join(tmp, "batond.cfg")
    config(cfg, k8s, token_file, cert)
    sock = os.path.join(tmp, "batond.sock")
    try:
        with Xvfb(args.xvfb) as x:
            env = x.env(BATON_SOCKET=sock, AGONES_SDK_HTTP_PORT=str(ag.port),
                        NODE_NAME=NODE)
            with Batond(args.batond, args.baton, sock, ["--config", cfg],
                        env) as d:
                wait(lambda: ag.ready and k8s.patches, 10,
                     "Ready and a node patch")
                first = [r[2] for r in ag.requests()
                         if r[2] in ("/ready", "/v1beta1/counters/sessions")]
                check(first[0] == "/v1beta1/counters/sessions",
                      "Ready came before the counter: %s" % first[:3])
                cap, c, node = agree(args.baton, env, ag, k8s, 0, 10)
                print("no game: baton capacity fits %s more %d; counter "
                      "%s; node %s" % (cap["fits"], cap["more"], c, node))
                n0 = len(ag.requests("POST", "/health"))
                time.sleep(2)
                n1 = len(ag.requests("POST", "/health"))
                check(n1 - n0 >= 2, "only %d Health calls in 2 s with "
                      "health_ms 500" % (n1 - n0))
                with Client([args.baton, "run", "--name", "glxgears", "--",
                             args.glxgears], env):
                    d.wait_tenants(["glxgears"], 15)
                    cap, c, node = agree(args.baton, env, ag, k8s, 1, 20)
                    print("glxgears: baton capacity fits %s more %d load "
                          "%.3f; counter %s; node %s" % (
                              cap["fits"], cap["more"], cap["load"], c,
                              node))
                agree(args.baton, env, ag, k8s, 0, 20)
                print("glxgears gone: the counter is back at count 0")
            held = [h for h in ag.history if h[2] == h[1]]
            check(held, "the capacity never came down to the count while "
                  "admission said no: %s" % ag.history)
            print("counter history (count, capacity): %s" % [
                h[1:] for h in ag.history])
            bad = [ln for ln in d.log if "agones:" in ln or
                   "kubernetes:" in ln]
            check(not any("retrying" in ln for ln in bad),
                  "batond logged failures against healthy fakes: %s" % bad)
        errors = ag.errors + k8s.errors
        check(not errors, "requests a real server refuses: %s" % errors)
        for kubectl in args.kubectl:
            kubectl_same(kubectl, k8s, token, cert)
        if not args.kubectl:
            print("no kubectl: the comparison with kubectl's patch is "
                  "not made")
        print("%d Agones requests, %d node patches, none refused" % (
            len(ag.requests()), len(k8s.patches)))
    except Fail as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        ag.stop()
        k8s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
