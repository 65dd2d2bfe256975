"""Loopback fakes of Agones' SDK sidecar and of the Kubernetes API server,
for the publisher's e2e tests (check_publish.py, check_publish_faults.py).

Agones: routes and bodies as in googleforgames/agones v1.56.0 (commit
b19d5fe78), sdks/swagger/sdk.swagger.json (POST /ready, POST /health,
body sdkEmpty, answer sdkEmpty) and sdks/swagger/beta.swagger.json
(PATCH /v1beta1/counters/{counterUpdateRequest.name}, body a
CounterUpdateRequest of count, capacity and countDiff, int64 fields as
JSON strings per proto3's JSON mapping; answer a betaCounter {name, count,
capacity}). Both files say consumes and produces application/json. As the
SDK server, it refuses a count above the capacity and an unknown counter.

Kubernetes: PATCH /api/v1/nodes/{name}/status as the API server checks
it: a bearer token, a patch content type it knows, a JSON patch (RFC
6902) whose paths exist, the node answered whole (kind Node); an unknown
content type is 415, a bad token 401, a bad patch 422, an unknown node
404, each with a Status body. Minimal discovery (/api, /api/v1, /apis)
so that kubectl can talk to it (check_publish.py compares what kubectl
sends with what batond sends).

Fault modes (attribute mode): "ok", "error" (500 with a Status/grpc
error body), "garbage" (200 with a body that is not JSON), "slow" (the
answer after SLOW_S, past batond's 2 s timeout). A peer not up yet is the
test starting the fake late.
"""

import json
import os
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SLOW_S = 3.0


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """A client that gave up (batond's timeout on a slow answer) is
        expected here; anything else is printed."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, (BrokenPipeError, ConnectionResetError,
                                ssl.SSLError)):
            super().handle_error(request, client_address)


class Fake:
    """A server on 127.0.0.1:port (0: any) in a thread; requests logged."""

    def __init__(self, handler, port=0, tls=None):
        self.mode = "ok"
        self.log = []  # (time, method, path, headers dict, body bytes)
        self.errors = []  # requests a real server would refuse, why
        self.lock = threading.Lock()
        h = type("H", (handler,), {"fake": self})
        self.httpd = Server(("127.0.0.1", port), h)
        self.port = self.httpd.server_address[1]
        if tls:  # (cert file, key file)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket,
                                                server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def requests(self, method=None, path=None):
        with self.lock:
            return [r for r in self.log
                    if (method is None or r[1] == method)
                    and (path is None or r[2] == path)]


class Base(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake = None

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, obj=None, raw=None, ctype="application/json"):
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def refuse(self, why):
        with self.fake.lock:
            self.fake.errors.append("%s %s: %s" % (self.command, self.path,
                                                   why))

    def handle_any(self):
        data = self.body()
        with self.fake.lock:
            self.fake.log.append((time.monotonic(), self.command, self.path,
                                  {k.lower(): v for k, v in
                                   self.headers.items()}, data))
            mode = self.fake.mode
        if mode == "slow":
            time.sleep(SLOW_S)
        elif mode == "error":
            return self.reply(500, {"code": 13, "message": "fake: internal"})
        elif mode == "garbage":
            return self.reply(200, raw=b"<html>\x00\xff not json {",
                              ctype="text/html")
        self.route(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any


def int64(v):
    """proto3 JSON int64: a decimal string, or a JSON integer."""
    if isinstance(v, bool):
        raise ValueError("a bool")
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.lstrip("-").isdigit():
        return int(v)
    raise ValueError("not an int64: %r" % (v,))


class AgonesHandler(Base):
    def route(self, data):
        f = self.fake
        ctype = self.headers.get("Content-Type", "")
        if self.command in ("POST", "PATCH") and \
                not ctype.startswith("application/json"):
            self.refuse("content type %r" % ctype)
            return self.reply(415, {"code": 3, "message": "content type"})
        try:
            obj = json.loads(data or b"null")
        except ValueError:
            self.refuse("body not JSON")
            return self.reply(400, {"code": 3, "message": "bad JSON"})
        if self.command == "POST" and self.path in ("/ready", "/health"):
            if obj != {}:
                self.refuse("body %r is not sdkEmpty {}" % (obj,))
                return self.reply(400, {"code": 3, "message": "body"})
            if self.path == "/ready":
                f.ready = True
            return self.reply(200, {})
        pre = "/v1beta1/counters/"
        if self.command == "PATCH" and self.path.startswith(pre):
            name = self.path[len(pre):]
            if name not in f.counters:
                return self.reply(404, {"code": 5, "message":
                                        "counter not found: " + name})
            if not isinstance(obj, dict) or \
                    set(obj) - {"name", "count", "capacity", "countDiff"}:
                self.refuse("not a CounterUpdateRequest: %r" % (obj,))
                return self.reply(400, {"code": 3, "message": "body"})
            try:
                c = f.counters[name]
                count = int64(obj.get("count", c["count"]))
                cap = int64(obj.get("capacity", c["capacity"]))
                count += int64(obj.get("countDiff", 0))
            except ValueError as e:
                self.refuse(str(e))
                return self.reply(400, {"code": 3, "message": str(e)})
            if cap < 0 or count < 0 or count > cap:
                self.refuse("count %d out of range [0, %d]" % (count, cap))
                return self.reply(400, {"code": 11,
                                        "message": "out of range"})
            c["count"], c["capacity"] = count, cap
            f.history.append((time.monotonic(), count, cap))
            return self.reply(200, {"name": name, "count": str(count),
                                    "capacity": str(cap)})
        self.refuse("no such route")
        return self.reply(404, {"code": 5, "message": "Not Found"})


def agones(counter="sessions", port=0):
    f = Fake(AgonesHandler, port)
    f.ready = False
    f.counters = {counter: {"count": 0, "capacity": 0}}
    f.history = []  # (time, count, capacity) set
    return f


PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json",
               "application/strategic-merge-patch+json")


def status(code, reason, msg):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": msg, "reason": reason,
            "code": code}


def unescape(tok):
    return tok.replace("~1", "/").replace("~0", "~")


def json_patch(doc, ops):
    """RFC 6902 add, replace, remove, test on doc, in place; ValueError."""
    if not isinstance(ops, list):
        raise ValueError("a JSON patch is a list of operations")
    for op in ops:
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            raise ValueError("operation without a path: %r" % (op,))
        kind, path = op.get("op"), op["path"]
        if not path.startswith("/"):
            raise ValueError("path %r is not a JSON pointer" % path)
        parts = [unescape(t) for t in path[1:].split("/")]
        parent = doc
        for t in parts[:-1]:
            if not isinstance(parent, dict) or t not in parent:
                raise ValueError("path %r: no %r" % (path, t))
            parent = parent[t]
        last = parts[-1]
        if kind in ("add", "replace", "test") and "value" not in op:
            raise ValueError("%s without a value" % kind)
        if not isinstance(parent, dict):
            raise ValueError("path %r: parent not an object" % path)
        if kind == "add":
            parent[last] = op["value"]
        elif kind in ("replace", "remove", "test"):
            if last not in parent:
                raise ValueError("path %r does not exist" % path)
            if kind == "replace":
                parent[last] = op["value"]
            elif kind == "remove":
                del parent[last]
            elif parent[last] != op["value"]:
                raise ValueError("test failed")
        else:
            raise ValueError("unknown op %r" % (kind,))


def merge_patch(doc, patch):
    """RFC 7386."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(doc, dict):
        doc = {}
    for k, v in patch.items():
        if v is None:
            doc.pop(k, None)
        else:
            doc[k] = merge_patch(doc.get(k), v)
    return doc


def quantities_ok(node):
    """Extended resources must be whole numbers (the API server's
    validation of node resources), written as quantity strings."""
    for field in ("capacity", "allocatable"):
        for k, v in node["status"].get(field, {}).items():
            if not isinstance(v, str):
                return "status.%s[%s]: %r is not a quantity" % (field, k, v)
            if "/" in k and not k.startswith("kubernetes.io/") \
                    and not v.isdigit():
                return "status.%s[%s]: %r must be an integer" % (field, k, v)
    return None


class K8sHandler(Base):
    def route(self, data):
        f = self.fake
        if self.headers.get("Authorization") != "Bearer " + f.token:
            self.refuse("bearer token %r" %
                        self.headers.get("Authorization"))
            return self.reply(401, status(401, "Unauthorized",
                                          "Unauthorized"))
        path = self.path.split("?", 1)[0]
        if self.command == "GET" and path == "/version":
            return self.reply(200, {"major": "1", "minor": "32",
                                    "gitVersion": "v1.32.0"})
        if self.command == "GET" and path == "/api":
            return self.reply(200, {"kind": "APIVersions",
                                    "versions": ["v1"],
                                    "serverAddressByClientCIDRs": [
                                        {"clientCIDR": "0.0.0.0/0",
                                         "serverAddress": "127.0.0.1"}]})
        if self.command == "GET" and path == "/apis":
            return self.reply(200, {"kind": "APIGroupList",
                                    "apiVersion": "v1", "groups": []})
        if self.command == "GET" and path == "/api/v1":
            return self.reply(200, {
                "kind": "APIResourceList", "groupVersion": "v1",
                "resources": [
                    {"name": "nodes", "singularName": "node",
                     "namespaced": False, "kind": "Node",
                     "verbs": ["get", "list", "patch", "update"],
                     "shortNames": ["no"]},
                    {"name": "nodes/status", "singularName": "",
                     "namespaced": False, "kind": "Node",
                     "verbs": ["get", "patch", "update"]}]})
        pre = "/api/v1/nodes/"
        if not path.startswith(pre):
            return self.reply(404, status(404, "NotFound",
                                          "the server could not find the "
                                          "requested resource"))
        rest = path[len(pre):].split("/")
        name, sub = rest[0], rest[1:]
        if name != f.node["metadata"]["name"] or sub not in ([], ["status"]):
            return self.reply(404, status(404, "NotFound",
                                          'nodes "%s" not found' % name))
        if self.command == "GET":
            return self.reply(200, f.node)
        if self.command != "PATCH":
            self.refuse("verb %s" % self.command)
            return self.reply(405, status(405, "MethodNotAllowed",
                                          "method not allowed"))
        ctype = self.headers.get("Content-Type", "").split(";")[0].strip()
        if ctype not in PATCH_TYPES:
            self.refuse("content type %r" % ctype)
            return self.reply(415, status(415, "UnsupportedMediaType",
                                          "the body of the request was in "
                                          "an unknown format"))
        try:
            body = json.loads(data)
            doc = json.loads(json.dumps(f.node))
            if ctype == "application/json-patch+json":
                json_patch(doc, body)
            else:
                doc = merge_patch(doc, body)
            bad = quantities_ok(doc)
            if bad:
                raise ValueError(bad)
        except ValueError as e:
            self.refuse("patch: %s" % e)
            return self.reply(422, status(422, "Invalid", str(e)))
        with f.lock:
            f.node = doc
            f.patches.append((time.monotonic(), self.command, self.path,
                              ctype, body,
                              self.headers.get("Authorization")))
        return self.reply(200, doc)


def make_cert(folder):
    """A self-signed certificate for 127.0.0.1 (IP SAN), made by openssl:
    (cert file, key file); the cert is its own CA."""
    cert = os.path.join(folder, "api.crt")
    key = os.path.join(folder, "api.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                    "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1",
                    "-addext", "basicConstraints=critical,CA:TRUE"],
                   check=True, capture_output=True)
    return cert, key


def kubernetes(token, tls, node="node-1", port=0):
    f = Fake(K8sHandler, port, tls)
    f.token = token
    f.patches = []
    f.node = {"kind": "Node", "apiVersion": "v1",
              "metadata": {"name": node, "resourceVersion": "1"},
              "status": {"capacity": {"cpu": "2", "memory": "4Gi",
                                      "pods": "110"},
                         "allocatable": {"cpu": "2", "memory": "4Gi",
                                         "pods": "110"}}}
    return f
