#!/bin/sh
# be-matmul --trace (bench/harvest_real.py --trace): a header, then one line
# per sub-launch the SDK gave (no daemon here: GPU grid's probe loop), whose
# rows add up to the products', each ending after it started, none on a
# partition. Exit 77 (skipped) with no OpenCL device, as be-matmul does.
set -eu
matmul="$1"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
BATON_SOCKET=/nonexistent/baton.sock "$matmul" --n 96 --tasks 2 --quiet \
	--trace "$out"
header=$(head -n 1 "$out")
if [ "$header" != "start_s,end_s,rows,device_ms,window_ms,partition" ]; then
	echo "trace header: $header"
	exit 1
fi
rows=$(tail -n +2 "$out" | awk -F, '{ s += $3 } END { print s + 0 }')
if [ "$rows" -ne 192 ]; then
	echo "trace: $rows rows in all, expected 192 (2 products of 96)"
	exit 1
fi
if ! tail -n +2 "$out" | awk -F, 'NF != 6 || $2 < $1 || $6 != 0 { bad = 1 }
	END { exit bad }'; then
	echo "trace: a malformed line:"
	cat "$out"
	exit 1
fi
echo "trace: $(($(wc -l <"$out") - 1)) sub-launches, $rows rows"
