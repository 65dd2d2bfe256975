#!/bin/bash
# build_mangohud.sh — provide MangoHud 0.7.2's OpenGL frame limiter on Debian 12
# (bookworm), for benchmarking Baton against it. Nothing here is part of Baton.
#
# Why: bookworm packages MangoHud 0.6.8, which has no fps_limit_method
# (early|late). Debian 13 (trixie) ships 0.7.2-2, which has it.
#
# Why not a source build: the Debian mirror this project can reach
# (deb.debian.org) answers 404 for every mangohud *source* file
# (mangohud_0.7.2-2.dsc, mangohud_0.7.2.orig.tar.xz, the .debian.tar.xz, and
# even 0.6.8's orig tarball). There is no other way to get MangoHud's source:
# GitHub is unreachable and it is not on npm. The trixie *binary* package,
# mangohud_0.7.2-2_amd64.deb, can be downloaded, so this script makes that
# build run on bookworm:
#
#   1. Download mangohud_0.7.2-2_amd64.deb and the trixie source packages of
#      its two C++ runtime dependencies, fmtlib 10.1.1+ds1-4 and spdlog
#      1:1.15.2+ds-2. Check each file against a SHA-256 pinned below. The pins
#      were copied from trixie's Packages and Sources indexes (trixie 13.7).
#   2. Build libfmt.so.10 and libspdlog.so.1.15 from those sources with
#      bookworm's gcc 12, with Debian's quilt patches applied (dpkg-source -x)
#      and Debian's cmake options. The trixie binaries of these two libraries
#      need libstdc++ 14 and glibc 2.38, so they cannot be used here.
#      MangoHud links libstdc++ statically, so it does not need a newer one.
#   3. Handle glibc 2.38. MangoHud 0.7.2 was built against glibc 2.41, so it
#      asks for 7 symbols at version GLIBC_2.38: __isoc23_{strtol,strtoul,
#      strtoll,strtoull,sscanf,fscanf} (from libc) and fmodf (from libm).
#      Bookworm's glibc is 2.36. In libMangoHud_opengl.so's .gnu.version_r,
#      each GLIBC_2.38 entry is renamed to GLIBC_2.2.5, a version that
#      libc.so.6 and libm.so.6 both define. That does two things: fmodf binds
#      to libm's fmodf@GLIBC_2.2.5, which gives the same results, and ld.so no
#      longer refuses to load the library. Marking the entries VER_FLG_WEAK
#      would also work, but ld.so then prints a warning from every process.
#      The six __isoc23_* functions do not exist in glibc 2.36. A small compat
#      library, added as a DT_NEEDED entry, defines them by calling bookworm's
#      strtol, vsscanf and so on.
#      The RUNPATH is also set to $ORIGIN/../deps, so that the library finds
#      the libfmt and libspdlog built in step 2.
#   4. Check by loading the result with LD_BIND_NOW=1, which resolves every
#      symbol up front.
#
# MangoHud's own code is unchanged: the same machine code as Debian's 0.7.2-2.
#
# Usage: bench/build_mangohud.sh [PREFIX]
#   PREFIX defaults to /var/cache/baton-bench/mangohud-0.7.2.
#   If PREFIX already has a finished install, the script does nothing but print
#   the result. The last line of output is the value to put in LD_PRELOAD
#   (the upstream `mangohud` wrapper for 0.7.x preloads only
#   $LIB/mangohud/libMangoHud_opengl.so, and adds libMangoHud_dlsym.so only
#   for --dlsym). Use it like this:
#     MANGOHUD=1 MANGOHUD_CONFIG=fps_limit=60,no_display,fps_limit_method=early \
#       LD_PRELOAD="$(bench/build_mangohud.sh | tail -n1)" glxgears
#
# Needs: root, or these already installed: curl ca-certificates dpkg-dev
# cmake ninja-build g++ patchelf python3. Network access to deb.debian.org.
# Scratch space: a mktemp dir under /tmp, removed on exit.

set -eu

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PREFIX=${1:-/var/cache/baton-bench/mangohud-0.7.2}
case $PREFIX in /*) ;; *) PREFIX=$(pwd)/$PREFIX ;; esac
PREFIX=${PREFIX%/}

GL_LIB=$PREFIX/lib/mangohud/libMangoHud_opengl.so
STAMP=$PREFIX/.baton-build-complete

die() { echo "build_mangohud.sh: error: $*" >&2; exit 1; }
log() { echo "build_mangohud.sh: $*" >&2; }

if [ -f "$STAMP" ] && [ -f "$GL_LIB" ]; then
    log "already installed in $PREFIX"
    echo "$GL_LIB"
    exit 0
fi

# ---------------------------------------------------------------- tools
need_pkgs=
for pair in curl:curl dpkg-source:dpkg-dev dpkg-deb:dpkg cmake:cmake \
            ninja:ninja-build g++:g++ gcc:gcc patchelf:patchelf \
            python3:python3 xz:xz-utils; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || need_pkgs="$need_pkgs ${pair#*:}"
done
[ -e /etc/ssl/certs/ca-certificates.crt ] || need_pkgs="$need_pkgs ca-certificates"
if [ -n "$need_pkgs" ]; then
    [ "$(id -u)" = 0 ] || die "missing tools (install:$need_pkgs) and not root"
    log "installing build tools:$need_pkgs"
    apt-get update -qq || die "apt-get update failed"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $need_pkgs >/dev/null || die "apt-get install failed for:$need_pkgs"
fi
# Use Debian's python3 (not a pyenv shim), if it is there.
PY=/usr/bin/python3; [ -x "$PY" ] || PY=$(command -v python3)

# ---------------------------------------------------------------- scratch
WORK=$(mktemp -d /tmp/baton-mangohud.XXXXXX) || die "mktemp failed"
STAGE_PREFIX=$PREFIX.partial.$$
cleanup() { rm -rf "$WORK" "$STAGE_PREFIX"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
START=$(date +%s)

# fetch POOL_PATH SHA256: download $MIRROR/pool/... into $WORK, verify.
fetch() {
    f=$WORK/${1##*/}
    log "fetching $1"
    curl -fsSL --retry 3 -o "$f" "$MIRROR/pool/main/$1" \
        || die "download failed: $MIRROR/pool/main/$1"
    got=$(sha256sum "$f" | cut -d' ' -f1)
    [ "$got" = "$2" ] || die "sha256 mismatch for ${1##*/}: got $got, want $2"
}

# Pins: trixie (Debian 13.7) main/binary-amd64/Packages and main/source/Sources.
fetch m/mangohud/mangohud_0.7.2-2_amd64.deb          051f63434b463aff8010532d67c549550ef5b621579d9d5d5be8b3922fc5413a
fetch f/fmtlib/fmtlib_10.1.1+ds1-4.dsc               247aa59e5c4948cf9358443e278b3e1223d08e12f8ce81710e4754fd0b9cb01f
fetch f/fmtlib/fmtlib_10.1.1+ds1.orig.tar.gz         7000f214d2628f04174822f8048c573f1608194408d7931121595a03f1c18a17
fetch f/fmtlib/fmtlib_10.1.1+ds1-4.debian.tar.xz     6105f267327b86f4a333b79473f54e4dca91f8789539685fca343614f68d792d
fetch s/spdlog/spdlog_1.15.2+ds-2.dsc                c4358dce55300ccbbcee1ed403c83f183f5f4a72a7302eeb77111e6e68d86471
fetch s/spdlog/spdlog_1.15.2+ds.orig.tar.xz          47c34d1efd947b6b81fe514dc772a8fb7c3a781050f7b19c09099575c16f6d5f
fetch s/spdlog/spdlog_1.15.2+ds-2.debian.tar.xz      ebedd0cba5512cb7f3b4182d7548279a727358626e6350798f32e9b9109ebedd

# ---------------------------------------------------------------- fmt, spdlog
# --no-check skips the .dsc's OpenPGP signature check and its checksum check.
# The signature could not be checked anyway: debian-keyring is not installed,
# so gpgv would only print "No public key". Every file, the .dsc included,
# was already checked against its pinned sha256 above.
( cd "$WORK" && dpkg-source -q -x --no-check fmtlib_10.1.1+ds1-4.dsc fmt-src >/dev/null ) \
    || die "dpkg-source -x fmtlib (unpack + Debian patches) failed"
( cd "$WORK" && dpkg-source -q -x --no-check spdlog_1.15.2+ds-2.dsc spdlog-src >/dev/null ) \
    || die "dpkg-source -x spdlog (unpack + Debian patches) failed"
rm -rf "$WORK/spdlog-src/include/spdlog/fmt/bundled"   # as debian/rules does

JOBS=$(nproc 2>/dev/null || echo 2)
DEPS=$WORK/deps-install
log "building fmt 10.1.1 (shared)"
cmake -S "$WORK/fmt-src" -B "$WORK/fmt-build" -G Ninja -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$DEPS" -DCMAKE_INSTALL_LIBDIR=lib \
    -DFMT_DOC=OFF -DFMT_TEST=OFF -DFMT_INSTALL=ON \
    -DBUILD_SHARED_LIBS=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_CXX_STANDARD=11 \
    >"$WORK/fmt-configure.log" 2>&1 \
    || { tail -n 30 "$WORK/fmt-configure.log" >&2; die "cmake configure of fmt failed"; }
ninja -C "$WORK/fmt-build" -j "$JOBS" install >"$WORK/fmt-build.log" 2>&1 \
    || { tail -n 30 "$WORK/fmt-build.log" >&2; die "build of fmt failed"; }

log "building spdlog 1.15.2 (shared, external fmt)"
cmake -S "$WORK/spdlog-src" -B "$WORK/spdlog-build" -G Ninja -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$DEPS" -DCMAKE_INSTALL_LIBDIR=lib \
    -DCMAKE_PREFIX_PATH="$DEPS" -DCMAKE_INSTALL_RPATH='$ORIGIN' \
    -DSPDLOG_BUILD_SHARED=ON -DSPDLOG_FMT_EXTERNAL=ON \
    -DSPDLOG_BUILD_EXAMPLE=OFF -DSPDLOG_BUILD_EXAMPLE_HO=OFF \
    -DSPDLOG_BUILD_TESTS=OFF -DSPDLOG_BUILD_TESTS_HO=OFF \
    >"$WORK/spdlog-configure.log" 2>&1 \
    || { tail -n 30 "$WORK/spdlog-configure.log" >&2; die "cmake configure of spdlog failed"; }
ninja -C "$WORK/spdlog-build" -j "$JOBS" install >"$WORK/spdlog-build.log" 2>&1 \
    || { tail -n 30 "$WORK/spdlog-build.log" >&2; die "build of spdlog failed"; }

[ -e "$DEPS/lib/libfmt.so.10" ] || die "fmt build did not produce libfmt.so.10"
[ -e "$DEPS/lib/libspdlog.so.1.15" ] || die "spdlog build did not produce libspdlog.so.1.15"

# ---------------------------------------------------------------- glibc 2.38 compat
log "building the GLIBC_2.38 compat library"
cat >"$WORK/glibc238_compat.c" <<'EOF'
/* The glibc 2.38 C23 entry points that Debian trixie's MangoHud 0.7.2 uses.
 * Each one forwards to glibc 2.36's function. The only ways the C23 variants
 * differ (0b prefixes, %b) never come up in MangoHud's config and /proc
 * parsing. This library has no symbol versions, so it satisfies references
 * to any version of these names. No other library defines them. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
long __isoc23_strtol(const char *s, char **e, int b) { return strtol(s, e, b); }
unsigned long __isoc23_strtoul(const char *s, char **e, int b) { return strtoul(s, e, b); }
long long __isoc23_strtoll(const char *s, char **e, int b) { return strtoll(s, e, b); }
unsigned long long __isoc23_strtoull(const char *s, char **e, int b) { return strtoull(s, e, b); }
int __isoc23_sscanf(const char *s, const char *fmt, ...)
{ va_list ap; va_start(ap, fmt); int r = vsscanf(s, fmt, ap); va_end(ap); return r; }
int __isoc23_fscanf(FILE *f, const char *fmt, ...)
{ va_list ap; va_start(ap, fmt); int r = vfscanf(f, fmt, ap); va_end(ap); return r; }
EOF
mkdir -p "$STAGE_PREFIX/lib/mangohud" "$STAGE_PREFIX/lib/deps" "$STAGE_PREFIX/share/doc"
gcc -O2 -fPIC -shared -o "$STAGE_PREFIX/lib/mangohud/libbaton_glibc238_compat.so" \
    -Wl,-soname,libbaton_glibc238_compat.so "$WORK/glibc238_compat.c" \
    || die "compiling the glibc 2.38 compat library failed"

# ---------------------------------------------------------------- MangoHud
log "unpacking mangohud_0.7.2-2_amd64.deb"
dpkg-deb -x "$WORK/mangohud_0.7.2-2_amd64.deb" "$WORK/deb" || die "dpkg-deb -x mangohud failed"
MH=$WORK/deb/usr/lib/x86_64-linux-gnu/mangohud
for f in libMangoHud_opengl.so libMangoHud_dlsym.so; do
    [ -f "$MH/$f" ] || die "$f not found in mangohud_0.7.2-2_amd64.deb"
    cp "$MH/$f" "$STAGE_PREFIX/lib/mangohud/$f"
done
cp "$WORK/deb/usr/bin/mangohud" "$STAGE_PREFIX/share/doc/mangohud-wrapper-0.7.2.sh"
cp "$WORK/deb/usr/share/doc/mangohud/copyright" "$STAGE_PREFIX/share/doc/mangohud.copyright" 2>/dev/null || true
cp -P "$DEPS"/lib/libfmt.so.10* "$DEPS"/lib/libspdlog.so.1.15* "$STAGE_PREFIX/lib/deps/" \
    || die "copying libfmt/libspdlog failed"

L=$STAGE_PREFIX/lib/mangohud/libMangoHud_opengl.so
patchelf --set-rpath '$ORIGIN/../deps:$ORIGIN' "$L" || die "patchelf --set-rpath on libMangoHud_opengl.so failed"
patchelf --add-needed libbaton_glibc238_compat.so "$L" || die "patchelf --add-needed on libMangoHud_opengl.so failed"

# In .gnu.version_r, rename each GLIBC_2.38 need to GLIBC_2.2.5, taking the
# name offset and hash from the same file's existing GLIBC_2.2.5 entry.
"$PY" - "$L" <<'EOF' || die "rewriting GLIBC_2.38 version needs in libMangoHud_opengl.so failed"
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
    sys.exit("not a little-endian ELF64 file: " + path)
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
SHT_GNU_verneed = 0x6ffffffe
patched = 0
for s in secs:
    if s[1] != SHT_GNU_verneed:
        continue
    strtab_off = secs[s[6]][4]
    def cstr(o):
        return bytes(data[strtab_off + o:data.index(b"\0", strtab_off + o)]).decode()
    off, count = s[4], s[7]
    for _ in range(count):
        _ver, cnt, vn_file, vn_aux, vn_next = struct.unpack_from("<HHIII", data, off)
        auxes, aux = [], off + vn_aux
        for _ in range(cnt):
            h, flags, other, name, nxt = struct.unpack_from("<IHHII", data, aux)
            auxes.append((aux, h, name, cstr(name)))
            aux += nxt
        base = [a for a in auxes if a[3] == "GLIBC_2.2.5"]
        for a in auxes:
            if a[3] != "GLIBC_2.38":
                continue
            if not base:
                sys.exit("%s: no GLIBC_2.2.5 need to borrow for %s" % (path, cstr(vn_file)))
            struct.pack_into("<I", data, a[0], base[0][1])        # vna_hash
            struct.pack_into("<I", data, a[0] + 8, base[0][2])    # vna_name
            patched += 1
            print("build_mangohud.sh: %s: GLIBC_2.38 need -> GLIBC_2.2.5" % cstr(vn_file), file=sys.stderr)
        off += vn_next
if patched == 0:
    sys.exit("no GLIBC_2.38 version need found in " + path)
open(path, "wb").write(data)
EOF
if LC_ALL=C readelf -V "$L" | grep -Eq 'GLIBC_2\.(3[7-9]|[4-9][0-9])'; then
    die "libMangoHud_opengl.so still needs a glibc newer than 2.36 after patching"
fi

# ---------------------------------------------------------------- smoke test
log "checking that every symbol resolves (LD_BIND_NOW=1)"
out=$(LD_BIND_NOW=1 LD_PRELOAD="$L" /bin/true 2>&1) || die "test load of $L failed: $out"
case $out in
    *"error"*|*"cannot"*|*"not found"*) die "test load of $L printed: $out" ;;
esac
if command -v ldd >/dev/null 2>&1; then
    missing=$(ldd "$L" 2>&1 | grep 'not found' || true)
    [ -z "$missing" ] || die "unresolved libraries for $L: $missing"
fi

cat >"$STAGE_PREFIX/README" <<EOF
MangoHud 0.7.2 (Debian trixie 0.7.2-2 binary), made to run on Debian 12 by
bench/build_mangohud.sh of Baton: see that script's header for how and why.
LD_PRELOAD=$GL_LIB
EOF
date -u +%FT%TZ >"$STAGE_PREFIX/.baton-build-complete"

# ---------------------------------------------------------------- install
mkdir -p "$(dirname "$PREFIX")" || die "cannot create $(dirname "$PREFIX")"
if [ -e "$PREFIX" ]; then
    rm -rf "$PREFIX" || die "cannot remove the incomplete install at $PREFIX"
fi
mv "$STAGE_PREFIX" "$PREFIX" || die "cannot move the install into $PREFIX"
log "installed in $PREFIX in $(( $(date +%s) - START ))s"
echo "$GL_LIB"
