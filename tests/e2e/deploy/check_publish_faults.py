#!/usr/bin/env python3
"""batond with an Agones sidecar and a Kubernetes API server that are
absent, then answer 500s, then garbage, then too slowly, then well
(docs/deploy.md, "When the peers fail"). No game: the faults
are the peers'.

Both fakes (fakes.py) start only after ABSENT_S (connection refused
until then), then go through the PHASES; batond runs with retry_max_ms
2000 so that the test need not wait out the 30 s default. Meanwhile
/metrics is scraped every POLL_S for baton_daemon_ticks_total. Checks:
  - the control loop never stalls: the longest time the tick counter
    stood still is under STALL_EPOCHS epochs (a slow peer's answer takes
    SLOW_S, past the 2 s timeout: had an HTTP call run on the loop, a
    stall of 2 s would show), and the ticks counted over the run are at
    least TICK_SHARE of run time / epoch;
  - the log is bounded: per peer at most one failure line per 10 s
    (+1), and a later line counts the failures held back;
  - once the peers answer well, batond catches up within RECOVER_S:
    Ready sent, the counter set, the node patched, the fakes refusing
    nothing.
Then, with a counter the GameServer does not declare (404): no Ready,
Health still every health_ms, the refusal in the log.
The bounds are shapes (epochs, lines per 10 s), not absolute rates.
Usage: check_publish_faults.py --batond EXE --baton EXE
"""
import argparse
import math
import os
import re
import secrets
import shutil
import socket
import sys
import tempfile
import threading
import time
import urllib.request

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon"))
import fakes  # noqa: E402
from batonbed import Batond, Fail, check  # noqa: E402

EPOCH_MS = 100
ABSENT_S = 3.0
PHASES = (("error", 3.0), ("garbage", 3.0), ("slow", 7.0))
RECOVER_S = 10.0
POLL_S = 0.05
STALL_EPOCHS = 5
TICK_SHARE = 0.8
LOG_GAP_S = 10.0
UNDECLARED_S = 4.0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class TickWatch:
    """(monotonic time, baton_daemon_ticks_total) every POLL_S."""

    def __init__(self, url):
        self.url, self.samples = url, []
        self.done = threading.Event()
        self.th = threading.Thread(target=self.run, daemon=True)
        self.th.start()

    def run(self):
        pat = re.compile(r"^baton_daemon_ticks_total (\d+)$", re.M)
        while not self.done.wait(POLL_S):
            try:
                with urllib.request.urlopen(self.url, timeout=2) as r:
                    m = pat.search(r.read().decode())
            except OSError:
                continue
            if m:
                self.samples.append((time.monotonic(), int(m.group(1))))

    def stop(self):
        self.done.set()
        self.th.join()
        s = self.samples
        check(len(s) > 10, "too few scrapes of /metrics: %d" % len(s))
        stall, since = 0.0, s[0][0]
        for (t0, n0), (t1, n1) in zip(s, s[1:]):
            if n1 != n0:
                stall = max(stall, t1 - since)
                since = t1
        stall = max(stall, s[-1][0] - since)
        return stall, s[-1][1] - s[0][1], s[-1][0] - s[0][0]


def undeclared_counter(args, tmp):
    """A counter the GameServer does not declare (Agones answers 404):
    batond never sends Ready, keeps sending Health (Agones must not
    restart the pod for a configuration error) and says why in the log."""
    ag = fakes.agones(counter="sessions")
    cfg = os.path.join(tmp, "undeclared.cfg")
    with open(cfg, "w") as f:
        f.write('apps = ( { name = "game"; cost_ms = 4.0; sla = 30.0; } );\n'
                'agones = { enabled = true; port = %d; counter = "players";'
                ' health_ms = 500; retry_max_ms = 1000; };\n' % ag.port)
    try:
        with Batond(args.batond, args.baton, os.path.join(tmp, "u.sock"),
                    ["--config", cfg]) as d:
            time.sleep(UNDECLARED_S)
            health = len(ag.requests("POST", "/health"))
            ready = ag.ready
            log = [ln for ln in d.log if "agones:" in ln]
    finally:
        ag.stop()
    print("undeclared counter: %d Health calls in %.0f s, Ready %s; log %s"
          % (health, UNDECLARED_S, ready, log[:1]))
    check(not ready, "Ready was sent although the counter was refused")
    check(health >= UNDECLARED_S / 0.5 / 2, "only %d Health calls in %.0f s"
          " with health_ms 500" % (health, UNDECLARED_S))
    check(any("/v1beta1/counters/players" in ln and "HTTP 404" in ln
              for ln in log), "no log line says the counter was refused: "
          "%s" % log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batond", required=True)
    ap.add_argument("--baton", required=True)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="baton-faults-")
    cert, key = fakes.make_cert(tmp)
    token = secrets.token_hex(24)
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(token)
    ag_port, k8s_port = free_port(), free_port()
    cfg = os.path.join(tmp, "batond.cfg")
    with open(cfg, "w") as f:
        f.write('epoch_ms = %d;\n'
                'apps = ( { name = "game"; cost_ms = 4.0; sla = 30.0; } );\n'
                'agones = { enabled = true; port = %d; health_ms = 1000;'
                ' retry_max_ms = 2000; };\n'
                'kubernetes = { enabled = true; api = "https://127.0.0.1:%d";'
                ' node_name = "node-1"; token_file = "%s"; ca_file = "%s";'
                ' refresh_ms = 1000; };\n'
                % (EPOCH_MS, ag_port, k8s_port, token_file, cert))
    sock = os.path.join(tmp, "batond.sock")
    ag = k8s = None
    try:
        with Batond(args.batond, args.baton, sock, ["--config", cfg]) as d:
            watch = TickWatch(d.metrics_url)
            time.sleep(ABSENT_S)
            ag = fakes.agones(port=ag_port)
            k8s = fakes.kubernetes(token, (cert, key), port=k8s_port)
            for mode, secs in PHASES:
                ag.mode = k8s.mode = mode
                n0, k0 = len(ag.requests()), len(k8s.requests())
                time.sleep(secs)
                print("%-8s %4.1f s: %d Agones requests, %d API server "
                      "requests" % (mode, secs, len(ag.requests()) - n0,
                                    len(k8s.requests()) - k0))
            ag.mode = k8s.mode = "ok"
            t_ok = time.monotonic()
            end = t_ok + RECOVER_S
            while not (ag.ready and k8s.patches and ag.history):
                check(time.monotonic() < end, "batond did not catch up "
                      "within %.0f s of the peers answering: Ready %s, "
                      "counter sets %d, node patches %d" % (
                          RECOVER_S, ag.ready, len(ag.history),
                          len(k8s.patches)))
                time.sleep(0.05)
            print("caught up %.1f s after the peers answered well" %
                  (time.monotonic() - t_ok))
            stall, ticks, span = watch.stop()
            run_s = ABSENT_S + sum(s for _, s in PHASES) + \
                (time.monotonic() - t_ok)
            alive = d.alive()
        check(alive, "batond died")
        print("ticks: %d in %.1f s (epoch %d ms); longest stall %.0f ms" %
              (ticks, span, EPOCH_MS, stall * 1e3))
        check(stall < STALL_EPOCHS * EPOCH_MS * 1e-3,
              "the tick counter stood still %.0f ms, over %d epochs" %
              (stall * 1e3, STALL_EPOCHS))
        check(ticks >= TICK_SHARE * span / (EPOCH_MS * 1e-3),
              "%d ticks in %.1f s at %d ms an epoch" % (ticks, span,
                                                        EPOCH_MS))
        bound = math.ceil(run_s / LOG_GAP_S) + 1
        for peer in ("agones", "kubernetes"):
            lines = [ln for ln in d.log
                     if ("%s:" % peer) in ln and "retrying" in ln]
            print("%s: %d failure lines in %.0f s, e.g. %s" % (
                peer, len(lines), run_s, lines[:1]))
            check(1 <= len(lines) <= bound,
                  "%d %s failure lines in %.0f s (bound %d)" % (
                      len(lines), peer, run_s, bound))
            check(any(not re.search(r"\(0 more failures", ln)
                      for ln in lines[1:]) or len(lines) == 1,
                  "no line counts the failures held back: %s" % lines)
        check(not ag.errors and not k8s.errors, "requests a real server "
              "refuses: %s" % (ag.errors + k8s.errors))
        undeclared_counter(args, tmp)
    except Fail as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        for f in (ag, k8s):
            if f:
                f.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
