"""The capacity request's encoder and VRAM fields against a uid-65534 user
(a root batond whose config gives the GPU 4096 MiB of VRAM and an app
that needs 1024 MiB; a root glxgears under `baton run` on a private Xvfb
whose fake fdinfo, `fdinfo_root`, says it holds 1536 MiB and keeps its
encoder 30 % busy).

- nobody may ask, with "encoder" and "vram_mb" (raw requests and
  `baton capacity --encoder --vram`): the answer holds the GPU's
  aggregate figures (encoder load, free VRAM), never root's tenant, its
  name, pid or its own share;
- nobody cannot learn root's game's VRAM or encoder share through a
  learned profile of its name (`not_found`);
- out-of-range, non-numeric and huge values are refused (`invalid`,
  naming the field), and batond answers on, root's game still paced.

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
from accounting_attacks import nobody_cli  # noqa: E402
from hostile import (SKIP, Bed, Fail, Xvfb, as_nobody, check,  # noqa: E402
                     game, game_test_args)

CONFIG = """fdinfo_root = "%s";
params = { cap_u_limit = 3.0; };
gpus = ( { name = "gpu0"; vram_mb = 4096; } );
apps = ( { name = "bigtex"; cost_ms = 0.5; sla = 10; vram_mb = 1024; } );
"""


def nobody_request(bed, msg):
    """A client's hello, then one request line as nobody; its reply."""
    code = r'''
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(5)
f = s.makefile("rb")
s.sendall(b'{"type":"hello","version":1,"role":"client"}\n')
f.readline()
s.sendall(sys.argv[2].encode() + b"\n")
print(f.readline().decode().strip())
'''
    r = subprocess.run(as_nobody([sys.executable, "-c", code, bed.sock,
                                  json.dumps(msg)]),
                       capture_output=True, text=True, timeout=20)
    return r.stdout.strip() or r.stderr.strip()


def feed(root, pid, stop):
    """Root's game's fdinfo (amdgpu's format, root's directory): its
    encoder busy 30 % of the time, 1536 MiB resident."""
    d = os.path.join(root, str(pid))
    for sub in ("fd", "fdinfo"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    os.symlink("/dev/dri/renderD128", os.path.join(d, "fd", "3"))
    t0 = time.monotonic()
    while not stop.is_set():
        el = time.monotonic() - t0
        path = os.path.join(d, "fdinfo", "3")
        with open(path + ".new", "w") as f:
            f.write("pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\n"
                    "drm-client-id:\t%d\ndrm-pdev:\t0000:03:00.0\n"
                    "drm-resident-vram:\t%d KiB\n"
                    "drm-engine-gfx:\t%d ns\ndrm-engine-enc:\t%d ns\n" % (
                        pid, 1536 * 1024, int(0.1 * el * 1e9),
                        int(0.3 * el * 1e9)))
        os.rename(path + ".new", path)
        time.sleep(0.05)


BAD = [
    ({"encoder": 0}, "encoder"), ({"encoder": -0.5}, "encoder"),
    ({"encoder": 1.5}, "encoder"), ({"encoder": "all"}, "encoder"),
    ({"vram_mb": 0}, "vram_mb"),
    ({"vram_mb": -1}, "vram_mb"), ({"vram_mb": 1e30}, "vram_mb"),
    ({"vram_mb": [1]}, "vram_mb"), ({"vram_mb": None}, "vram_mb"),
]


def check_answers(bed):
    ok = {"type": "capacity", "profile": "bigtex", "encoder": 0.2,
          "vram_mb": 512}
    reply = nobody_request(bed, ok)
    print("nobody's capacity with encoder and vram_mb:", reply[:300])
    r = json.loads(reply)
    check(r.get("type") == "capacity", "nobody's question not answered")
    g = r["gpus"][0]
    check(g["more_vram"] == 5 and abs(g["encoder_load"] - 0.3) < 0.08,
          "the answer's figures: VRAM count %s (2560 MiB free / 512), "
          "encoder load %s (0.3)" % (g["more_vram"], g["encoder_load"]))
    check("gears" not in reply and '"pid"' not in reply and
          "tenants" not in reply,
          "the answer names root's tenant")
    rc, out = nobody_cli(bed, ["capacity", "--cost", "0.5", "--sla", "10",
                               "--encoder", "0.5", "--vram", "3G"])
    print("nobody's baton capacity --encoder 0.5 --vram 3G: exit %d: %s"
          % (rc, out.strip()[:200]))
    check(rc == 5 and "VRAM" in out, "3 GiB beside 2560 MiB free fits?")
    # root's game by name: a learned profile is the asker's own only
    reply = nobody_request(bed, {"type": "capacity", "profile": "gears"})
    print("nobody's learned profile of root's game:", reply)
    check('"not_found"' in reply and "1536" not in reply,
          "nobody learned root's game's profile: %s" % reply)


def check_refusals(bed):
    for fields, key in BAD:
        msg = {"type": "capacity", "cost_ms": 1, "sla_fps": 30}
        msg.update(fields)
        reply = nobody_request(bed, msg)
        print("%-24s -> %s" % (json.dumps(fields), reply[:120]))
        check('"invalid"' in reply and key in reply,
              "%s not refused naming %s: %s" % (fields, key, reply))


def main():
    args = game_test_args(__doc__)
    if args is None:
        return SKIP
    stop = threading.Event()
    try:
        with Xvfb(args.xvfb) as x:
            bed = Bed(args.baton, args.batond, ["--sla", "10"])
            root_dir = os.path.join(bed.tmp, "proc")
            os.mkdir(root_dir, 0o755)
            cfg = os.path.join(bed.tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write(CONFIG % root_dir)
            bed.daemon.args += ["--config", cfg]
            with bed, game(bed, x, args.glxgears, name="gears", sla=10):
                bed.daemon.wait_tenants(["gears"], 20)
                pid = bed.daemon.tenants()["gears"]["pid"]
                feeder = threading.Thread(target=feed,
                                          args=(root_dir, pid, stop),
                                          daemon=True)
                feeder.start()
                time.sleep(5)
                check_answers(bed)
                check_refusals(bed)
                t = bed.daemon.tenants()["gears"]
                check(bed.daemon.alive() and t["target_fps"] > 0,
                      "batond or root's game did not survive")
                print("after: gears at %.1f FPS, target %.1f" % (
                    t["fps"], t["target_fps"]))
                stop.set()
                feeder.join()
    except (Fail, subprocess.TimeoutExpired, KeyError) as e:
        print("FAIL:", repr(e))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
