"""Hostile local users against batond's sockets and its
metrics, each attack by uid 65534 against a root batond:

  dir-refused   a socket directory uid 65534 created (in a private 1777
                directory, as /tmp) while it swaps a symlink to a root
                file in for the socket: batond refuses to start (exit 2,
                naming the directory and its owner), creates nothing there
                and chmods nothing.
  impostor-cli  a "daemon" run by uid 65534 on a socket root's BATON_SOCKET
                names: `baton status` refuses to trust it (non-zero, naming
                the uid) instead of printing its made-up status.
  impostor-game a root glxgears under `baton run` on that socket, which the
                impostor would pace to 1 FPS: it runs free (its rate over
                that of an unmanaged glxgears beside it, the same 5 s, is
                a ratio near 1, not near 0), the impostor never gets the
                memfd, and the shim says so once.
  port-taken    uid 65534 holds 127.0.0.1:PORT first: batond starts anyway,
                warns naming the address and the error, and its control
                socket answers.
  metrics       32 connections from uid 65534 to /metrics that trickle a
                header byte a second (so no idle timeout drops them): a
                root scrape is still answered within 2 s, and by default
                it names tenants by id and uid only (no name, no pid).

Usage: socket_attacks.py --baton B --batond D [--xvfb X --glxgears G]
(without an X server and glxgears the game cases are skipped and the
metrics case runs without a tenant). Exit 0 pass, 1 fail, 77 skipped."""
import argparse
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hostile import (NOBODY, Bed, Client, Fail, Xvfb, check,  # noqa: E402
                     nobody_python, skip_unless_root)

# The impostor: binds path (in a directory it creates, so its own),
# welcomes everyone, answers every admin request with a made-up status,
# and writes a 1 FPS target into the control block of any tenant that
# hands it a memfd (the layout of src/ipc/shm.h), printing "memfd" then.
IMPOSTOR = r'''
import json, mmap, os, socket, struct, sys, threading
path = %r
os.mkdir(os.path.dirname(path), 0o755)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(16)
print("ready", flush=True)
STATUS = json.dumps({"type": "status", "policy": "none", "gpu_util": 0,
                     "other_util": 0, "sla_util": 0, "common_fps": 0,
                     "overload": False, "tenants": []}) + "\n"
WELCOME = '{"type":"welcome","version":1}\n'

def pace(fd):
    m = mmap.mmap(fd, 0)
    off = struct.unpack_from("<I", m, 24)[0]
    seq = struct.unpack_from("<I", m, off)[0]
    struct.pack_into("<I", m, off, (seq + 1) | 1)
    struct.pack_into("<IqQI", m, off + 4, 1, 1000000000, 1, 1)
    struct.pack_into("<I", m, off, ((seq + 1) | 1) + 1)

def serve(c):
    data, fds, _, _ = socket.recv_fds(c, 65536, 4)
    if fds:
        print("memfd", flush=True)
        c.sendall(WELCOME.encode())
        pace(fds[0])
        while c.recv(4096):
            pass
        return
    while data:
        for line in data.decode(errors="replace").splitlines():
            c.sendall((WELCOME if '"hello"' in line else STATUS).encode())
        data = c.recv(65536)

while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
'''

# Holds 127.0.0.1:0 and prints the port.
PORT_HOLDER = r'''
import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
print(s.getsockname()[1], flush=True)
time.sleep(3600)
'''

# N connections to the metrics port, each sending the start of a request
# and then one byte of a header a second; prints "ready" once all are
# connected, and at the end how many the server has not closed.
TRICKLER = r'''
import socket, time
port, n = %d, %d
conns = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    conns.append(s)
print("ready", flush=True)
while True:
    time.sleep(1.0)
    for s in conns:
        try:
            s.send(b"a")
        except OSError:
            pass
'''


def wait_line(proc, what, timeout=10.0):
    """The first line an attacker prints (it prints when it is ready)."""
    r, _, _ = select.select([proc.stdout], [], [], timeout)
    if not r:
        raise Fail("%s did not get ready in %.0f s" % (what, timeout))
    line = proc.stdout.readline().strip()
    if not line:
        raise Fail("%s exited: %s" % (what, stop(proc)[1]))
    return line


def stop(proc):
    """Kills an attacker's process group; (its stdout, its stderr) not
    read yet."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        out, err = proc.communicate(timeout=5)
    except (ValueError, subprocess.TimeoutExpired):
        return "", ""
    return out or "", err or ""


# glxgears' report; slow rates are padded ("=  1.000 FPS").
GEARS = re.compile(r"frames in [\d.]+ seconds =\s*([\d.]+) FPS")


def public_tmp():
    """A private directory like /tmp: root's, 1777."""
    d = tempfile.mkdtemp(prefix="baton-sock-attacks-")
    os.chmod(d, 0o1777)
    return d


def case_dir_refused(args, tmp):
    run_dir = os.path.join(tmp, "baton")
    sock = os.path.join(run_dir, "batond.sock")
    victim = os.path.join(tmp, "victim")
    with open(victim, "w") as f:
        f.write("root's\n")
    os.chmod(victim, 0o600)
    # The race: nobody makes the directory, then keeps
    # renaming a symlink to root's file over the socket's path, so that a
    # chmod(path) after bind() would land on the victim.
    swapper = nobody_python(r'''
import os
d, victim = %r, %r
os.mkdir(d, 0o755)
print("ready", flush=True)
tmp = os.path.join(d, "swap")
while True:
    try:
        os.symlink(victim, tmp)
    except FileExistsError:
        pass
    try:
        os.rename(tmp, os.path.join(d, "batond.sock"))
        os.unlink(os.path.join(d, "batond.sock"))
    except OSError:
        pass
''' % (run_dir, victim))
    try:
        wait_line(swapper, "the swapper")
        for attempt in range(3):
            try:
                r = subprocess.run([args.batond, "--socket", sock,
                                    "--metrics", "off"],
                                   capture_output=True, text=True,
                                   timeout=3)
            except subprocess.TimeoutExpired:
                raise Fail("batond started in a socket directory uid %d "
                           "owns (attempt %d)" % (NOBODY, attempt + 1))
            err = r.stderr.strip()
            check(r.returncode == 2, "batond exited %d, not 2: %s" % (
                r.returncode, err))
            check(run_dir in err and "owned by uid %d" % NOBODY in err,
                  "the error does not name %s and its owner: %s" % (
                      run_dir, err))
    finally:
        stop(swapper)
    mode = os.stat(victim).st_mode & 0o7777
    check(mode == 0o600, "root's file is now mode %04o" % mode)
    left = [n for n in os.listdir(run_dir) if n not in ("swap",
                                                         "batond.sock")]
    socks = [n for n in os.listdir(run_dir)
             if os.path.exists(os.path.join(run_dir, n)) and
             not os.path.islink(os.path.join(run_dir, n))]
    check(not left and not socks, "batond left %s in %s" % (
        left + socks, run_dir))
    print("dir-refused: 3 starts refused (exit 2): %s; root's file still "
          "0600" % err)


def case_impostor_cli(args, imp_sock):
    env = dict(os.environ, BATON_SOCKET=imp_sock)
    r = subprocess.run([args.baton, "status"], env=env,
                       capture_output=True, text=True, timeout=10)
    want = "runs as uid %d, not root or you; refusing to trust it" % NOBODY
    check(r.returncode != 0 and want in r.stderr,
          "baton status against the impostor exited %d:\n%s%s" % (
              r.returncode, r.stdout, r.stderr))
    print("impostor-cli: baton status exited %d: %s" % (
        r.returncode, r.stderr.strip()))


def case_impostor_game(args, x, imp_sock):
    """Returns nothing; fails unless the game under the impostor runs at
    the rate of an unmanaged one beside it."""
    paced_env = x.env(BATON_SOCKET=imp_sock, BATON_LOG="error")
    with Client([args.baton, "run", "--name", "victim", "--sla", "30",
                 "--", args.glxgears], paced_env) as game, \
            Client([args.glxgears], x.env()) as free:
        g = float(game.wait_lines(GEARS, 1, 20)[0].group(1))
        f = float(free.wait_lines(GEARS, 1, 20)[0].group(1))
        out = game.output()
    check(f > 5, "unmanaged glxgears ran at %.1f FPS: too slow to tell "
          "1 FPS pacing apart" % f)
    ratio = g / f
    check(ratio > 0.3, "under the impostor glxgears ran at %.1f FPS, "
          "unmanaged %.1f FPS beside it (ratio %.3f): paced by the "
          "impostor" % (g, f, ratio))
    said = len(re.findall(r"runs as uid %d, not root or you" % NOBODY, out))
    check(said == 1, "the shim said %d times that it does not trust the "
          "impostor:\n%s" % (said, out))
    print("impostor-game: %.1f FPS under the impostor, %.1f unmanaged "
          "beside it (ratio %.2f)" % (g, f, ratio))


def case_port_taken(args):
    holder = nobody_python(PORT_HOLDER)
    try:
        port = int(wait_line(holder, "the port holder"))
        addr = "127.0.0.1:%d" % port
        with Bed(args.baton, args.batond, ["--metrics", addr]) as bed:
            warn = " ".join(bed.daemon.warnings)
            check(addr in warn and "Address already in use" in warn,
                  "no warning naming %s and the error: %s" % (
                      addr, bed.log_tail()))
            check(bed.daemon.metrics_url is None, "metrics on %s?" % addr)
            st = bed.daemon.status()
            check(st["tenants"] == [], "status: %s" % st)
    finally:
        stop(holder)
    print("port-taken: batond runs, control socket answers; %s" % warn)


def scrape(url, timeout=5.0):
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            text = r.read().decode()
    except OSError as e:
        raise Fail("/metrics did not answer in %.0f s under the "
                   "tricklers: %s" % (timeout, e))
    return text, time.monotonic() - t0


def case_metrics(args, x):
    with Bed(args.baton, args.batond) as bed:
        game = None
        if x:
            game = Client([args.baton, "run", "--name", "secret-game",
                           "--", args.glxgears], x.env(BATON_SOCKET=bed.sock))
            game.__enter__()
        try:
            tid = None
            if game:
                bed.daemon.wait_tenants(["secret-game"], 15)
                tid = bed.daemon.tenants()["secret-game"]["id"]
            port = int(bed.daemon.metrics_url.split(":")[2].split("/")[0])
            n = 32
            trickler = nobody_python(TRICKLER % (port, n))
            try:
                wait_line(trickler, "the trickler")
                # Past the server's idle timeout: only trickling keeps
                # them.
                worst, text = 0.0, ""
                for _ in range(4):
                    time.sleep(1.0)
                    text, dt = scrape(bed.daemon.metrics_url)
                    worst = max(worst, dt)
                if trickler.poll() is not None:
                    raise Fail("the trickler died: %s" % stop(trickler)[1])
            finally:
                stop(trickler)
            check(worst < 2.0, "the slowest scrape under %d trickling "
                  "connections took %.2f s" % (n, worst))
            check("name=" not in text and "pid=" not in text and
                  "secret-game" not in text,
                  "/metrics names tenants or pids by default:\n%s" % text)
            if tid is not None:
                label = 'baton_tenant_fps{id="%d",uid="0"}' % tid
                check(label in text, "no %s in:\n%s" % (label, text))
        finally:
            if game:
                game.__exit__(None, None, None)
    print("metrics: 4 scrapes under %d trickling connections from uid %d, "
          "slowest %.3f s; tenants by id and uid only" % (n, NOBODY, worst))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--xvfb")
    p.add_argument("--glxgears")
    args = p.parse_args()
    skip_unless_root()
    t0 = time.monotonic()
    tmp = public_tmp()
    impostor = None
    failed = []

    def case(name, fn, *a):
        """Runs one case; a failure is reported and the others still
        run."""
        try:
            fn(*a)
        except Fail as e:
            print("FAIL %s: %s" % (name, e))
            failed.append(name)

    try:
        case("dir-refused", case_dir_refused, args, tmp)
        imp_sock = os.path.join(tmp, "imp", "batond.sock")
        impostor = nobody_python(IMPOSTOR % imp_sock)
        wait_line(impostor, "the impostor")
        case("impostor-cli", case_impostor_cli, args, imp_sock)
        case("port-taken", case_port_taken, args)
        if args.xvfb and args.glxgears:
            with Xvfb(args.xvfb) as x:
                case("impostor-game", case_impostor_game, args, x,
                     imp_sock)
                case("metrics", case_metrics, args, x)
        else:
            print("impostor-game skipped: no Xvfb or glxgears")
            case("metrics", case_metrics, args, None)
        out = stop(impostor)[0]
        impostor = None
        if "memfd" in out:
            print("FAIL impostor-game: the impostor got a tenant's memfd")
            failed.append("memfd")
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        if impostor:
            stop(impostor)
        shutil.rmtree(tmp, ignore_errors=True)
    if failed:
        print("FAILED: %s (%.1f s)" % (", ".join(failed),
                                       time.monotonic() - t0))
        return 1
    print("PASS in %.1f s" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
