"""One user with many uids against the per-uid limits: a root batond whose
subordinate-uid file (subuid_file) gives uid 65534 the range
200000..265535, as useradd does for rootless containers. The attacker
runs as several of those uids (setpriv to each); the victim is another
user, uid 1000.

  conns    uids 200000..200016 each open up to 64 connections (a client
           hello each, so the hello deadline does not close them) and hold
           them. Before: 17 x 64 filled the connection cap (1016 for users
           other than root) and uid 1000's new game was refused. Now: the
           owner's uids hold max_conns_per_uid (64) together, the rest are
           refused naming the owner, and uid 1000's game is welcomed.
  half     with max_conns_per_uid 100000, uids 200000..200002 each open
           up to 600. Before: two uids filled the cap. Now: the owner
           holds at most half the cap (512 of 1024), the other half is
           everyone else's; uid 1000's game is welcomed.
  reload   uids 200000 and 200001 hold 64 connections each while the file
           has no range; the range is added and batond gets SIGHUP: uid
           200002's connection is refused (the 128 held count against
           the owner now).
  tenants  with max_tenants_per_uid 4, uids 200000..200004 each register
           4 tenants. Before: 20 registered. Now: 4 together, the rest
           refused naming the owner; uid 1000 still registers one.
  esa      (with --xvfb and --glxgears) under ESA, root's glxgears beside
           one tenant of each of uids 200000..200009 claiming 9.9 s of GPU
           a frame. Before: eleven owners, root's game held to about an
           eleventh of its rate alone. Now: two owners, at least a third
           (half the budget, with room).

Every bound is the configured limit, compared with what the same run
counted. A batond that does not know subuid_file (the code before owners)
is run without it, so the test measures what the attack does to it.

Usage: owner_attacks.py --baton B --batond D [MODE...] (default: all)
Exit 0 pass, 1 fail, 77 skipped (not root)."""
import argparse
import json
import os
import pwd
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import (NOBODY, Bed, Fail, Xvfb, check, game,  # noqa: E402
                     skip_unless_root)
from fair_attacks import FAKE_SHIM, SLA, SLA_REF, settle  # noqa: E402

RANGE_FIRST, RANGE_COUNT = 200000, 65536
VICTIM = 1000
PER_UID = 64  # batond's default max_conns_per_uid
TENANT_CAP = 4
# Half of batond's connection cap (SERVER_MAX_CONNS 1024, which the
# descriptor limit it raises itself to allows).
HALF_CAP = 512

# Run as one uid: opens up to N connections, each with a client hello (or,
# with "tenant", a tenant hello and a sealed memfd), until one is refused;
# prints {"welcomed": n, "refusal": first error}; holds them until its
# parent goes.
HOLDER = r'''
import fcntl, json, os, resource, socket, struct, sys, time
SOCK, N, ROLE = sys.argv[1], int(sys.argv[2]), sys.argv[3]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
SIZE = 3 * 64 + 256 * 64

def memfd():
    fd = os.memfd_create("baton", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, SIZE)
    os.pwrite(fd, struct.pack("<QIIQ6I2Q", 0x31534d484e544142, 1, 64, SIZE,
                              64, 128, 192, 64, 256, os.getpid(), 0, 0), 0)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return fd

held, refusal = [], None
for i in range(N):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect(SOCK)
    except OSError as e:
        refusal = "connect: %s" % e
        break
    try:
        # A refused connection has its error line waiting and is closed:
        # the hello may fail to go, the line is still read.
        if ROLE == "tenant":
            fd = memfd()
            hello = {"type": "hello", "version": 1, "role": "tenant",
                     "name": "t%d_%d" % (os.getuid(), i)}
            try:
                socket.send_fds(s, [(json.dumps(hello) + "\n").encode()],
                                [fd])
            finally:
                os.close(fd)
        else:
            s.sendall(b'{"type":"hello","version":1,"role":"client"}\n')
    except OSError:
        pass
    try:
        line = s.makefile().readline()
    except OSError as e:
        line = json.dumps({"type": "error", "message": str(e)})
    if '"welcome"' in line:
        held.append(s)
        continue
    refusal = line.strip() or "closed"
    s.close()
    break
print(json.dumps({"welcomed": len(held), "refusal": refusal}), flush=True)
parent = os.getppid()
while os.getppid() == parent:
    time.sleep(0.2)
'''


def as_uid(uid, argv):
    return ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid,
            "--clear-groups", "--"] + list(argv)


class Holders:
    """Processes of the given uids holding what HOLDER opened; results[i]
    is uid i's line."""

    def __init__(self, sock, uids, n, role):
        self.procs, self.results = [], []
        for uid in uids:
            p = subprocess.Popen(
                as_uid(uid, [sys.executable, "-c", HOLDER, sock, str(n),
                             role]),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, start_new_session=True)
            self.procs.append(p)
            line = p.stdout.readline()
            if not line:
                self.close()
                raise Fail("uid %d's holder ended: %s" % (
                    uid, p.stderr.read()[-400:]))
            self.results.append(json.loads(line))

    def welcomed(self):
        return sum(r["welcomed"] for r in self.results)

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)
            p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def victim_game(sock):
    """uid 1000 registers one tenant (a new game); its reply line."""
    with Holders(sock, [VICTIM], 1, "tenant") as v:
        r = v.results[0]
        return "welcome" if r["welcomed"] == 1 else r["refusal"]


def subuid_line():
    """uid 65534's range as subuid(5) writes it: by name when "nobody" is
    uid 65534."""
    try:
        if pwd.getpwnam("nobody").pw_uid == NOBODY:
            return "nobody:%d:%d\n" % (RANGE_FIRST, RANGE_COUNT)
    except KeyError:
        pass
    return "%d:%d:%d\n" % (NOBODY, RANGE_FIRST, RANGE_COUNT)


def subuid_bed(a, tmp_args, conf_lines="", ranges=True):
    """A Bed whose batond reads a subuid file giving uid 65534's range
    (by name when "nobody" is uid 65534, as subuid(5) writes it); a
    batond without subuid_file is started without it."""
    bed = Bed(a.baton, a.batond, tmp_args)
    bed.subuid = os.path.join(bed.tmp, "subuid")
    with open(bed.subuid, "w") as f:
        f.write("# the attacker's range\n" + (subuid_line() if ranges
                                                else ""))
    os.chmod(bed.subuid, 0o644)
    conf = os.path.join(bed.tmp, "batond.conf")
    with open(conf, "w") as f:
        f.write('subuid_file = "%s";\n%s' % (bed.subuid, conf_lines))
    bed.daemon.args += ["--config", conf]
    try:
        bed.__enter__()
    except Fail:
        if not any("subuid_file" in l for l in bed.daemon.log):
            bed.__exit__()
            raise
        print("batond does not know subuid_file: run without it")
        with open(conf, "w") as f:
            f.write(conf_lines)
        bed.__enter__()
    return bed


def close_bed(bed):
    """Stops batond; fails on a sanitizer's report in its log (a
    sanitized build)."""
    bed.__exit__()
    time.sleep(0.1)  # the log reader drains what batond wrote last
    bad = [l for l in bed.daemon.log
           if "Sanitizer" in l or "runtime error:" in l]
    check(not bad, "batond's log has %s" % bad[:3])


def mode_conns(a):
    bed = subuid_bed(a, [])
    try:
        uids = range(RANGE_FIRST, RANGE_FIRST + 17)
        with Holders(bed.sock, uids, PER_UID, "client") as h:
            got = h.welcomed()
            print("conns: uids %d..%d of owner %d hold %d connections "
                  "(%s each)" % (uids[0], uids[-1], NOBODY, got,
                                 [r["welcomed"] for r in h.results]))
            refusals = [r["refusal"] for r in h.results if r["refusal"]]
            print("conns: first refusal: %s" % (refusals[:1] or "none"))
            reply = victim_game(bed.sock)
            print("conns: uid %d's new game: %s" % (VICTIM, reply))
            bed.daemon.status()  # root still gets in
            check(reply == "welcome", "conns: uid %d's new game was "
                  "refused while uid %d's subordinate uids hold %d "
                  "connections: %s" % (VICTIM, NOBODY, got, reply))
            check(got <= PER_UID, "conns: owner %d's uids hold %d "
                  "connections together, over max_conns_per_uid %d" % (
                      NOBODY, got, PER_UID))
            check(any(str(NOBODY) in r and "max_conns_per_uid" in r
                      for r in refusals),
                  "conns: no refusal names the owner: %s" % refusals[:2])
    finally:
        close_bed(bed)


def mode_half(a):
    bed = subuid_bed(a, [], "max_conns_per_uid = 100000;\n")
    try:
        uids = range(RANGE_FIRST, RANGE_FIRST + 3)
        with Holders(bed.sock, uids, 600, "client") as h:
            got = h.welcomed()
            print("half: uids %d..%d of owner %d hold %d connections (%s "
                  "each)" % (uids[0], uids[-1], NOBODY, got,
                             [r["welcomed"] for r in h.results]))
            reply = victim_game(bed.sock)
            print("half: uid %d's new game: %s" % (VICTIM, reply))
            check(reply == "welcome", "half: uid %d's new game was "
                  "refused while uid %d's subordinate uids hold %d "
                  "connections: %s" % (VICTIM, NOBODY, got, reply))
            check(got <= HALF_CAP, "half: owner %d's uids hold %d "
                  "connections, over half the cap (%d)" % (
                      NOBODY, got, HALF_CAP))
    finally:
        close_bed(bed)


def mode_reload(a):
    bed = subuid_bed(a, [], ranges=False)
    try:
        uids = [RANGE_FIRST, RANGE_FIRST + 1]
        with Holders(bed.sock, uids, PER_UID, "client") as h:
            print("reload: with no ranges uids %s hold %s connections" % (
                uids, [r["welcomed"] for r in h.results]))
            with open(bed.subuid, "a") as f:
                f.write(subuid_line())
            bed.daemon.proc.send_signal(signal.SIGHUP)
            time.sleep(0.5)
            check(bed.daemon.alive(), "reload: batond ended on SIGHUP")
            with Holders(bed.sock, [RANGE_FIRST + 2], 1, "client") as late:
                r = late.results[0]
            print("reload: after the range and SIGHUP, uid %d: %s" % (
                RANGE_FIRST + 2, r["refusal"] or "welcome"))
            check(r["welcomed"] == 0 and str(NOBODY) in (r["refusal"] or ""),
                  "reload: uid %d got in after its owner's uids were "
                  "found to hold %d connections: %s" % (
                      RANGE_FIRST + 2, h.welcomed(), r))
    finally:
        close_bed(bed)


def costly_tenants(sock, uids):
    """One tenant per uid claiming 9.9 s of GPU time a frame at 5 FPS
    (fair_attacks.py's fake shim), each process run as its uid."""
    procs = []
    for uid in uids:
        params = {"sock": sock, "tenants": [
            {"name": "costly%d" % uid, "fps": 5, "gpu_ns": 9900000000}]}
        p = subprocess.Popen(
            as_uid(uid, [sys.executable, "-c", FAKE_SHIM,
                         json.dumps(params)]),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True)
        procs.append(p)
        reply = p.stdout.readline()
        check('"welcome"' in reply and p.stdout.readline().strip() ==
              "ready", "esa: uid %d's tenant: %s %s" % (
                  uid, reply.strip(), p.stderr.read()[-300:]
                  if p.poll() is not None else ""))
    return procs


def mode_esa(a):
    if not (a.xvfb and a.glxgears):
        print("esa: skipped (no --xvfb and --glxgears)")
        return
    bed = subuid_bed(a, ["--policy", "esa", "--sla", str(SLA)])
    procs = []
    try:
        with Xvfb(a.xvfb) as x, game(bed, x, a.glxgears, name="game",
                                     sla=SLA):
            bed.daemon.wait_tenants(["game"], 20)
            t_alone, f_alone, o_alone = settle(bed, "game", 3.0)
            uids = range(RANGE_FIRST, RANGE_FIRST + 10)
            procs = costly_tenants(bed.sock, uids)
            t_atk, f_atk, o_atk = settle(bed, "game", 4.0)
            print("esa: root's game alone: target %.1f (%.1f FPS, other "
                  "load %.2f); beside 10 tenants of owner %d's uids: "
                  "target %.1f (%.1f FPS, other load %.2f), %.0f %%" % (
                      t_alone, f_alone, o_alone, NOBODY, t_atk, f_atk,
                      o_atk, 100 * t_atk / t_alone))
            check(t_atk >= SLA_REF * 0.999, "esa: target %.2f under the "
                  "SLA reference" % t_atk)
            # Root's share is U / m over m owners: a half now (two
            # users), an eleventh when each subordinate uid was a user.
            # A third tells them apart while that third is above the SLA
            # floor and the host's other load leaves a budget.
            if t_alone < 4 * SLA_REF or o_atk > 0.6:
                print("INCONCLUSIVE: alone the game got %.1f with other "
                      "load %.2f; the share is not judged" % (
                          t_alone, o_atk))
                return
            check(t_atk >= t_alone / 3, "esa: owner %d's ten uids took "
                  "root's game to %.1f of the %.1f it had alone (its "
                  "user's half, with room, is a third)" % (
                      NOBODY, t_atk, t_alone))
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)
            p.wait()
        close_bed(bed)


def mode_tenants(a):
    bed = subuid_bed(a, ["--max-tenants-per-uid", str(TENANT_CAP)])
    try:
        uids = range(RANGE_FIRST, RANGE_FIRST + 5)
        with Holders(bed.sock, uids, TENANT_CAP, "tenant") as h:
            got = h.welcomed()
            registered = len(bed.daemon.status()["tenants"])
            print("tenants: uids %d..%d of owner %d registered %d tenants "
                  "(%s each; batond lists %d)" % (
                      uids[0], uids[-1], NOBODY, got,
                      [r["welcomed"] for r in h.results], registered))
            refusals = [r["refusal"] for r in h.results if r["refusal"]]
            print("tenants: first refusal: %s" % (refusals[:1] or "none"))
            reply = victim_game(bed.sock)
            print("tenants: uid %d's new game: %s" % (VICTIM, reply))
            check(reply == "welcome", "tenants: uid %d's new game was "
                  "refused: %s" % (VICTIM, reply))
            check(got <= TENANT_CAP, "tenants: owner %d's uids registered "
                  "%d tenants together, over max_tenants_per_uid %d" % (
                      NOBODY, got, TENANT_CAP))
            check(any(str(NOBODY) in r and "max_tenants_per_uid" in r
                      for r in refusals),
                  "tenants: no refusal names the owner: %s" % refusals[:2])
    finally:
        close_bed(bed)


MODES = {"conns": mode_conns, "half": mode_half, "reload": mode_reload,
         "tenants": mode_tenants, "esa": mode_esa}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baton", required=True)
    ap.add_argument("--batond", required=True)
    ap.add_argument("--xvfb")
    ap.add_argument("--glxgears")
    ap.add_argument("modes", nargs="*", default=list(MODES))
    a = ap.parse_args()
    skip_unless_root()
    failed = []
    for m in a.modes:
        t0 = time.monotonic()
        try:
            MODES[m](a)
            print("PASS %s (%.1f s)" % (m, time.monotonic() - t0))
        except Fail as e:
            print("FAIL %s: %s" % (m, e))
            failed.append(m)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
