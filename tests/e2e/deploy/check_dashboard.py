#!/usr/bin/env python3
"""Checks deploy/ against the real batond (test deploy-dashboard-metrics).

Starts batond on a socket in a temporary folder with --metrics
127.0.0.1:0, reads the port from its "batond: metrics on http://..." line
on stderr (as tests/unit/daemon/harness.c does), scrapes /metrics and
collects the families it exports from the `# TYPE` lines. batond prints
every family's HELP and TYPE lines with no tenant at all
(src/daemon/report/metrics_format.c), so no fake tenant is needed; the scrape
must still hold baton_tenant_fps and baton_daemon_tick_seconds, or the
check fails rather than pass on an empty list.

Then every PromQL expression of the Grafana dashboard (each target's
`expr`, and each templating variable's query) is parsed: string
literals dropped, identifiers ([a-zA-Z_:][a-zA-Z0-9_:]*) starting with
`baton_` taken as metric names. A name must be an exported family, or
NAME_bucket/_sum/_count of a histogram family, or NAME_sum/_count of a
summary family whose scrape has such sample lines (batond's one summary,
baton_tenant_frame_time_seconds, has quantile lines only, so its _sum and
_count are refused). Each expression naming anything else is reported.
The dashboard must have panels, and every panel but rows must have
targets with an expression.

deploy/prometheus/prometheus.yml must have a scrape job `batond` whose
target is batond's default metrics address (DAEMON_DEFAULT_METRICS in
src/daemon/config/config.h); text checks, plus a YAML parse where PyYAML is
installed.

Every run also checks that the checker can fail: a copy of the dashboard
with a name batond does not export, a summary suffix, a gauge suffix and
a panel without targets must be reported, each of them.

Usage: check_dashboard.py --batond PATH --source-root DIR
       [--dashboard PATH] [--prometheus PATH]
"""

import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
# Grafana's own variables ($__rate_interval, ${tenant}, [[x]]).
VARIABLE = re.compile(r"\$\{[^}]*\}|\$[a-zA-Z_][a-zA-Z0-9_]*|\[\[[^\]]*\]\]")


def start_batond(batond, tmp):
    """batond on tmp/batond.sock; (process, metrics port)."""
    sock = os.path.join(tmp, "batond.sock")
    log = open(os.path.join(tmp, "stderr.log"), "wb")
    p = subprocess.Popen(
        [batond, "--socket", sock, "--metrics", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    log.close()
    pat = re.compile(r"batond: metrics on http://127\.0\.0\.1:(\d+)/metrics")
    end = time.monotonic() + 10
    while time.monotonic() < end:
        with open(os.path.join(tmp, "stderr.log"), errors="replace") as f:
            m = pat.search(f.read())
        if m:
            return p, int(m.group(1))
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    p.wait()
    with open(os.path.join(tmp, "stderr.log"), errors="replace") as f:
        sys.stderr.write(f.read())
    raise SystemExit("batond did not print its metrics address")


def scrape(port):
    """The exposition text of /metrics (retried for 5 s)."""
    url = "http://127.0.0.1:%d/metrics" % port
    end = time.monotonic() + 5
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.read().decode()
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


def families(text):
    """{family: type} from `# TYPE` lines, and the set of sample names."""
    fam, samples = {}, set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            parts = line.split()
            if len(parts) == 4:
                fam[parts[2]] = parts[3]
        elif line and not line.startswith("#"):
            samples.add(IDENT.match(line).group(0))
    return fam, samples


def exported(name, fam, samples):
    """Whether a name in an expression is a series batond exports."""
    if name in fam:
        return True
    for suffix, kinds in (("_bucket", ("histogram",)),
                          ("_sum", ("histogram", "summary")),
                          ("_count", ("histogram", "summary"))):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and fam.get(base) in kinds:
            return fam[base] == "histogram" or name in samples
    return False


def metric_names(expr):
    """The baton_ identifiers of a PromQL expression."""
    expr = VARIABLE.sub(" ", STRING.sub(" ", expr))
    return [t for t in IDENT.findall(expr) if t.startswith("baton_")]


def all_panels(panels):
    for p in panels:
        yield p
        yield from all_panels(p.get("panels", []))


def variable_query(v):
    q = v.get("query")
    if isinstance(q, dict):
        q = q.get("query")
    return q if isinstance(q, str) else None


def check_dashboard(dash, fam, samples):
    """The problems of one dashboard, as lines."""
    errors = []
    exprs = []  # (where, expr)
    panels = [p for p in all_panels(dash.get("panels", []))
              if p.get("type") != "row"]
    if not panels:
        errors.append("the dashboard has no panels")
    for p in panels:
        where = "panel %r" % p.get("title")
        targets = [t for t in p.get("targets", []) if t.get("expr")]
        if not targets:
            errors.append("%s has no targets with an expr" % where)
        for t in targets:
            exprs.append(("%s target %s" % (where, t.get("refId")),
                          t["expr"]))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query" and variable_query(v):
            exprs.append(("variable %r" % v.get("name"), variable_query(v)))
    for where, expr in exprs:
        names = metric_names(expr)
        if not names:
            errors.append("%s names no baton_ metric: %s" % (where, expr))
        for n in names:
            if not exported(n, fam, samples):
                errors.append("%s: %s is not exported by batond (expr: %s)"
                              % (where, n, expr))
    return errors


def default_metrics_address(source_root):
    path = os.path.join(source_root, "src", "daemon", "config", "config.h")
    with open(path) as f:
        m = re.search(r'#define\s+DAEMON_DEFAULT_METRICS\s+"([^"]+)"',
                      f.read())
    if not m:
        raise SystemExit("no DAEMON_DEFAULT_METRICS in " + path)
    return m.group(1)


def check_prometheus(path, address):
    """The problems of the scrape example, as lines."""
    with open(path) as f:
        text = f.read()
    errors = []
    lines = [ln.split("#", 1)[0].rstrip() for ln in text.splitlines()]
    body = "\n".join(lines)
    if not re.search(r"^scrape_configs:\s*$", body, re.M):
        errors.append("%s: no scrape_configs" % path)
    if not re.search(r"-\s*job_name:\s*[\"']?batond[\"']?\s*$", body, re.M):
        errors.append("%s: no job_name: batond" % path)
    port = address.rsplit(":", 1)[1]
    target = re.search(r"targets:\s*\[([^\]]*)\]", body)
    hosts = re.findall(r"[\"']([^\"']+)[\"']", target.group(1)) \
        if target else []
    if not any(h.rsplit(":", 1)[-1] == port for h in hosts):
        errors.append("%s: no target on batond's default port %s (%s)"
                      % (path, port, address))
    try:
        import yaml
    except ImportError:
        return errors
    doc = yaml.safe_load(text)
    jobs = [j for j in doc.get("scrape_configs", [])
            if j.get("job_name") == "batond"]
    if not jobs or not any(
            t.endswith(":" + port)
            for sc in jobs[0].get("static_configs", [])
            for t in sc.get("targets", [])):
        errors.append("%s: YAML has no batond job scraping port %s"
                      % (path, port))
    return errors


def self_test(dash, fam, samples):
    """The checker must report each of these broken copies' faults."""
    bad = copy.deepcopy(dash)
    panel = next(p for p in all_panels(bad["panels"])
                 if p.get("type") != "row")
    wrong = {
        "baton_no_such_metric": "baton_no_such_metric",
        "baton_tenant_frame_time_seconds_sum":
            "rate(baton_tenant_frame_time_seconds_sum[5m])",
        "baton_tenant_fps_count": 'baton_tenant_fps_count{id="1"}',
    }
    for i, expr in enumerate(wrong.values()):
        panel["targets"].append({"refId": "Z%d" % i, "expr": expr})
    bad["panels"].append({"type": "timeseries", "title": "empty",
                          "targets": []})
    errors = check_dashboard(bad, fam, samples)
    text = "\n".join(errors)
    missed = [n for n in wrong if n + " is not exported" not in text]
    if "'empty' has no targets" not in text:
        missed.append("the panel without targets")
    if check_dashboard({"panels": []}, fam, samples) == []:
        missed.append("a dashboard without panels")
    # A string literal or a Grafana variable is no metric name.
    if metric_names('up{job="baton_x"} + $baton_y') != []:
        missed.append("names inside strings or variables")
    return missed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batond", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--dashboard")
    ap.add_argument("--prometheus")
    a = ap.parse_args()
    deploy = os.path.join(a.source_root, "deploy")
    dashboard = a.dashboard or os.path.join(deploy, "grafana",
                                            "baton-dashboard.json")
    prometheus = a.prometheus or os.path.join(deploy, "prometheus",
                                              "prometheus.yml")

    tmp = tempfile.mkdtemp(prefix="baton-deploy-")
    p = None
    try:
        p, port = start_batond(a.batond, tmp)
        text = scrape(port)
    finally:
        if p:
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    fam, samples = families(text)
    print("batond exports %d families" % len(fam))
    for need in ("baton_tenant_fps", "baton_daemon_tick_seconds"):
        if need not in fam:
            raise SystemExit("the scrape lacks %s:\n%s" % (need, text))

    with open(dashboard) as f:
        dash = json.load(f)
    errors = check_dashboard(dash, fam, samples)
    errors += check_prometheus(prometheus, default_metrics_address(
        a.source_root))
    missed = self_test(dash, fam, samples)
    errors += ["self-test: the checker missed " + m for m in missed]

    n_exprs = sum(len(p.get("targets", []))
                  for p in all_panels(dash.get("panels", [])))
    used = {n for p in all_panels(dash.get("panels", []))
            for t in p.get("targets", []) for n in metric_names(
                t.get("expr", ""))}
    print("%s: %d expressions, %d of batond's families used"
          % (dashboard, n_exprs, len(used & set(fam))))
    unused = sorted(set(fam) - used)
    if unused:
        print("families not on the dashboard: " + ", ".join(unused))
    for e in errors:
        print("FAIL " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
