#!/bin/sh
# libbaton.so's ABI against the last release's, with libabigail's abidiff:
# fails on a change that breaks programs built against that release (a
# function removed, a struct changed other than at its end); added
# functions pass. Skipped (exit 77) without abidw and abidiff (Debian's
# abigail-tools, in scripts/install-deps) or without a baseline.
#
# The baseline is tests/abi/libbaton.abi, the ABI of the last release
# written by abidw. Make it on the release's tag, in a build with debug
# information (the default debugoptimized has it), and commit it:
#
#     meson setup build-abi && ninja -C build-abi src/sdk/libbaton.so
#     tests/abi/check.sh --update build-abi/src/sdk/libbaton.so \
#         tests/abi/libbaton.abi include/baton
#
# Usage: check.sh [--update] LIBBATON_SO BASELINE HEADERS_DIR
set -eu
update=0
if [ "${1:-}" = --update ]; then
	update=1
	shift
fi
lib=$1
baseline=$2
headers=$3

for tool in abidw abidiff; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "abi check skipped: no $tool (install abigail-tools)"
		exit 77
	fi
done
if [ $update -eq 1 ]; then
	abidw --headers-dir "$headers" --out-file "$baseline" "$lib"
	echo "abi baseline written: $baseline"
	exit 0
fi
if [ ! -f "$baseline" ]; then
	echo "abi check skipped: no baseline $baseline (see tests/abi/check.sh)"
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
abidw --headers-dir "$headers" --out-file "$tmp/current.abi" "$lib"
rc=0
abidiff "$baseline" "$tmp/current.abi" || rc=$?
# abidiff's status is a bit field: 1 error, 2 usage error, 4 an ABI
# change, 8 an incompatible ABI change. Only 1, 2 and 8 fail.
if [ $((rc & 11)) -ne 0 ]; then
	echo "abi check: libbaton.so breaks the last release's ABI (status $rc)"
	exit 1
fi
echo "abi check: compatible with $baseline"
