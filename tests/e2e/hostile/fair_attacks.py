"""Hostile tenants against ESA and the request checks: a root
glxgears game under `baton run` shares a root batond (ESA)
with tenants of uid 65534 registered by a fake shim (a Python process that
speaks the shim's side of src/ipc/proto.h and shm.h: a sealed memfd passed
with the hello, frame records pushed into its ring).

Cases, every number compared with what the same run measured:

  idle     a tenant of nobody that never presents, registered before the
           game: the game is still paced (target > 0) and, while the
           host's other load leaves ESA half the GPU, not held at its SLA
           reference because one cost is unknown
  costs    ten tenants of nobody reporting 9.9 s of GPU time per frame: the
           game's target stays at or above its SLA reference and at least
           a third of its rate alone (its user's half of the budget, with
           room), and it measures at least 70 % of min(target, its rate
           alone)
  cap      nobody registers one tenant more than max_tenants_per_uid (32):
           refused, the error naming uid 65534 and the limit
  names    names with U+202E, U+200B and control bytes: registered, status
           shows them with those replaced
  set      nobody sets root's game (by name and by --id): denied; root
           setting a name that both users run: refused, listing both,
           unless --uid picks one
  sla      an SLA of 5e-324 (hello and baton set): refused
  admin    a user whose supplementary groups hold batond's admin_group
           may ask for status; without it, denied
  log      raw control bytes from a client never reach batond's log

Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv, no X)."""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hostile import (NOBODY, SKIP, Bed, Fail, Xvfb,  # noqa: E402
                     as_nobody, check, game, game_test_args)

SLA = 30.0
SLA_REF = SLA * 1.01  # core_sla_ref with the default sla_margin
CAP = 32              # batond's default max_tenants_per_uid
ADMIN_GID = 4242

# The fake shim, run as nobody with `python3 -c`: registers the tenants
# described by PARAMS, prints each reply as one JSON line, then "ready",
# and presents frames until killed. Standard library only.
FAKE_SHIM = r'''
import fcntl, json, mmap, os, socket, struct, sys, time
P = json.loads(sys.argv[1])
SHM_SIZE = 64 * 3 + 256 * 64
RING_OFF, RECORDS_OFF = 128, 192
HEADER = struct.Struct("<QIIQIIIIIIQQ")
FRAME = struct.Struct("<QqqqqqQII")

def memfd():
    fd = os.memfd_create("baton", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, SHM_SIZE)
    mm = mmap.mmap(fd, SHM_SIZE)
    HEADER.pack_into(mm, 0, 0x31534D484E544142, 1, 64, SHM_SIZE, 64,
                     RING_OFF, RECORDS_OFF, 64, 256, os.getpid(), 0, 0)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return fd, mm

live = []
for t in P["tenants"]:
    fd, mm = memfd()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(P["sock"])
    hello = {"type": "hello", "version": 1, "role": "tenant",
             "name": t["name"], "sla_fps": t.get("sla", 0),
             "fixed_fps": 0, "api": "gl"}
    socket.send_fds(s, [(json.dumps(hello) + "\n").encode()], [fd])
    os.close(fd)
    s.settimeout(5)
    buf = b""
    while b"\n" not in buf:
        got = s.recv(4096)
        if not got:
            break
        buf += got
    line = buf.split(b"\n")[0].decode(errors="replace")
    print(line or json.dumps({"type": "closed"}), flush=True)
    if '"welcome"' in line:
        live.append((s, mm, t))
print("ready", flush=True)
i = {id(m): 0 for _, m, _ in live}
parent = os.getppid()
while os.getppid() == parent:  # the test went: so do its tenants
    now = time.monotonic_ns()
    for s, mm, t in live:
        if not t.get("fps"):
            continue
        n = i[id(mm)]
        FRAME.pack_into(mm, RECORDS_OFF + (n % 256) * 64, n + 1, now,
                        1000000, 0, 0, t["gpu_ns"], n + 1,
                        t.get("flags", 0), 0)
        struct.pack_into("<Q", mm, RING_OFF, n + 1)
        i[id(mm)] = n + 1
    rate = max([t.get("fps", 0) for _, _, t in live] + [1])
    time.sleep(1.0 / rate)
'''


class FakeShim:
    """Tenants of nobody registered by FAKE_SHIM; replies[i] is tenant i's
    parsed reply (welcome or error)."""

    def __init__(self, bed, tenants):
        params = {"sock": bed.sock, "tenants": tenants}
        self.proc = subprocess.Popen(
            as_nobody([sys.executable, "-c", FAKE_SHIM, json.dumps(params)]),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.replies = []
        for _ in tenants:
            line = self.proc.stdout.readline()
            if not line:
                raise Fail("fake shim ended early: %s"
                           % self.proc.stderr.read())
            self.replies.append(json.loads(line))
        check(self.proc.stdout.readline().strip() == "ready",
              "fake shim did not get ready")

    def welcomed(self):
        return [r for r in self.replies if r.get("type") == "welcome"]

    def close(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tenant(bed, name, uid=None):
    for t in bed.daemon.status()["tenants"]:
        if t["name"] == name and (uid is None or t.get("uid") == uid):
            return t
    return None


def settle(bed, name, seconds):
    """The tenant's target and 1 s rate, averaged over the last half of
    `seconds`, and the host's other load (other_util) at the end."""
    time.sleep(seconds / 2)
    targets, rates = [], []
    end = time.monotonic() + seconds / 2
    while time.monotonic() < end:
        st = bed.daemon.status()
        t = [t for t in st["tenants"]
             if t["name"] == name and t.get("uid") == 0]
        check(t, "tenant %s is gone" % name)
        targets.append(t[0]["target_fps"])
        rates.append(t[0]["fps"])
        time.sleep(0.25)
    print("  (%d tenants, common rate %.1f, other load %.2f)" % (
        len(st["tenants"]), st.get("common_fps", 0),
        st.get("other_util", 0)))
    return (sum(targets) / len(targets), sum(rates) / len(rates),
            st.get("other_util", 0))


def baton(bed, args, nobody=False, groups=None):
    argv = [bed.baton] + args
    if nobody:
        argv = as_nobody(argv)
    if groups:
        argv = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                "--groups=%s" % groups, "--"] + [bed.baton] + args
    return subprocess.run(argv, env=bed.env, capture_output=True, text=True,
                          timeout=10)


def case_idle_and_costs(bed, x, glxgears, failures):
    with FakeShim(bed, [{"name": "idle", "fps": 0}]) as idle:
        check(idle.welcomed(), "idle tenant refused: %s" % idle.replies)
        with game(bed, x, glxgears, name="game", sla=SLA):
            bed.daemon.wait_tenants(["game"], 10)
            t_idle, f_idle, o_idle = settle(bed, "game", 3.0)
            idle.close()
            t_alone, f_alone, _ = settle(bed, "game", 3.0)
            print("game beside an idle tenant: target %.1f, %.1f FPS; "
                  "alone: target %.1f, %.1f FPS" % (t_idle, f_idle,
                                                    t_alone, f_alone))
            # ESA's budget is what the host's other load leaves
            # (other_util, from /proc/stat): on a host busy with other
            # work the game gets its SLA reference alone too, and the
            # rates cannot tell anything. Said, not failed; the SLA floor
            # and the measured rate are still checked.
            judged = t_alone > 2 * SLA_REF
            if not judged:
                print("INCONCLUSIVE: alone the game got only %.1f (the "
                      "host's other load leaves ESA no budget); the "
                      "ratios are not judged" % t_alone)
            if not t_idle > 0:
                failures.append("idle: the game is unpaced (target %g)"
                                % t_idle)
            # Before: held at its SLA reference for as long as the idle
            # tenant stayed, whatever the budget (the common rate stayed
            # unknown). Judged while the other load left half the GPU.
            if judged and o_idle < 0.45 and t_idle < 1.5 * SLA_REF:
                failures.append(
                    "idle: a tenant that never presents held the game at "
                    "target %.1f with other load %.2f (alone: %.1f)" % (
                        t_idle, o_idle, t_alone))
            costly = [{"name": "costly%d" % i, "fps": 5,
                       "gpu_ns": 9900000000} for i in range(10)]
            with FakeShim(bed, costly) as atk:
                check(len(atk.welcomed()) == 10,
                      "costly tenants refused: %s" % atk.replies[:2])
                t_atk, f_atk, o_atk = settle(bed, "game", 4.0)
            print("game beside ten tenants of nobody claiming 9.9 s of GPU "
                  "a frame: target %.1f, %.1f FPS" % (t_atk, f_atk))
            if t_atk < SLA_REF * 0.999:
                failures.append("costs: target %.2f under the SLA "
                                "reference %.2f" % (t_atk, SLA_REF))
            # Before: the common rate fell to 0.95 / (1 + k) < 1 FPS and
            # the game sat at its SLA reference whatever the budget.
            # Judged on this phase's own other load, as idle is.
            if o_atk < 0.45 and t_atk < 2 * SLA_REF:
                failures.append(
                    "costs: the game held at target %.1f with other load "
                    "%.2f: the other user's tenants took its share" % (
                        t_atk, o_atk))
            if judged and t_atk < t_alone / 3:
                failures.append(
                    "costs: target %.1f, %.0f %% of the %.1f the game had "
                    "alone (its user's half, with room, is a third)" % (
                        t_atk, 100 * t_atk / t_alone, t_alone))
            want = min(t_atk, f_alone)
            if f_atk < 0.7 * want:
                failures.append("costs: the game measured %.1f FPS, under "
                                "70 %% of min(target, alone) = %.1f" % (
                                    f_atk, want))


def case_cap(bed, failures):
    tenants = [{"name": "cap%d" % i} for i in range(CAP + 1)]
    with FakeShim(bed, tenants) as s:
        ok = len(s.welcomed())
        last = s.replies[-1]
        print("cap: %d of %d welcomed; the last: %s" % (
            ok, len(tenants), json.dumps(last)))
        msg = last.get("message", "")
        if ok != CAP or last.get("type") != "error" or \
                str(NOBODY) not in msg or str(CAP) not in msg:
            failures.append("cap: %d tenants of uid %d welcomed, the "
                            "last answered %s" % (ok, NOBODY, last))


def case_names(bed, failures):
    names = ["evil\u202egnp.exe", "a\u200bb\u2066c", "ctl\x01\x1b[31mred",
             "c1\u0085x\ufeff"]
    bad = set(chr(c) for c in list(range(0x20)) + list(range(0x7f, 0xa0))
              + [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067,
                 0x2068, 0x2069, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f,
                 0xfeff])
    with FakeShim(bed, [{"name": n} for n in names]) as s:
        shown = [t["name"] for t in bed.daemon.status()["tenants"]
                 if t.get("uid") == NOBODY]
        print("names: sent %s, status shows %s" % (
            [ascii(n) for n in names], [ascii(n) for n in shown]))
        if len(s.welcomed()) != len(names):
            failures.append("names: %d of %d registered: %s" % (
                len(s.welcomed()), len(names), s.replies))
        for n in shown:
            if set(n) & bad:
                failures.append("names: status shows %s" % ascii(n))


def case_set(bed, failures):
    with FakeShim(bed, [{"name": "game"}]) as s:
        check(s.welcomed(), "nobody's 'game' refused: %s" % s.replies)
        mine = tenant(bed, "game", 0)
        r = baton(bed, ["set", "game", "fps=1"], nobody=True)
        r2 = baton(bed, ["set", "--id", str(mine["id"]), "fps=1"],
                   nobody=True)
        print("set: nobody by name exit %d (%s); by id exit %d (%s)" % (
            r.returncode, r.stderr.strip(), r2.returncode,
            r2.stderr.strip()))
        if r.returncode != 1 or "denied" not in r.stderr:
            failures.append("set: nobody setting root's game by name: exit "
                            "%d %s" % (r.returncode, r.stderr.strip()))
        if r2.returncode != 1 or "denied" not in r2.stderr:
            failures.append("set: nobody setting root's game by id: exit "
                            "%d %s" % (r2.returncode, r2.stderr.strip()))
        r = baton(bed, ["set", "game", "sla=31"])
        print("set: root, a name two users run: exit %d (%s)" % (
            r.returncode, r.stderr.strip()))
        if r.returncode != 1 or "uid %d" % NOBODY not in r.stderr:
            failures.append("set: a name of two users' tenants was not "
                            "refused with the matches: exit %d %s" % (
                                r.returncode, r.stderr.strip()))
        r = baton(bed, ["set", "game", "--uid", "0", "sla=31"])
        theirs = tenant(bed, "game", NOBODY)
        after = tenant(bed, "game", 0)
        print("set: root --uid 0: exit %d, sla root %g, nobody %g" % (
            r.returncode, after["sla_fps"], theirs["sla_fps"]))
        if r.returncode != 0 or after["sla_fps"] != 31 or \
                theirs["sla_fps"] == 31:
            failures.append("set --uid 0: exit %d %s, sla %g / %g" % (
                r.returncode, r.stderr.strip(), after["sla_fps"],
                theirs["sla_fps"]))
        baton(bed, ["set", "--id", str(mine["id"]), "sla=%g" % SLA])


def case_sla(bed, failures):
    with FakeShim(bed, [{"name": "tiny", "sla": 5e-324}]) as s:
        reply = s.replies[0]
    r = baton(bed, ["set", "--uid", "0", "game", "sla=5e-324"])
    print("sla 5e-324: hello answered %s; baton set exit %d (%s)" % (
        json.dumps(reply), r.returncode, r.stderr.strip()))
    if reply.get("type") != "error":
        failures.append("sla: a hello with sla_fps 5e-324 was welcomed")
    if r.returncode == 0:
        failures.append("sla: baton set sla=5e-324 was accepted")


def case_admin(bed, failures):
    with_group = baton(bed, ["status", "--json"], groups=str(ADMIN_GID))
    without = baton(bed, ["status", "--json"], nobody=True)
    print("admin: status by nobody in group %d exit %d; without it exit %d"
          % (ADMIN_GID, with_group.returncode, without.returncode))
    if with_group.returncode != 0:
        failures.append("admin: a member of admin_group (supplementary) "
                        "was refused: %s" % with_group.stderr.strip())
    if without.returncode == 0 or "denied" not in without.stderr:
        failures.append("admin: nobody without the group got status")


def case_log(bed, failures):
    code = r'''
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b'{"type":"hello"\x1b[2J\x07\x1b]0;owned\x07 zz}\n')
s.settimeout(3)
print(s.recv(4096))
'''
    p = subprocess.run(as_nobody([sys.executable, "-c", code, bed.sock]),
                       capture_output=True, text=True, timeout=10)
    time.sleep(0.3)
    raw = [ln for ln in bed.daemon.log if "\x1b" in ln or "\x07" in ln]
    print("log: reply %s; %d log lines with raw control bytes" % (
        p.stdout.strip(), len(raw)))
    if raw:
        failures.append("log: raw control bytes reached the log: %s"
                        % ascii(raw[0]))


def main():
    args = game_test_args(__doc__)
    if args is None:
        return SKIP
    t0 = time.monotonic()
    failures = []
    cfg = os.path.join("/tmp", "baton-fair-%d.cfg" % os.getpid())
    with open(cfg, "w") as f:
        f.write("admin_group = %d;\n" % ADMIN_GID)
    try:
        bed = Bed(args.baton, args.batond,
                  ["--policy", "esa", "--sla", str(SLA), "--config", cfg])
        bed.daemon.env["BATON_LOG"] = "info"
        with bed:
            if not bed.daemon.alive():
                raise Fail("batond did not start")
            with Xvfb(args.xvfb) as x:
                case_idle_and_costs(bed, x, args.glxgears, failures)
                with game(bed, x, args.glxgears, name="game", sla=SLA):
                    bed.daemon.wait_tenants(["game"], 10)
                    case_set(bed, failures)
                    case_sla(bed, failures)
            case_cap(bed, failures)
            case_names(bed, failures)
            case_admin(bed, failures)
            case_log(bed, failures)
    except Fail as e:
        failures.append(str(e))
    finally:
        os.unlink(cfg)
    print("%.1f s" % (time.monotonic() - t0))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
