#!/bin/sh
# libbaton.so exports exactly its version script's list (libbaton.map),
# and the list holds every function the public headers declare.
# Usage: exports.sh LIBBATON_SO LIBBATON_MAP HEADER...
set -eu
lib=$1
map=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The names in the map's global: section, comments dropped.
sed -e 's|/\*.*\*/||g' "$map" |
	awk '/global:/ { on = 1; next } /local:/ { on = 0 }
	     on && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ { gsub(/[ \t;]/, ""); print }' |
	sort >"$tmp/map"
# What the library defines, version suffixes and version nodes dropped.
nm -D --defined-only "$lib" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
	sort >"$tmp/lib"
# The first function name of each BATON_API declaration in the headers.
awk '/^BATON_API/ { on = 1 }
     on && match($0, /baton_[a-z0-9_]+\(/) {
	     print substr($0, RSTART, RLENGTH - 1); on = 0 }' "$@" |
	sort >"$tmp/headers"

rc=0
if ! cmp -s "$tmp/map" "$tmp/lib"; then
	echo "exports.sh: libbaton.so's exports differ from libbaton.map" \
		"(< map, > library):"
	diff "$tmp/map" "$tmp/lib" || true
	rc=1
fi
missing=$(comm -23 "$tmp/headers" "$tmp/map")
if [ -n "$missing" ]; then
	echo "exports.sh: declared BATON_API but not in libbaton.map:" $missing
	rc=1
fi
[ $rc -eq 0 ] && echo "exports.sh: $(wc -l <"$tmp/lib") symbols, as listed"
exit $rc
