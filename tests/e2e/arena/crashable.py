"""Starting a program the test may crash (arena_e2e.py sends the arena a
SIGSEGV; fence_race_e2e.py provokes a heap corruption), in one place: it
runs in the test's scratch folder with no core file, so that a crash
leaves nothing behind in the build tree or the working directory.
Standard library only."""

import resource
import subprocess


def _no_core():
    """In the child, before exec: a crash writes no core file."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start(cmd, env, tmp):
    """Popen of cmd in tmp with env, stdout discarded and stderr piped as
    text (undecodable bytes replaced: a dying program may write any)."""
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            errors="replace", cwd=tmp, preexec_fn=_no_core)
