"""Hostile local users against batond's history file (--record), uid
65534 against a root batond:

  precreated   `--record` names a file in a directory every user may
               write (1777, as /tmp), which uid 65534 created first (0666,
               its own): batond refuses to start (exit 2, naming the file
               and why) and writes nothing into it. Before, it appended
               every second's tenants (names, pids, uids) to the file.
  dir-symlink  `--record` names a file under a symlink uid 65534 put in
               that directory, aimed at a root directory of mode 0700:
               refused (exit 2, naming the symlink's owner), nothing
               created in the private directory.
  not-own      a file of uid 65534's in a directory of root's (left from
               when the directory was the user's): refused (exit 2,
               naming the owner), nothing written.
  own          the control: in a directory of root's, batond records (a
               new file, 0600, root's, a line a second).

Usage: record_attacks.py --baton B --batond D. Exit 0 pass, 1 fail, 77
skipped (not root)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import NOBODY, Fail, as_nobody, check, skip_unless_root  # noqa: E402,E501

# How long a batond that wrongly starts is left running before it is
# stopped: long enough to write a line or two.
RUN_S = 3.0


def as_nobody_do(code):
    """Runs python code as uid 65534 and waits for it."""
    subprocess.run(as_nobody([sys.executable, "-c", code]), check=True,
                   timeout=10)


def start_refused(args, sock, record, why):
    """batond with --record `record` must exit 2 at once, its error
    naming the file and `why`. The error, for the log."""
    argv = [args.batond, "--socket", sock, "--metrics", "off",
            "--record", record]
    t0 = time.monotonic()
    try:
        r = subprocess.run(argv, capture_output=True, text=True,
                           timeout=RUN_S)
    except subprocess.TimeoutExpired:
        size = os.path.getsize(record) if os.path.exists(record) else -1
        raise Fail("batond started with --record %s and ran %.0f s; the "
                   "file now holds %d bytes" % (record, RUN_S, size))
    err = r.stderr.strip()
    check(r.returncode == 2, "batond exited %d, not 2: %s" % (
        r.returncode, err))
    check(record in err and why in err,
          "the error does not name %s and \"%s\": %s" % (record, why, err))
    return "%.2f s, %s" % (time.monotonic() - t0, err)


def case_precreated(args, sock, pub):
    record = os.path.join(pub, "history.jsonl")
    as_nobody_do("import os; os.umask(0); "
                 "os.close(os.open(%r, os.O_CREAT | os.O_WRONLY, 0o666))"
                 % record)
    err = start_refused(args, sock, record, "writable by group or others")
    size = os.path.getsize(record)
    check(size == 0, "batond wrote %d bytes into uid %d's file" % (
        size, NOBODY))
    print("precreated: refused in %s; uid %d's file still empty" % (
        err, NOBODY))


def case_dir_symlink(args, sock, pub, tmp):
    secret = os.path.join(tmp, "secret")
    os.mkdir(secret, 0o700)
    link = os.path.join(pub, "link")
    as_nobody_do("import os; os.symlink(%r, %r)" % (secret, link))
    record = os.path.join(link, "history.jsonl")
    err = start_refused(args, sock, record,
                        "the symlink %s is owned by uid %d" % (link, NOBODY))
    made = os.listdir(secret)
    check(not made, "batond created %s in root's 0700 %s" % (made, secret))
    print("dir-symlink: refused in %s; %s still empty" % (err, secret))


def case_not_own(args, sock, tmp):
    d = os.path.join(tmp, "var")
    os.mkdir(d, 0o755)
    record = os.path.join(d, "history.jsonl")
    open(record, "w").close()
    os.chmod(record, 0o600)
    os.chown(record, NOBODY, NOBODY)
    err = start_refused(args, sock, record, "owned by uid %d" % NOBODY)
    size = os.path.getsize(record)
    check(size == 0, "batond wrote %d bytes into uid %d's file" % (
        size, NOBODY))
    print("not-own: refused in %s" % err)


def case_own(args, sock, tmp):
    d = os.path.join(tmp, "lib")
    os.mkdir(d, 0o755)
    record = os.path.join(d, "history.jsonl")
    p = subprocess.Popen([args.batond, "--socket", sock, "--metrics", "off",
                          "--record", record], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and p.poll() is None and not (
                os.path.exists(record) and os.path.getsize(record) > 0):
            time.sleep(0.1)
    finally:
        p.terminate()
        _, err = p.communicate(timeout=10)
    check(os.path.exists(record) and os.path.getsize(record) > 0,
          "batond recorded nothing in root's %s: %s" % (d, err.strip()))
    st = os.stat(record)
    check(st.st_uid == 0 and st.st_mode & 0o777 == 0o600,
          "the history file is uid %d, mode %04o" % (
              st.st_uid, st.st_mode & 0o777))
    print("own: recorded into %s (0600, root's)" % record)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--baton", required=True)
    p.add_argument("--batond", required=True)
    args, _ = p.parse_known_args()
    skip_unless_root()
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="baton-record-attacks-")
    os.chmod(tmp, 0o755)
    run_dir = os.path.join(tmp, "run")
    os.mkdir(run_dir, 0o755)
    sock = os.path.join(run_dir, "batond.sock")
    pub = os.path.join(tmp, "pub")
    os.mkdir(pub)
    os.chmod(pub, 0o1777)
    failed = []
    cases = [("precreated", case_precreated, (args, sock, pub)),
             ("dir-symlink", case_dir_symlink, (args, sock, pub, tmp)),
             ("not-own", case_not_own, (args, sock, tmp)),
             ("own", case_own, (args, sock, tmp))]
    try:
        for name, fn, a in cases:
            try:
                fn(*a)
            except Fail as e:
                print("FAIL %s: %s" % (name, e))
                failed.append(name)
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
