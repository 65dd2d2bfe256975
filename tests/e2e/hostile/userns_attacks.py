"""User namespaces against the clients' trust in their daemon (the shim,
`baton`): in a user namespace every uid not mapped there reads as the
overflow uid (65534), the host's root as much as any other host user. A
root batond on a private socket, glxgears games under
`baton run --sla 30`, each beside an unmanaged glxgears for the same 5 s:

  root-through-ns   the game started as uid 65534 inside `unshare -Ur`
                    (root of its own namespace, where the real batond
                    reads as 65534), on batond's socket in a root 0755
                    directory under /run: it is paced (its rate near the
                    SLA, at most half the unmanaged one) and registered as
                    uid 65534, and `baton set` of it from there is
                    answered.
  outside-impostor  a fake daemon run by uid 1002 in a 0755 directory of
                    its own under a 1777 one (as /tmp); the game runs as
                    uid 65534 in a namespace root made that maps 0-65535
                    to 100000-165535 (root and 1002 unmapped: the impostor
                    reads as 65534, as the game itself): it runs at the
                    unmanaged rate, the impostor never gets the memfd, the
                    shim says why once, and `baton status` refuses.
  inside-impostor   the same fake daemon run as uid 1002 of that namespace:
                    the game runs free and the impostor gets nothing.

Usage: userns_attacks.py --baton B --batond D --xvfb X --glxgears G
Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv/unshare/nsenter,
no user namespaces, no X server or glxgears)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hostile import (NOBODY, SKIP, Batond, Client, Fail, Xvfb,  # noqa: E402
                     check, skip_unless_root)
from socket_attacks import GEARS, IMPOSTOR, stop, wait_line  # noqa: E402

SLA = 30
OTHER = 1002
# The namespace root makes for the games: inner 0..65535 is host
# 100000..165535, so host root and uid OTHER are not mapped in it.
NS_MAP = "0 100000 65536\n"
# A python every uid can run, in or out of a namespace (the one running
# this may live under root's home).
PYTHON = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
# The impostor's socket must be connectable by the game's uid.
OPEN_IMPOSTOR = "import os\nos.umask(0)\n" + IMPOSTOR


def skip_unless_userns():
    for tool in ("unshare", "nsenter"):
        if not shutil.which(tool):
            print("SKIP: %s (util-linux) not found" % tool)
            sys.exit(SKIP)
    r = subprocess.run(["unshare", "--user", "true"], capture_output=True)
    if r.returncode != 0:
        print("SKIP: no user namespaces here: %s" % r.stderr.decode())
        sys.exit(SKIP)


class Namespace:
    """A user namespace root creates with NS_MAP, held by a sleeping
    process; enter(uid, argv) runs argv as that inner uid in it."""

    def __enter__(self):
        self.holder = subprocess.Popen(
            ["unshare", "--user", "--", "sleep", "600"],
            stdin=subprocess.DEVNULL, start_new_session=True)
        ours = os.readlink("/proc/self/ns/user")
        deadline = time.monotonic() + 5
        while os.readlink("/proc/%d/ns/user" % self.holder.pid) == ours:
            check(time.monotonic() < deadline, "unshare --user did not "
                  "enter a namespace")
            time.sleep(0.01)
        for name in ("uid_map", "gid_map"):
            with open("/proc/%d/%s" % (self.holder.pid, name), "w") as f:
                f.write(NS_MAP)
        return self

    def __exit__(self, *exc):
        stop(self.holder)
        return False

    def enter(self, uid, argv):
        return ["nsenter", "--target", str(self.holder.pid), "--user",
                "--setuid", str(uid), "--setgid", str(uid), "--"] + argv


def gears_pair(argv, env, free_env, during=lambda: None):
    """(the game's FPS, an unmanaged glxgears' FPS beside it, the game's
    output, what during() returned while both ran) over the same first
    5 s."""
    with Client(argv, env) as game, Client(free_env[0], free_env[1]) as free:
        g = float(game.wait_lines(GEARS, 1, 20)[0].group(1))
        f = float(free.wait_lines(GEARS, 1, 20)[0].group(1))
        return g, f, game.output(), during()


def baton_in(argv_prefix, baton, env, *args):
    """`baton ARGS` run through argv_prefix (a namespace, a uid)."""
    return subprocess.run(argv_prefix + [baton] + list(args), env=env,
                          capture_output=True, text=True, timeout=10)


def case_root_through_ns(args, x, free):
    run_dir = tempfile.mkdtemp(prefix="baton-userns-", dir="/run")
    os.chmod(run_dir, 0o755)
    sock = os.path.join(run_dir, "batond.sock")
    # uid 65534 on the host, root in a namespace of its own.
    ns = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
          "--clear-groups", "--", "unshare", "-Ur", "--"]
    env = x.env(BATON_SOCKET=sock, BATON_LOG="error")
    try:
        with Batond(args.batond, args.baton, sock, []) as daemon:
            g, f, out, (tenants, st) = gears_pair(
                ns + [args.baton, "run", "--name", "ns-game", "--sla",
                      str(SLA), "--", args.glxgears], env, free,
                lambda: (daemon.tenants(),
                        baton_in(ns, args.baton, env, "set", "ns-game",
                                 "sla=%d" % SLA)))
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    check(f > 2 * SLA, "unmanaged glxgears ran at %.1f FPS: too slow to "
          "tell pacing to %d apart" % (f, SLA))
    check(g < 0.5 * f and 0.6 * SLA < g < 1.4 * SLA,
          "in the namespace glxgears ran at %.1f FPS, unmanaged %.1f "
          "beside it (ratio %.2f): not paced to its SLA of %d by root's "
          "batond:\n%s" % (g, f, g / f, SLA, out))
    t = tenants.get("ns-game")
    check(t is not None and t["uid"] == NOBODY,
          "batond's tenants: %s" % tenants)
    check(st.returncode == 0,
          "baton set (its own game) in the namespace exited %d:\n%s%s" % (
              st.returncode, st.stdout, st.stderr))
    print("root-through-ns: %.1f FPS paced (SLA %d), %.1f unmanaged beside "
          "it (ratio %.2f); tenant uid %d; baton set answered" % (
              g, SLA, f, g / f, NOBODY))


def impostor_in(tmp, name, argv_prefix):
    """A fake daemon (socket_attacks.IMPOSTOR) in a 0755 directory of its
    own under tmp, run through argv_prefix: (its Popen, its socket)."""
    sock = os.path.join(tmp, name, "batond.sock")
    proc = subprocess.Popen(
        argv_prefix + [PYTHON, "-c", OPEN_IMPOSTOR % sock],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_line(proc, "the impostor (%s)" % name)
    return proc, sock


def game_under_impostor(args, x, free, ns, imp_sock, what):
    """The game as inner uid 65534 of ns on the impostor's socket: runs
    at the unmanaged rate. Returns its output."""
    env = x.env(BATON_SOCKET=imp_sock, BATON_LOG="error")
    g, f, out, _ = gears_pair(
        ns.enter(NOBODY, [args.baton, "run", "--name", "victim", "--sla",
                          str(SLA), "--", args.glxgears]), env, free)
    check(f > 5, "unmanaged glxgears ran at %.1f FPS: too slow to tell "
          "1 FPS pacing apart" % f)
    check(g / f > 0.3, "under the %s glxgears ran at %.1f FPS, unmanaged "
          "%.1f beside it (ratio %.3f): paced by the impostor:\n%s" % (
              what, g, f, g / f, out))
    return g, f, out


def case_outside_impostor(args, x, free, ns, tmp):
    setpriv = ["setpriv", "--reuid=%d" % OTHER, "--regid=%d" % OTHER,
               "--clear-groups", "--"]
    imp, sock = impostor_in(tmp, "outside", setpriv)
    try:
        g, f, out = game_under_impostor(args, x, free, ns, sock,
                                        "impostor of uid %d" % OTHER)
        st = baton_in(ns.enter(NOBODY, []), args.baton,
                      dict(os.environ, BATON_SOCKET=sock), "status")
    finally:
        got = stop(imp)[0]
    check("memfd" not in got, "the impostor of uid %d got the game's "
          "memfd" % OTHER)
    why = ("runs as the overflow uid %d (outside this user namespace) and "
           "its socket %s is in a directory others can write" % (NOBODY,
                                                                 sock))
    said = out.count(why)
    check(said == 1, "the shim said %d times why it does not trust the "
          "impostor:\n%s" % (said, out))
    check(st.returncode != 0 and why in st.stderr,
          "baton status in the namespace against the impostor exited "
          "%d:\n%s%s" % (st.returncode, st.stdout, st.stderr))
    print("outside-impostor: %.1f FPS under the impostor, %.1f unmanaged "
          "beside it (ratio %.2f), no memfd; refused: %s" % (
              g, f, g / f, st.stderr.strip()))


def case_inside_impostor(args, x, free, ns, tmp):
    imp, sock = impostor_in(tmp, "inside", ns.enter(OTHER, []))
    try:
        g, f, out = game_under_impostor(args, x, free, ns, sock,
                                        "namespace's uid %d" % OTHER)
    finally:
        got = stop(imp)[0]
    check("memfd" not in got, "the impostor of inner uid %d got the "
          "game's memfd" % OTHER)
    check("runs as uid %d, not root or" % OTHER in out,
          "the shim did not say why:\n%s" % out)
    print("inside-impostor: %.1f FPS under the impostor, %.1f unmanaged "
          "beside it (ratio %.2f), no memfd" % (g, f, g / f))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--xvfb")
    p.add_argument("--glxgears")
    args = p.parse_args()
    skip_unless_root()
    skip_unless_userns()
    if not (args.xvfb and args.glxgears):
        print("SKIP: every case needs Xvfb and glxgears")
        return SKIP
    t0 = time.monotonic()
    # Like /tmp: root's, 1777.
    tmp = tempfile.mkdtemp(prefix="baton-userns-attacks-")
    os.chmod(tmp, 0o1777)
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
        with Xvfb(args.xvfb) as x:
            free = ([args.glxgears], x.env())
            case("root-through-ns", case_root_through_ns, args, x, free)
            with Namespace() as ns:
                case("outside-impostor", case_outside_impostor, args, x,
                     free, ns, tmp)
                case("inside-impostor", case_inside_impostor, args, x,
                     free, ns, tmp)
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failed:
        print("FAILED: %s (%.1f s)" % (", ".join(failed),
                                       time.monotonic() - t0))
        return 1
    print("PASS in %.1f s" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
