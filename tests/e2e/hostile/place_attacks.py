"""Placement requests from another user: a root batond with two logical
GPUs and root's glxgears game ("gears", whose cost batond learns), and
uid 65534 asking where a session would go.

  - malformed place messages (a cost without its SLA, a cost out of
    range, a string cost, a profile that is not a string, a profile and
    a cost together) are each answered an "invalid" error naming the
    field, and batond goes on serving;
  - nobody's place names GPUs and their aggregate load, never a tenant:
    no tenant's name or pid is in the reply;
  - nobody asking with root's game's profile gets cost "unknown": a
    learned cost is its owner's alone (root asking gets "learned");
  - 300 place requests from nobody leave batond's descriptors and memory
    as they were, and root's status still answers within a second;
  - of the seats those places hold (a placed session's, until it
    registers), nobody keeps 8 at most (CORE_PLACE_HOLDS_PER_UID), and
    root's seat, if its place before the flood got one, is still held.

Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv, no X)."""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hostile import (SKIP, Bed, Fail, Xvfb, as_nobody, check,  # noqa: E402
                     fd_count, game, game_test_args, rss_kb)

HELLO = {"type": "hello", "version": 1, "role": "client"}
# core/place_hold.h: the seats one user's places may hold at once
HOLDS_PER_UID = 8

# One connection: hello, then each line; the replies, one per line sent.
ASK = r'''
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(5)
f = s.makefile("rwb")
out = []
for line in json.loads(sys.argv[2]):
    f.write(line.encode() + b"\n")
    f.flush()
    out.append(f.readline().decode().strip())
print(json.dumps(out))
'''


def ask(bed, messages, nobody=True):
    """The replies to messages (after a client hello) on one connection,
    as nobody or as root; a closed connection ends the list early."""
    lines = [json.dumps(HELLO)] + [
        m if isinstance(m, str) else json.dumps(m) for m in messages]
    argv = [sys.executable, "-c", ASK, bed.sock, json.dumps(lines)]
    r = subprocess.run(as_nobody(argv) if nobody else argv,
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "the asker failed: %s" % r.stderr[-500:])
    return [json.loads(x) if x else None
            for x in json.loads(r.stdout)[1:]]


def malformed(bed):
    bad = [
        ('{"type":"place","cost_ms":8}', "cost_ms"),
        ('{"type":"place","cost_ms":1e9,"sla_fps":30}', "cost_ms"),
        ('{"type":"place","cost_ms":"8","sla_fps":30}', "cost_ms"),
        ('{"type":"place","cost_ms":8,"sla_fps":-1}', "sla_fps"),
        ('{"type":"place","profile":["gears"]}', "profile"),
        ('{"type":"place","profile":"gears","cost_ms":1,"sla_fps":30}',
         "profile"),
        ('{"type":"place","profile":"%s"}' % ("x" * 200), "profile"),
    ]
    for line, field in bad:
        got = ask(bed, [line])
        r = got[0] if got else None
        check(r and r.get("type") == "error" and r.get("code") == "invalid"
              and field in r.get("message", ""),
              "%s: %s (want an invalid error naming %s)" % (line, r, field))
        print("refused: %-62s %s" % (line[:62], r["message"]))


def main():
    args = game_test_args(__doc__)
    if args is None:
        return SKIP
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        print("SKIP: one CPU, no two core sets")
        return SKIP
    try:
        with Xvfb(args.xvfb) as x:
            bed = Bed(args.baton, args.batond, ["--policy", "sa"])
            cfg = os.path.join(bed.tmp, "batond.cfg")
            with open(cfg, "w") as f:
                f.write('gpus = ( { name = "left"; cpus = "%d"; },\n'
                        '         { name = "right"; cpus = "%d"; } );\n'
                        % (cpus[0], cpus[1]))
            bed.daemon.args += ["--config", cfg]
            with bed, game(bed, x, args.glxgears, name="gears"):
                bed.daemon.wait_tenants(["gears"], 20)
                pid = bed.daemon.tenants()["gears"]["pid"]
                deadline = time.monotonic() + 15
                while not bed.daemon.tenants()["gears"].get("k_ms", 1):
                    check(time.monotonic() < deadline, "no cost learned")
                    time.sleep(0.2)
                time.sleep(2)  # a cost learned from a few epochs
                malformed(bed)

                mine = ask(bed, [{"type": "place", "profile": "gears"}],
                           nobody=False)[0]
                theirs = ask(bed, [{"type": "place",
                                    "profile": "gears"}])[0]
                print("root's place: %s" % json.dumps(mine))
                print("nobody's place: %s" % json.dumps(theirs))
                check(mine["cost"] == "learned",
                      "root's own profile: cost %s" % mine["cost"])
                check(theirs["cost"] == "unknown",
                      "nobody got root's learned cost: %s" % theirs)
                text = json.dumps(theirs)
                check('"gears"' not in text and str(pid) not in text,
                      "nobody's reply names root's tenant: %s" % text)

                daemon_pid = bed.daemon.proc.pid
                fds, rss = fd_count(daemon_pid), rss_kb(daemon_pid)
                got = ask(bed, [{"type": "place"}] * 300)
                check(len(got) == 300 and all(
                    r and r.get("type") == "place" for r in got),
                    "300 places: %d answers" % len(got))
                t0 = time.monotonic()
                bed.daemon.status()
                took = time.monotonic() - t0
                fds2, rss2 = fd_count(daemon_pid), rss_kb(daemon_pid)
                print("300 places: batond fds %d -> %d, rss %d -> %d KiB, "
                      "status in %.3f s" % (fds, fds2, rss, rss2, took))
                check(fds2 <= fds and rss2 < rss + 1024 and took < 1.0,
                      "batond after 300 places: fds %d -> %d, rss %d -> "
                      "%d KiB, status %.3f s" % (fds, fds2, rss, rss2,
                                                 took))
                held = sum(g["held"] for g in ask(
                    bed, [{"type": "place"}], nobody=False)[0]["gpus"])
                # nobody's 8, and root's first if it was placed (the
                # asking now is not counted in its own answer)
                want = HOLDS_PER_UID + (1 if mine["placed"] else 0)
                check(held == want, "seats held after the flood: %d, "
                      "want %d" % (held, want))
                print("seats held after 300 places: %d" % held)
    except (Fail, subprocess.TimeoutExpired, KeyError) as e:
        print("FAIL:", repr(e))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
