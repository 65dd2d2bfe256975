"""GPU accounting against a uid-65534 user (a root batond whose config
points its fdinfo reader at a fake /proc tree, `fdinfo_root`; a root
glxgears under `baton run` on a private Xvfb; the attacker a fake shim of
fair_attacks.py registering a game as nobody).

The fake tree plays the kernel in amdgpu's fdinfo format
(drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c). Root's glxgears gets a DRM
fd whose directory is root's, its uid: it counts (gpu_source "fdinfo").
Nobody's tenant gets one whose directory is root's, not nobody's, as
when its pid was reused by another user's process, and whose engine
claims 90 % of the GPU: batond must not read it (one warning naming the
uid, its GPU time from the next source, its share nowhere near 0.9).
Nobody cannot read status (where gpu_source and k_ms are) nor change
fdinfo_root with a `set` request.

Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv, no X)."""
import json
import os
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fair_attacks import FakeShim  # noqa: E402
from hostile import (NOBODY, SKIP, Bed, Fail, Xvfb, as_nobody,  # noqa: E402
                     check, game, game_test_args)


def fake_client(root, pid, busy_s):
    """ROOT/PID/fd/3 -> a render node, ROOT/PID/fdinfo/3 in amdgpu's
    format with busy_s of gfx time; the directories root's."""
    d = os.path.join(root, str(pid))
    for sub in ("fd", "fdinfo"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    link = os.path.join(d, "fd", "3")
    if not os.path.islink(link):
        os.symlink("/dev/dri/renderD128", link)
    path = os.path.join(d, "fdinfo", "3")
    with open(path + ".new", "w") as f:
        f.write("pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\n"
                "drm-client-id:\t%d\ndrm-pdev:\t0000:03:00.0\n"
                "drm-engine-gfx:\t%d ns\n" % (pid, int(busy_s * 1e9)))
    os.rename(path + ".new", path)


def feed(root, shares, stop):
    """Every 50 ms, each pid's gfx time grows by its share of the time."""
    t0 = time.monotonic()
    while not stop.is_set():
        el = time.monotonic() - t0
        for pid, share in shares.items():
            fake_client(root, pid, share * el)
        time.sleep(0.05)


def nobody_cli(bed, argv):
    r = subprocess.run(as_nobody([bed.baton] + argv), env=bed.env,
                       capture_output=True, text=True, timeout=20)
    return r.returncode, r.stdout + r.stderr


def nobody_request(bed, msg):
    """One raw request line to batond's socket as nobody; its reply."""
    code = r'''
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
s.settimeout(5)
print(s.recv(4096).decode().strip())
'''
    r = subprocess.run(as_nobody([sys.executable, "-c", code, bed.sock,
                                  json.dumps(msg)]),
                       capture_output=True, text=True, timeout=20)
    return r.stdout.strip() or r.stderr.strip()


def main():
    args = game_test_args(__doc__)
    if args is None:
        return SKIP
    try:
        root_dir = None
        with Xvfb(args.xvfb) as x:
            bed = Bed(args.baton, args.batond)
            root_dir = os.path.join(bed.tmp, "proc")
            os.mkdir(root_dir, 0o755)
            cfg = os.path.join(bed.tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write('fdinfo_root = "%s";\n' % root_dir)
            bed.daemon.args += ["--config", cfg]
            bed.daemon.env["BATON_LOG"] = "info"
            stop = threading.Event()
            with bed, game(bed, x, args.glxgears, name="gears"):
                bed.daemon.wait_tenants(["gears"], 20)
                shim = FakeShim(bed, [{"name": "nobody-game", "fps": 30,
                                       "gpu_ns": 1000000}])
                with shim:
                    tenants = bed.daemon.tenants()
                    shares = {tenants["gears"]["pid"]: 0.2,
                              tenants["nobody-game"]["pid"]: 0.9}
                    feeder = threading.Thread(
                        target=feed, args=(root_dir, shares, stop),
                        daemon=True)
                    feeder.start()
                    time.sleep(5)
                    st = {t["name"]: t
                          for t in bed.daemon.status()["tenants"]}
                    for name, t in st.items():
                        print("%-12s uid %5d  gpu_source %-6s  share %.3f"
                              % (name, t["uid"], t["gpu_source"],
                                 t["gpu_share"]))
                    check(st["gears"]["gpu_source"] == "fdinfo",
                          "root's game is not counted from its fdinfo")
                    check(abs(st["gears"]["gpu_share"] - 0.2) < 0.05,
                          "root's game share %.3f, its fdinfo says 0.2" %
                          st["gears"]["gpu_share"])
                    nob = st["nobody-game"]
                    check(nob["uid"] == NOBODY, "the attacker's uid")
                    check(nob["gpu_source"] != "fdinfo",
                          "nobody's tenant was counted from a directory "
                          "that is not nobody's")
                    check(nob["gpu_share"] < 0.2,
                          "nobody's tenant counts %.3f of the GPU" %
                          nob["gpu_share"])
                    warned = [ln for ln in bed.daemon.log
                              if "not uid %d's" % NOBODY in ln]
                    print("batond:", *warned)
                    check(len(warned) == 1, "%d warnings for nobody's "
                          "directory, not one" % len(warned))
                    rc, out = nobody_cli(bed, ["status", "--json"])
                    print("nobody's status: exit %d" % rc)
                    check(rc != 0 and "gpu_source" not in out,
                          "nobody read status: %s" % out[:200])
                    reply = nobody_request(bed, {
                        "type": "set", "id": nob["id"],
                        "fdinfo_root": "/tmp"})
                    print("nobody's raw set fdinfo_root:", reply)
                    check('"error"' in reply,
                          "nobody's set fdinfo_root was not refused")
                    time.sleep(1)
                    src = {t["name"]: t["gpu_source"]
                           for t in bed.daemon.status()["tenants"]}
                    check(src == {"gears": "fdinfo", "nobody-game": "cpu"},
                          "sources changed after nobody's set: %s" % src)
                    stop.set()
                    feeder.join()
    except (Fail, subprocess.TimeoutExpired, KeyError) as e:
        print("FAIL:", repr(e))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
