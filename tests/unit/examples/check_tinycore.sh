#!/bin/sh
# Runs examples/tinycore under one policy and checks the shape of what it
# ends on, from its "final" lines, not its exact numbers:
#   sa:   every game at or over its SLA, within 3% of SA's reference;
#   esa:  every game within 2% of the common rate, the GPU within 2 points
#         of ESA's utilisation target;
#   none: the costly game under its SLA (what the policies are for).
# Usage: check_tinycore.sh TINYCORE POLICY
set -eu
bin=$1
policy=$2
out=$("$bin" "$policy" 100)
printf '%s\n' "$out"
printf '%s\n' "$out" | awk -v policy="$policy" '
function fail(why) { print "tinycore " policy ": " why; bad = 1 }
$1 == "final" && $3 == "sla" {
	games++; name = $2; sla = $4; ref = $6; fps = $8
	if (policy == "sa" && (fps < sla || fps > ref * 1.03 || fps < ref * 0.97))
		fail(name " at " fps " fps, SA holds " ref)
	if (policy == "none" && name == "racer" && fps >= sla)
		fail("racer reached its SLA unpaced")
	rate[games] = fps
}
$1 == "final" && $2 == "gpu" { util = $4; target = $6; common = $8 }
END {
	if (games != 3)
		fail("expected 3 final lines, got " games + 0)
	if (policy == "esa") {
		if (common <= 0)
			fail("no common rate")
		for (i = 1; i <= games; i++)
			if (rate[i] < common * 0.98 || rate[i] > common * 1.02)
				fail("rate " rate[i] " off the common " common)
		if (util < target - 0.02 || util > target + 0.02)
			fail("GPU at " util ", ESA fills " target)
	}
	exit bad
}'
