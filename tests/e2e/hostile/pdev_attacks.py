"""Placement by drm-pdev against a uid-65534 user (a root batond with two
hardware GPUs by PCI slot, gpu0 at 0000:03:00.0 and gpu1 at 0000:04:00.0,
whose fdinfo reader reads a fake /proc tree, `fdinfo_root`; a root
glxgears under `baton run --gpu gpu0`; the attacker fake shims of
fair_attacks.py, each registering a game as nobody that names no GPU).

The fake tree plays the kernel in amdgpu's fdinfo format
(drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c). A tenant's DRM clients
place only that tenant:
  mover    nobody's directory, a client on gpu1's slot: it moves itself
           to gpu1 (one log line), nothing else moves;
  reused   a directory that is root's, not nobody's (its pid reused by
           another user's process), clients on gpu1's slot: not read, it
           stays on gpu0;
  garbage  nobody's directory, a drm-pdev with a quote and a backslash
           and a slot no GPU has: one warning naming the first, one line
           for the unknown slot, it stays on gpu0;
  noise    drm-pdev values of control bytes and of 60 characters, which
           the parser does not keep: one warning, it stays on gpu0, no
           raw control byte in batond's log;
and root's game, which named gpu0, stays there, counted from its own
fdinfo on gpu0's slot.

Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv, no X)."""
import os
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fair_attacks import FakeShim  # noqa: E402
from hostile import (NOBODY, SKIP, Bed, Client, Fail, Xvfb,  # noqa: E402
                     check, game_test_args)

SLOTS = ("0000:03:00.0", "0000:04:00.0")
CONFIG = """fdinfo_root = "%s";
policy = "sa";
gpus = ( { name = "gpu0"; device = "%s"; },
         { name = "gpu1"; device = "%s"; } );
"""
QUOTED = '0000:04:00.0"\\'
# name -> (owner of its directory, the drm-pdev of each client)
ATTACKERS = {
    "mover": (NOBODY, [SLOTS[1]]),
    "reused": (0, [SLOTS[1], SLOTS[1]]),
    "garbage": (NOBODY, [QUOTED, "0000:09:00.0"]),
    "noise": (NOBODY, ["0000:04:\x1b[31m00.0", "0" * 60]),
}


def fake_clients(root, pid, uid, pdevs, busy_s):
    """ROOT/PID/fd/N -> a render node and ROOT/PID/fdinfo/N in amdgpu's
    format, one client per drm-pdev given; the directories uid's."""
    d = os.path.join(root, str(pid))
    for sub in ("", "fd", "fdinfo"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
        os.chown(os.path.join(d, sub), uid, uid)
    for i, pdev in enumerate(pdevs):
        fd = 3 + i
        link = os.path.join(d, "fd", str(fd))
        if not os.path.islink(link):
            os.symlink("/dev/dri/renderD128", link)
        path = os.path.join(d, "fdinfo", str(fd))
        with open(path + ".new", "w") as f:
            f.write("pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\n"
                    "drm-client-id:\t%d\ndrm-pdev:\t%s\n"
                    "drm-engine-gfx:\t%d ns\n"
                    % (pid * 16 + i, pdev, int(busy_s * 1e9)))
        os.rename(path + ".new", path)


def feed(root, who, stop):
    """Every 50 ms each pid's clients' gfx time grows by 0.1 s a second."""
    t0 = time.monotonic()
    while not stop.is_set():
        for pid, (uid, pdevs) in who.items():
            fake_clients(root, pid, uid, pdevs, 0.1 * (
                time.monotonic() - t0))
        time.sleep(0.05)


def check_log(log):
    moved = [ln for ln in log if "moved from" in ln]
    print("batond:", *moved, sep="\n  ")
    check(len(moved) == 1 and '"mover"' in moved[0] and
          "to gpu1" in moved[0], "not one line moving nobody's mover: %s"
          % moved)
    bad = [ln for ln in log if "no PCI slot" in ln or
           "no drm-pdev batond can read" in ln]
    unknown = [ln for ln in log if "0000:09:00.0" in ln]
    print("batond:", *(bad + unknown), sep="\n  ")
    check(len(bad) == 2 and '"garbage"' in bad[0] + bad[1] and
          '"noise"' in bad[0] + bad[1] and QUOTED in bad[0] + bad[1],
          "not one warning each for the garbage drm-pdev values: %s" % bad)
    check(len(unknown) == 1 and "none of batond's GPUs" in unknown[0],
          "the unknown slot: %s" % unknown)
    check(not any("\x1b" in ln for ln in log),
          "a raw control byte reached batond's log")


def main():
    args = game_test_args(__doc__)
    if args is None:
        return SKIP
    try:
        with Xvfb(args.xvfb) as x:
            bed = Bed(args.baton, args.batond)
            root_dir = os.path.join(bed.tmp, "proc")
            os.mkdir(root_dir, 0o755)
            cfg = os.path.join(bed.tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write(CONFIG % ((root_dir,) + SLOTS))
            bed.daemon.args += ["--config", cfg]
            bed.daemon.env["BATON_LOG"] = "info"
            stop = threading.Event()
            env = x.env(BATON_SOCKET=bed.sock)
            gears = Client([args.baton, "run", "--gpu", "gpu0", "--name",
                            "gears", "--", args.glxgears], env)
            with bed, gears:
                bed.daemon.wait_tenants(["gears"], 20)
                shims = [FakeShim(bed, [{"name": n, "fps": 30,
                                         "gpu_ns": 1000000}])
                         for n in ATTACKERS]
                try:
                    t = bed.daemon.tenants()
                    who = {t[n]["pid"]: ATTACKERS[n] for n in ATTACKERS}
                    who[t["gears"]["pid"]] = (0, [SLOTS[0]])
                    feeder = threading.Thread(
                        target=feed, args=(root_dir, who, stop),
                        daemon=True)
                    feeder.start()
                    time.sleep(5)
                    st = {t["name"]: t
                          for t in bed.daemon.status()["tenants"]}
                    for name, t in st.items():
                        print("%-8s uid %5d  on %s  gpu_source %s" % (
                            name, t["uid"], t["gpu"], t["gpu_source"]))
                    on = {n: t["gpu"] for n, t in st.items()}
                    check(on == {"gears": "gpu0", "mover": "gpu1",
                                 "reused": "gpu0", "garbage": "gpu0",
                                 "noise": "gpu0"},
                          "tenants on %s" % on)
                    check(st["gears"]["gpu_source"] == "fdinfo",
                          "root's game is not counted from its fdinfo")
                    check(st["mover"]["gpu_source"] == "fdinfo",
                          "nobody's mover is not counted on gpu1")
                    check(st["reused"]["gpu_source"] != "fdinfo",
                          "a directory not nobody's was read")
                    check_log(bed.daemon.log)
                    check(bed.daemon.alive(), "batond died")
                finally:
                    stop.set()
                    for s in shims:
                        s.close()
    except (Fail, subprocess.TimeoutExpired, KeyError) as e:
        print("FAIL:", repr(e))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
