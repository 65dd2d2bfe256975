"""The one private X server of every end-to-end test (tests/e2e/gl, vulkan
and daemon import it). Standard library only.

`Xvfb -displayfd FD` binds the first free display and writes its number to
FD, so parallel test runs and a developer's own X servers never collide.
The server runs in a session (process group) of its own and is stopped,
with anything it started, on every way out of the `with` block. SIGTERM
(what meson sends a test that runs past its timeout) is turned into an
exception, unless the test installed its own handler first, so that the
block's cleanup runs then too.
"""

import os
import select
import signal
import subprocess
import tempfile
import time

STARTUP_TIMEOUT_S = 20
STOP_GRACE_S = 2.0


def kill_group(proc, grace=2.0):
    """Stops proc and everything it started (it runs in its own session),
    whatever state it is in: SIGTERM, then SIGKILL after grace seconds."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        proc.wait()
        return
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


class XvfbError(RuntimeError):
    """Xvfb did not start; the message says why (its stderr if it died)."""


def _raise_on_sigterm(signum, frame):
    raise SystemExit(f"killed by signal {signum}")


class Xvfb:
    """`with Xvfb() as x:` x.display is ":N", x.proc the server's Popen."""

    def __init__(self, xvfb="Xvfb", screen="1280x720x24"):
        self.xvfb = xvfb
        self.screen = screen
        self.proc = None
        self.display = None
        self._err = None
        self._old_sigterm = None

    def __enter__(self):
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            self._old_sigterm = signal.signal(signal.SIGTERM,
                                              _raise_on_sigterm)
        # stderr to a file, not a pipe: nobody reads it while the server
        # runs, and a full pipe would block the server on a warning.
        self._err = tempfile.TemporaryFile()
        rfd, wfd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [self.xvfb, "-displayfd", str(wfd), "-screen", "0",
                 self.screen, "-nolisten", "tcp", "-noreset"],
                pass_fds=(wfd,), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=self._err,
                start_new_session=True)
            os.close(wfd)
            wfd = -1
            self.display = ":" + self._read_display(rfd)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        finally:
            if wfd >= 0:
                os.close(wfd)
            os.close(rfd)
        return self

    def _read_display(self, fd):
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        data = b""
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                raise XvfbError("%s did not report a display in %d s" %
                                (self.xvfb, STARTUP_TIMEOUT_S))
            chunk = os.read(fd, 64)
            if not chunk:
                self.proc.wait()
                self._err.seek(0)
                err = self._err.read().decode(errors="replace").strip()
                raise XvfbError("%s exited (status %s) before it was ready%s"
                                % (self.xvfb, self.proc.returncode,
                                   ":\n" + err if err else ""))
            data += chunk
        return data.decode().strip()

    def _stop(self):
        # self.proc is kept: a test may read x.proc.pid afterwards
        kill_group(self.proc, STOP_GRACE_S)

    def __exit__(self, *exc):
        try:
            self._stop()
        finally:
            if self._err is not None:
                self._err.close()
                self._err = None
            if self._old_sigterm is not None:
                signal.signal(signal.SIGTERM, self._old_sigterm)
                self._old_sigterm = None
        return False
