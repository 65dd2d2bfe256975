#!/bin/sh
# The CUDA gate on a real NVIDIA GPU (docs/sdk.md, "The CUDA gate"): builds
# bench/cuda_gate_check.cu with nvcc and runs it ungated, under the gate
# with no batond (GPU grid's probe loop), and under the gate registered
# with a batond (no games: continuous mode), three rounds in turn, then
# reads batond's status while a gated run holds its registration. After
# the rounds it prints, per kernel, the gated (under batond) and ungated
# medians and their difference against the target of 5 us; the rows are
# kept in OUT/rounds.txt. To compare two gates, run it once with each.
#
#   [ROUNDS=3] [PROBE_N=N] bench/cuda_gate_check.sh GATE_SO BATOND [OUT]
#
# GATE_SO is libbaton_cuda.so, BATOND the daemon (both built on a machine
# with cuda.h; they need only libc, and batond its own libraries, found
# through LD_LIBRARY_PATH). Needs nvcc and a GPU; the project's tests
# never run it.
set -eu
[ $# -ge 2 ] || { sed -n '2,16p' "$0"; exit 2; }
gate=$(readlink -f "$1"); batond=$(readlink -f "$2"); out=${3:-/tmp/cuda_gate_check}
mkdir -p "$out"
here=$(dirname "$0")
nvidia-smi -L
nvcc --version | tail -n 1
nvcc -O2 -o "$out/cgc" "$here/cuda_gate_check.cu"
sockdir=$(mktemp -d); chmod 700 "$sockdir"; sock=$sockdir/batond.sock
"$batond" --socket "$sock" --policy sa > "$out/batond.log" 2>&1 &
bpid=$!
trap 'kill $bpid 2>/dev/null; rm -rf "$sockdir"' EXIT
sleep 1
status() {
	python3 - "$sock" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
f = s.makefile("rwb")
f.write(b'{"type":"hello","version":1,"role":"client"}\n'); f.flush()
f.readline()
f.write(b'{"type":"status"}\n'); f.flush()
st = json.loads(f.readline())
for b in st.get("be", []):
	print("batond: %s units %s units/s %.0f mode %s window %.1f ms gpu_share %.3f stuck %s"
	      % (b["name"], b["units"], b["units_per_s"], b["mode"], b["window_ms"], b["gpu_share"], b["stuck"]))
PY
}
"$out/cgc" probe 200
echo "mode n median_us p99_us total_s (run)"
# ROUNDS (default 3); PROBE_N: launches in the probe loop's runs (each
# rests 1/60 s while it stays periodical; default the others' count)
# row LABEL CMD...: CMD's line after the label, here and in rounds.txt (a
# failed CMD ends the script, as set -e says).
: > "$out/rounds.txt"
row() {
	label=$1; shift
	line=$("$@")
	printf '%-8s %s\n' "$label" "$line" | tee -a "$out/rounds.txt"
}
for round in $(seq 1 "${ROUNDS:-3}"); do
	for m in empty ex spin; do
		n=2000; [ $m = spin ] && n=300
		row ungated "$out/cgc" $m $n
		row probe env BATON_SOCKET=/nonexistent/batond.sock LD_PRELOAD="$gate" "$out/cgc" $m "${PROBE_N:-$n}"
		row batond env BATON_SOCKET="$sock" BATON_NAME=cgc-$m LD_PRELOAD="$gate" "$out/cgc" $m $n
	done
done
# The target: the gate's cost per launch under 5 us. Per kernel,
# the median over the rounds of the gated (batond) and ungated medians,
# and their difference.
echo "== the gate's cost per launch (median of the rounds' medians)"
awk '$1 == "ungated" || $1 == "batond" { v[$2 " " $1] = v[$2 " " $1] " " $4 }
END {
	split("empty ex spin", ms, " ")
	for (i = 1; i <= 3; i++) {
		u = med(v[ms[i] " ungated"]); g = med(v[ms[i] " batond"])
		printf "%-6s ungated %.2f us, gated %.2f us, gated - ungated %+.2f us%s\n",
		    ms[i], u, g, g - u, ms[i] == "spin" ? "" : (g - u < 5 ? " (under 5 us)" : " (over 5 us)")
	}
}
function med(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
}' "$out/rounds.txt"
echo "== batond's view of a gated run, read while it holds its registration"
for m in empty ex spin; do
	n=2000; [ $m = spin ] && n=300
	: > "$out/hold.txt"
	BATON_SOCKET="$sock" BATON_NAME=hold-$m CGC_HOLD_MS=3000 \
		LD_PRELOAD="$gate" "$out/cgc" $m $n > "$out/hold.txt" &
	p=$!
	i=0
	# its launches done (its line printed), it is still registered
	while [ ! -s "$out/hold.txt" ] && [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1)); done
	printf 'batond   '; cat "$out/hold.txt"
	sleep 0.5 # a tick or more after the last record
	status | grep "hold-$m" || echo "batond: no tenant hold-$m"
	wait $p
done
tail -n 20 "$out/batond.log"
