"""A private Xvfb for one test, on a display number the server picks itself.

`Xvfb -displayfd FD` binds the first free display and writes its number to
FD, so parallel test runs and a developer's own X servers never collide. The
server is killed on every way out of the `with` block; SIGTERM (what meson
sends a test that runs past its timeout) is turned into an exception so that
the block's cleanup runs then too.
"""

import os
import select
import signal
import subprocess
import time

STARTUP_TIMEOUT_S = 15


def _raise_on_sigterm(signum, frame):
    raise SystemExit(f"killed by signal {signum}")


class Xvfb:
    def __init__(self, xvfb="Xvfb"):
        self.xvfb = xvfb
        self.proc = None
        self.display = None

    def __enter__(self):
        signal.signal(signal.SIGTERM, _raise_on_sigterm)
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [self.xvfb, "-displayfd", str(write_fd), "-screen", "0",
                 "1024x768x24", "-nolisten", "tcp", "-noreset"],
                pass_fds=(write_fd,), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            os.close(write_fd)
            write_fd = -1
            self.display = ":" + self._read_display(read_fd)
        except BaseException:
            self._stop()
            raise
        finally:
            if write_fd >= 0:
                os.close(write_fd)
            os.close(read_fd)
        return self

    def _read_display(self, fd):
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        data = b""
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                raise RuntimeError("Xvfb did not report a display in time")
            chunk = os.read(fd, 64)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace")
                raise RuntimeError(f"Xvfb exited before starting:\n{err}")
            data += chunk
        return data.decode().strip()

    def _stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stderr.close()
        self.proc = None

    def __exit__(self, *exc):
        self._stop()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        return False

