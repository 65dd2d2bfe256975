#!/usr/bin/env bash
# The Debian packages, built, checked and used on this machine:
#   1. builds them from a clean copy of the tree (the files git tracks or
#      would track, nothing ignored: no build folders) with
#      dpkg-buildpackage: every package for the host's architecture, and
#      baton-shim for i386 (`-ai386 -Ppkg.baton.shim-only`, debian/rules)
#      where its build dependencies are installed;
#   2. runs lintian on them: an error or warning fails (the tags left are
#      overridden in debian/*.lintian-overrides, each with its reason);
#   3. installs them with dpkg (no new dependency is pulled in, so purging
#      leaves the machine as it was), checks the installed files, builds
#      a program against libbaton-dev through pkg-config, and runs
#      tests/package/package_e2e.py against the installed paths only:
#      glxgears under `baton run --fps 30` and under batond, the 32-bit
#      glxgears where baton-shim:i386 was built, and vkcube's layer;
#   4. purges them, also when a step fails or the test is interrupted.
# Installing is system-wide: while the packages are installed, every
# program on the machine could see them. Their preload loads only where
# LD_PRELOAD names it and their Vulkan layer only where
# ENABLE_BATON_LAYER=1 is set (package_e2e.py checks the latter), but:
# where it is set, a build tree's `baton run` gets the installed layer,
# not its own (Debian 12's loader keeps the manifest in /usr/share over
# the build tree's one of the same name, first in XDG_DATA_DIRS though);
# and with systemd running, installing batond also starts it on
# /run/baton/batond.sock, where every shim without BATON_SOCKET would
# register. So scripts/test runs this stage after every other test, and
# the install, the end-to-end part and the purge all happen under the
# machine's CPU lock (/tmp/baton-cpu.lock), which the other end-to-end
# tests take too.
#
#   tests/package/run.sh [--keep DIR]    (as root)
#
# --keep DIR leaves the .deb files and the logs in DIR.
# Exit status: 0 passed, 1 failed, 77 skipped (not root, no dpkg-buildpackage
# or lintian, no Xvfb or glxgears, or Baton packages already installed:
# this test would remove them).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
LOCK=/tmp/baton-cpu.lock
PACKAGES=(batond baton baton-shim libbaton0 libbaton-dev)
keep=
if [ "${1:-}" = --keep ] && [ -n "${2:-}" ]; then
	keep=$2
elif [ $# -gt 0 ]; then
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
	exit 2
fi

say() { echo "package: $*"; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "run as root (dpkg installs the packages)"
for tool in dpkg-buildpackage lintian help2man Xvfb glxgears vkcube; do
	command -v "$tool" >/dev/null ||
		skip "no $tool (scripts/install-deps installs it)"
done
installed_ours() { # the Baton packages on the machine, config files left too
	dpkg-query -W -f='${binary:Package} ${db:Status-Status}\n' \
		"${PACKAGES[@]}" 'baton-shim:*' 2>/dev/null |
		awk '$2 != "not-installed" { print $1 }' | sort -u
}
[ -z "$(installed_ours)" ] ||
	skip "Baton packages are on the machine already (this test would" \
		"purge them): $(installed_ours | tr '\n' ' ')"

# What the packages could leave behind (the unit's enablement links, the
# manifests, the libraries): compared before and after.
traces() {
	find /etc /lib/systemd /usr/lib/systemd /var/lib/systemd /usr/bin \
		/usr/include /usr/share/vulkan /usr/share/man /usr/share/doc \
		/usr/lib/*-linux-gnu -iname '*baton*' 2>/dev/null | sort
}
traces_before=$(traces)

work=$(mktemp -d /tmp/baton-package.XXXXXX)
installed=0
# The lock's descriptor: flock 9 takes it, flock -u 9 gives it back. Taken
# again on the same descriptor it is a no-op, so purge() may run with it
# held (the normal path) or not (a failure before the install ended).
exec 9>>"$LOCK"
purge() {
	[ "$installed" -eq 1 ] || return 0
	say "purging the packages"
	flock 9
	mapfile -t ours < <(installed_ours)
	if [ ${#ours[@]} -gt 0 ] &&
		! dpkg --purge "${ours[@]}" >"$work/purge.log" 2>&1 9>&-; then
		cat "$work/purge.log"
	fi
	flock -u 9
	[ -z "$(installed_ours)" ] ||
		{ say "left on the machine: $(installed_ours)"; return 1; }
	installed=0
}
# shellcheck disable=SC2317 # run by the EXIT trap
finish() {
	local rc=$?
	purge || rc=1
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && cp "$work"/*.deb "$work"/*.log "$keep"/ 2>/dev/null
	fi
	rm -rf "$work"
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

start=$SECONDS
mkdir "$work/src"
# A clean copy: what git tracks or would track, as it stands now.
# shellcheck disable=SC2016 # the inner shell expands $f
git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
	(cd "$ROOT" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
	tar -C "$ROOT" --null -T - -cf - | tar -C "$work/src" -xf - ||
	fail "could not copy the tree"

# nocheck: the unit tests run in scripts/test's own builds.
DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)"
export DEB_BUILD_OPTIONS
say "building the packages (dpkg-buildpackage -b)"
(cd "$work/src" && dpkg-buildpackage -b -uc -us) >"$work/build.log" 2>&1 ||
	{ tail -n 40 "$work/build.log"; fail "dpkg-buildpackage -b failed"; }
changes=("$work"/baton_*_"$(dpkg --print-architecture)".changes)
i386=0
if [ "$(dpkg --print-architecture)" = amd64 ]; then
	if (cd "$work/src" && dpkg-checkbuilddeps -ai386 \
		-Ppkg.baton.shim-only,nocheck) >"$work/i386-deps.log" 2>&1; then
		say "building baton-shim:i386 (dpkg-buildpackage -B -ai386)"
		(cd "$work/src" && dpkg-buildpackage -B -ai386 \
			-Ppkg.baton.shim-only,nocheck -uc -us) \
			>"$work/build-i386.log" 2>&1 ||
			{ tail -n 40 "$work/build-i386.log"; fail "the i386 build failed"; }
		changes+=("$work"/baton_*_i386.changes)
		i386=1
	else
		say "no baton-shim:i386: $(cat "$work/i386-deps.log")"
	fi
fi
say "built in $((SECONDS - start)) s:" "$work"/*.changes

say "lintian"
lintian_start=$SECONDS
lintian --fail-on error,warning -I --pedantic \
	"${changes[@]}" 2>&1 | grep -v "running with root privileges" |
	tee "$work/lintian.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "lintian found errors or warnings"
say "lintian: no error or warning ($((SECONDS - lintian_start)) s)"

debs=()
for p in "${PACKAGES[@]}"; do debs+=("$work/${p}_"*"_$(dpkg --print-architecture).deb"); done
[ "$i386" -eq 1 ] && debs+=("$work"/baton-shim_*_i386.deb)

say "waiting for $LOCK"
wait_start=$SECONDS
flock 9
e2e_start=$SECONDS
installed=1
say "installing $(basename -a "${debs[@]}" | tr '\n' ' ')"
dpkg -i "${debs[@]}" >"$work/install.log" 2>&1 9>&- ||
	{ cat "$work/install.log"; fail "dpkg -i failed (scripts/install-deps" \
		"installs every run-time dependency)"; }

# The installed files, where the docs say they are.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=/usr/lib/$multiarch
version=$(sed -n "s/^  version : '\([^']*\)',/\1/p" meson.build)
for f in /usr/bin/baton /usr/bin/batond /lib/systemd/system/batond.service \
	"$libdir/baton/libbaton_gl.so" "$libdir/baton/libVkLayer_baton.so" \
	/usr/share/vulkan/implicit_layer.d/VkLayer_baton.x86_64.json \
	"$libdir/libbaton.so.0" /usr/include/baton/baton.h \
	/usr/share/man/man1/baton.1.gz /usr/share/man/man8/batond.8.gz; do
	[ -e "$f" ] || fail "$f is not installed"
done
[ "$(/usr/bin/baton --version)" = "baton $version" ] ||
	fail "baton --version says '$(/usr/bin/baton --version)', not baton $version"
[ "$(pkg-config --modversion baton)" = "$version" ] ||
	fail "pkg-config says baton $(pkg-config --modversion baton), not $version"
printf '#include <baton/common.h>\n#include <stdio.h>\nint main(void) { puts(baton_version(NULL, NULL, NULL)); return 0; }\n' >"$work/sdk.c"
# shellcheck disable=SC2046
cc -o "$work/sdk" "$work/sdk.c" $(pkg-config --cflags --libs baton) ||
	fail "a program does not build against libbaton-dev"
[ "$("$work/sdk")" = "$version" ] ||
	fail "libbaton says $("$work/sdk"), not $version"
say "installed files, baton --version, pkg-config and libbaton $version: ok"

e2e=(python3 tests/package/package_e2e.py --baton /usr/bin/baton
	--batond /usr/bin/batond --libdir "$libdir")
if [ "$i386" -eq 1 ]; then
	[ -e /usr/share/vulkan/implicit_layer.d/VkLayer_baton.x86.json ] ||
		fail "baton-shim:i386's manifest is not installed"
	g32=$(command -v glxgears.i386-linux-gnu) && e2e+=(--glxgears32 "$g32")
	v32=$(command -v vkcube.i386-linux-gnu) && e2e+=(--vkcube32 "$v32")
fi
"${e2e[@]}" 9>&-
rc=$?
purge || rc=1
if [ "$(traces)" != "$traces_before" ]; then
	say "FAIL: the purge left the machine changed:"
	diff <(echo "$traces_before") <(traces)
	rc=1
else
	say "purged: no file of the packages is left"
fi
say "install, end-to-end and purge took $((SECONDS - e2e_start)) s under" \
	"$LOCK (after $((e2e_start - wait_start)) s waiting for it); the whole" \
	"test $((SECONDS - start)) s"
exit "$rc"
