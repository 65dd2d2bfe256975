"""A game in a container reaches root's batond through a bind-mounted
socket, is paced, and is the right process to batond. Each container runs
as host uid 65534 (rootless, as Podman or a Flatpak would), is root of its
own user namespace, has a PID namespace and a mount namespace of its own,
and finds batond's socket at the path the shim expects there
(/run/baton/batond.sock: no BATON_SOCKET), on a tmpfs /run with batond's
directory (root's, 0755, under /tmp here) bind-mounted on it. A
root batond, glxgears under `baton run --sla 30` in the container, an
unmanaged glxgears beside it for the same 5 s:

  unshare   `unshare --user --map-root-user --pid --fork --mount
            --mount-proc` (util-linux): the game is paced (its rate near
            the SLA, at most half the unmanaged one); batond shows one
            tenant of that name, of uid 65534, whose pid is the game's
            pid on the host (not the one it has in its namespace: the
            host's /proc says both); its CPU time is read (gpu_share at
            least half of what its records claim, and no "cannot be read"
            line in batond's log). From inside the container (nsenter as
            its root), `baton set` of its own game is answered; `baton
            set` of a root game of the host, by name or by id, and
            `baton status` are refused, and that game's SLA stays.
  bwrap     the same game under bubblewrap (`bwrap --unshare-user --uid 0
            --unshare-pid --tmpfs /run --bind DIR /run/baton`): paced, one
            tenant, its host pid.
  podman    the same game under rootful Podman with its user namespace
            remapped (container root is host uid 100000): paced, one
            tenant of uid 100000, its host pid.
  no-socket the unshare container with nothing mounted on its /run: the
            game runs at the unmanaged rate and the shim says once that
            it cannot reach batond.

Usage: containers.py --baton B --batond D --xvfb X --glxgears G
                     [--bwrap W] [--podman P [--runc R]]
Exit 0 pass, 1 fail, 77 skipped (not root, no setpriv/unshare/nsenter,
no user namespaces)."""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from hostile import NOBODY, SKIP, Batond, Client, Fail, Xvfb  # noqa: E402
from hostile import as_nobody, check, skip_unless_root  # noqa: E402
from socket_attacks import GEARS  # noqa: E402
from userns_attacks import skip_unless_userns  # noqa: E402

SLA = 30
HOST_SLA = 30
# The host uid Podman maps the container's root to (--uidmap).
PODMAN_BASE = 100000
NSPID = re.compile(r"^nspid (\d+)$")
# Inside the container, before the game: a /run of its own (0755: a
# tmpfs is 1777 by default, which the shim's trust rule refuses) with
# batond's directory mounted where the shim looks for the socket. Then
# the game in the background, its pid in the namespace printed, so that
# the shell stays the namespace's init (an init ignores the SIGTERM the
# test stops it with; the game does not).
SETUP = ("mount -t tmpfs -o mode=0755 tmpfs /run && mkdir /run/baton && "
         "mount --bind \"$0\" /run/baton && ")
GAME = "\"$@\" & echo nspid $!; wait"


def game_argv(args, name):
    return [args.baton, "run", "--name", name, "--sla", str(SLA), "--",
            args.glxgears]


def unshare_argv(args, sock_dir, name):
    return as_nobody(["unshare", "--user", "--map-root-user", "--pid",
                      "--fork", "--mount", "--mount-proc", "--", "sh",
                      "-c", SETUP + GAME, sock_dir] + game_argv(args, name))


def bwrap_argv(args, sock_dir, name):
    return as_nobody([args.bwrap, "--unshare-user", "--uid", "0", "--gid",
                      "0", "--unshare-pid", "--die-with-parent", "--bind",
                      "/", "/", "--proc", "/proc", "--dev", "/dev",
                      "--tmpfs", "/run", "--bind", sock_dir, "/run/baton",
                      "--", "sh", "-c", GAME, "sh"] + game_argv(args, name))


def podman_argv(args, sock_dir, name, env, command=None):
    """Rootful Podman with its user namespace remapped (container root is
    host uid PODMAN_BASE, as Docker's userns-remap does), its own PID,
    mount and network namespaces; the host's / as its image (an overlay
    over it, so nothing is pulled), its own /run (0755) with batond's
    directory mounted at /run/baton, the X server's socket directory
    mounted (no network: its abstract socket is out of reach)."""
    runtime = ["--runtime", args.runc] if args.runc else []
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)
    # podman's own default limits may pass this host's, and runc, in the
    # container's user namespace by then, cannot raise a limit: lower
    # ones than ours (a process limit at ours was refused too)
    nproc = tuple(min(4096, v)
                  for v in resource.getrlimit(resource.RLIMIT_NPROC))
    keep = ["DISPLAY", "LIBGL_ALWAYS_SOFTWARE", "vblank_mode", "BATON_LOG"]
    return ([args.podman, "--log-level=error", "--cgroup-manager=cgroupfs"]
            + runtime +
            ["run", "--rm", "--name", name, "--network=none",
             "--ulimit", "nofile=%d:%d" % nofile,
             "--ulimit", "nproc=%d:%d" % nproc,
             "--uidmap", "0:%d:65536" % PODMAN_BASE,
             "--gidmap", "0:%d:65536" % PODMAN_BASE,
             "--mount", "type=tmpfs,destination=/run,tmpfs-mode=0755,"
             "notmpcopyup",
             "-v", "%s:/run/baton" % sock_dir,
             "-v", "/tmp/.X11-unix:/tmp/.X11-unix"]
            + ["--env=%s=%s" % (k, env[k]) for k in keep if k in env] +
            ["--rootfs", "/:O"]
            + (command or ["sh", "-c", GAME, "sh"] + game_argv(args, name)))


def podman_cannot(args, sock_dir, env):
    """Why Podman cannot start a container here (its error), or None: a
    machine without what it needs (overlay, a runtime that accepts its
    cgroups) skips the case, as one without Podman does."""
    name = "baton-probe-%d" % os.getpid()
    r = subprocess.run(podman_argv(args, sock_dir, name, env, ["true"]),
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=60)
    if r.returncode == 0:
        return None
    return (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]


def podman_init(args, name):
    """The host pid of the container's first process (its init)."""
    deadline = time.monotonic() + 10
    while True:
        r = subprocess.run([args.podman, "inspect", "--format",
                            "{{.State.Pid}}", name], capture_output=True,
                           text=True)
        if r.returncode == 0 and r.stdout.strip() not in ("", "0"):
            return int(r.stdout)
        check(time.monotonic() < deadline, "podman inspect %s: %s" % (
            name, r.stderr.strip()))
        time.sleep(0.1)


def host_pid_of(ns_pid, container_root):
    """The host pid of the process that has pid ns_pid in the PID
    namespace of container_root (a host pid), from the NSpid lines of
    /proc/*/status."""
    ns = os.readlink("/proc/%d/ns/pid" % container_root)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/ns/pid" % entry) != ns:
                continue
            with open("/proc/%s/status" % entry) as f:
                for line in f:
                    if line.startswith("NSpid:"):
                        ids = [int(v) for v in line.split()[1:]]
                        if len(ids) >= 2 and ids[-1] == ns_pid:
                            return int(entry)
        except OSError:
            continue
    raise Fail("no process of pid %d in the container's PID namespace "
               "(%s)" % (ns_pid, ns))


def innermost(pid):
    """The last descendant of pid on its first-child chain: the
    container's init, whose namespaces nsenter enters."""
    while True:
        try:
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                kids = f.read().split()
        except OSError:
            return pid
        if not kids:
            return pid
        nxt = int(kids[0])
        if os.readlink("/proc/%d/ns/pid" % nxt) != os.readlink(
                "/proc/%d/ns/pid" % pid):
            return nxt
        pid = nxt


def run_container(argv, env, free_env, during, find_init=None):
    """(the game's FPS, the unmanaged one's, the game's output, its pid in
    the container, its host pid, what during(init) returned) over the
    first 5 s, init being the container's first process on the host
    (find_init(), else the innermost of what argv started)."""
    with Client(argv, env) as game, Client(*free_env) as free:
        ns_pid = int(game.wait_lines(NSPID, 1, 10)[0].group(1))
        init = find_init() if find_init else innermost(game.proc.pid)
        host_pid = host_pid_of(ns_pid, init)
        got = during(init)
        g = float(game.wait_lines(GEARS, 1, 20)[0].group(1))
        f = float(free.wait_lines(GEARS, 1, 20)[0].group(1))
        return g, f, game.output(), ns_pid, host_pid, got


def check_paced(what, g, f, out):
    check(f > 2 * SLA, "unmanaged glxgears ran at %.1f FPS: too slow to "
          "tell pacing to %d apart" % (f, SLA))
    check(g < 0.5 * f and 0.6 * SLA < g < 1.4 * SLA,
          "in %s glxgears ran at %.1f FPS, unmanaged %.1f beside it "
          "(ratio %.2f): not paced to its SLA of %d by root's batond:\n%s"
          % (what, g, f, g / f, SLA, out))


def check_tenant(tenants, name, ns_pid, host_pid, uid=NOBODY):
    """One tenant of that name among tenants (status' list), of uid uid,
    whose pid is host_pid; returns it."""
    rows = [t for t in tenants if t["name"] == name]
    check(len(rows) == 1, "batond has %d tenants named %s (want 1): %s" %
          (len(rows), name, tenants))
    t = rows[0]
    check(t["uid"] == uid, "tenant %s has uid %s, not the container's "
          "host uid %d" % (name, t["uid"], uid))
    check(ns_pid != host_pid and t["pid"] == host_pid,
          "tenant %s has pid %s: the game is %d on the host, %d in its "
          "namespace" % (name, t["pid"], host_pid, ns_pid))
    return t


def inside(init, argv):
    """argv run as the container's root (host uid 65534) in its user,
    mount and PID namespaces."""
    return ["nsenter", "--target", str(init), "--user", "--mount", "--pid",
            "--setuid", "0", "--setgid", "0", "--"] + argv


def baton_inside(init, baton, env, *args):
    return subprocess.run(inside(init, [baton] + list(args)), env=env,
                          capture_output=True, text=True, timeout=10)


def case_unshare(args, x, free, sock_dir, daemon, host_id):
    env = x.env(BATON_LOG="error")

    def during(init):
        time.sleep(2.5)  # a few epochs of CPU time and claims
        tenants = daemon.status()["tenants"]
        acts = {
            "set own": baton_inside(init, args.baton, env, "set", "ct-game",
                                    "sla=%d" % SLA),
            "set host by name": baton_inside(init, args.baton, env, "set",
                                             "host-game", "sla=1"),
            "set host by id": baton_inside(init, args.baton, env, "set",
                                           "--id", str(host_id), "sla=1"),
            "status": baton_inside(init, args.baton, env, "status"),
        }
        return tenants, acts, daemon.tenants()

    g, f, out, ns_pid, host_pid, (tenants, acts, after) = run_container(
        unshare_argv(args, sock_dir, "ct-game"), env, free, during)
    check_paced("an unshare container", g, f, out)
    t = check_tenant(tenants, "ct-game", ns_pid, host_pid)
    claimed, seen = t["claimed_share"], t["gpu_share"]
    unread = [line for line in daemon.log if "cannot be read" in line]
    check(claimed > 0.005 and seen >= 0.5 * claimed and not unread,
          "tenant ct-game (pid %d) counted %.3f of the %.3f its records "
          "claim: its CPU time was not read%s" % (
              host_pid, seen, claimed, "".join("\n" + s for s in unread)))
    own = acts["set own"]
    check(own.returncode == 0, "baton set of its own game in the "
          "container exited %d:\n%s%s" % (own.returncode, own.stdout,
                                          own.stderr))
    for what in ("set host by name", "set host by id", "status"):
        r = acts[what]
        check(r.returncode != 0, "%s from the container (host uid %d) "
              "was answered:\n%s" % (what, NOBODY, r.stdout))
    check(after["host-game"]["sla_fps"] == HOST_SLA,
          "the host's game's SLA is %s after the container's set" %
          after["host-game"]["sla_fps"])
    print("unshare: %.1f FPS paced (SLA %d), %.1f unmanaged beside it "
          "(ratio %.2f); tenant pid %d (%d in its namespace), uid %d, "
          "gpu_share %.3f of %.3f claimed; own set answered; refused: %s" % (
              g, SLA, f, g / f, host_pid, ns_pid, NOBODY, seen, claimed,
              "; ".join("%s (%s)" % (w, acts[w].stderr.strip())
                        for w in ("set host by name", "set host by id",
                                  "status"))))


def case_bwrap(args, x, free, sock_dir, daemon):
    env = x.env(BATON_LOG="error")

    def during(init):
        time.sleep(1.5)
        return daemon.status()["tenants"]

    g, f, out, ns_pid, host_pid, tenants = run_container(
        bwrap_argv(args, sock_dir, "bwrap-game"), env, free, during)
    check_paced("a bubblewrap sandbox", g, f, out)
    check_tenant(tenants, "bwrap-game", ns_pid, host_pid)
    print("bwrap: %.1f FPS paced (SLA %d), %.1f unmanaged beside it "
          "(ratio %.2f); tenant pid %d (%d in its namespace)" % (
              g, SLA, f, g / f, host_pid, ns_pid))


def case_podman(args, x, free, sock_dir, daemon):
    env = x.env(BATON_LOG="error")
    why = podman_cannot(args, sock_dir, env)
    if why:
        print("podman: not run (it cannot start a container here: %s)" %
              why)
        return

    def during(init):
        time.sleep(1.5)
        return daemon.status()["tenants"]

    name = "podman-game-%d" % os.getpid()
    g, f, out, ns_pid, host_pid, tenants = run_container(
        podman_argv(args, sock_dir, name, env), env, free, during,
        lambda: podman_init(args, name))
    check_paced("a Podman container", g, f, out)
    check_tenant(tenants, name, ns_pid, host_pid, PODMAN_BASE)
    print("podman: %.1f FPS paced (SLA %d), %.1f unmanaged beside it "
          "(ratio %.2f); tenant pid %d (%d in its namespace), uid %d" % (
              g, SLA, f, g / f, host_pid, ns_pid, PODMAN_BASE))


def case_no_socket(args, x, free):
    """The unshare container with its own /run but nothing mounted on
    it: the game runs at the unmanaged rate, and the shim says once why."""
    env = x.env(BATON_LOG="info")
    argv = as_nobody(["unshare", "--user", "--map-root-user", "--pid",
                      "--fork", "--mount", "--mount-proc", "--", "sh", "-c",
                      "mount -t tmpfs -o mode=0755 tmpfs /run && " + GAME,
                      "sh"] + game_argv(args, "lost-game"))
    g, f, out, _, _, _ = run_container(argv, env, free, lambda init: None)
    why = "cannot reach batond at /run/baton/batond.sock: No such file"
    check(g > 0.3 * f and g > 2 * SLA,
          "without the socket glxgears ran at %.1f FPS, unmanaged %.1f "
          "beside it: not free:\n%s" % (g, f, out))
    check(out.count(why) == 1, "the shim said %d times that it cannot "
          "reach batond (want once):\n%s" % (out.count(why), out))
    print("no-socket: %.1f FPS unpaced, %.1f unmanaged beside it (ratio "
          "%.2f); the shim said once: %s" % (g, f, g / f, why))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    p.add_argument("--xvfb", required=True)
    p.add_argument("--glxgears", required=True)
    p.add_argument("--bwrap")
    p.add_argument("--podman")
    p.add_argument("--runc")
    args = p.parse_args()
    skip_unless_root()
    skip_unless_userns()
    t0 = time.monotonic()
    # batond's directory as /run/baton is: root's, 0755. It lies under
    # /tmp (sticky: batond accepts it), not /run, which the unshare
    # container covers with its own /run before it mounts the directory.
    sock_dir = tempfile.mkdtemp(prefix="baton-containers-", dir="/tmp")
    os.chmod(sock_dir, 0o755)
    sock = os.path.join(sock_dir, "batond.sock")
    failed = []
    try:
        with Xvfb(args.xvfb) as x, \
                Batond(args.batond, args.baton, sock, []) as daemon:
            free = ([args.glxgears], x.env())
            host = [args.baton, "run", "--name", "host-game", "--sla",
                    str(HOST_SLA), "--", args.glxgears]
            with Client(host, x.env(BATON_SOCKET=sock)):
                daemon.wait_tenants(["host-game"], 10)
                host_id = daemon.tenants()["host-game"]["id"]
                cases = [("unshare", case_unshare,
                          (args, x, free, sock_dir, daemon, host_id)),
                         ("no-socket", case_no_socket, (args, x, free))]
                if args.bwrap:
                    cases.append(("bwrap", case_bwrap,
                                  (args, x, free, sock_dir, daemon)))
                else:
                    print("bwrap: not run (package bubblewrap not found)")
                if args.podman:
                    cases.append(("podman", case_podman,
                                  (args, x, free, sock_dir, daemon)))
                else:
                    print("podman: not run (package podman not found)")
                for name, fn, a in cases:
                    try:
                        fn(*a)
                    except Fail as e:
                        print("FAIL %s: %s" % (name, e))
                        failed.append(name)
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)
    if failed:
        print("FAILED: %s (%.1f s)" % (", ".join(failed),
                                       time.monotonic() - t0))
        return 1
    print("PASS in %.1f s" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
