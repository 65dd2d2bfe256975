#!/usr/bin/env python3
"""Builds wine_probe.exe with the mingw-w64 cross compiler (a Meson
custom target of tests/e2e/wine/meson.build).

    build_probe.py CC VULKAN_INCLUDEDIR OUT SOURCES...

The Vulkan headers are the host's (the API is the same on Windows; the
program defines VK_NO_PROTOTYPES and loads vulkan-1.dll itself), but the
host's include folder cannot be put on the cross compiler's path whole:
its libc headers would shadow mingw-w64's. So a folder of its own next to
OUT links to just the vulkan/ and vk_video/ headers."""

import os
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    cc, includedir, out = sys.argv[1:4]
    sources = sys.argv[4:]
    inc = out + ".include"
    os.makedirs(inc, exist_ok=True)
    for sub in ("vulkan", "vk_video"):
        target = os.path.join(includedir, sub)
        link = os.path.join(inc, sub)
        if os.path.isdir(target) and not os.path.islink(link):
            os.symlink(target, link)
    if not os.path.exists(os.path.join(inc, "vulkan", "vulkan.h")):
        print("build_probe.py: no vulkan/vulkan.h in %s" % includedir,
              file=sys.stderr)
        return 1
    argv = [cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
            "-I", inc, "-o", out] + sources + [
            "-ld3d9", "-luser32", "-lgdi32"]
    return subprocess.call(argv)


if __name__ == "__main__":
    sys.exit(main())
