/* The game's side of space harvesting (shim_partition.h). */
#include "shim/shim_partition.h"

#include "ipc/cpu_partition.h"
#include "shim/shim_config.h"

#define REAPPLY_NS 1000000000LL

/* Touched only from the frame path (one thread presents). */
static struct {
	bool init;
	struct cpu_partition cp;
	uint32_t want;      /* the partition batond asks for */
	uint64_t epoch;     /* its last policy epoch seen */
	int64_t epoch_ns;   /* when that epoch was first seen */
	int64_t applied_ns; /* when the partition in force was applied */
	bool failed;        /* one line for a partition that cannot apply */
} ps;

void shim_partition_follow(const struct ipc_control_values *v, bool software,
                           int64_t now_ns)
{
	if (!ps.init) {
		if (!software)
			return;
		cpu_partition_init(&ps.cp);
		ps.init = true;
	}
	if (v && (v->policy_epoch != ps.epoch || ps.epoch_ns == 0)) {
		ps.epoch = v->policy_epoch;
		ps.epoch_ns = now_ns;
		ps.want = v->partition;
	}
	uint32_t want = ps.want;
	if (!software || now_ns - ps.epoch_ns > PARTITION_STALE_NS)
		want = 0;
	if (want == ps.cp.applied &&
	    (want == 0 || now_ns - ps.applied_ns < REAPPLY_NS))
		return;
	if (cpu_partition_apply(&ps.cp, want) < 0) {
		if (!ps.failed)
			shim_log(SHIM_LOG_WARN,
			         "cannot confine the game to units %u-%u of "
			         "%d CPUs: it keeps the CPUs it has",
			         BATON_PARTITION_FIRST(want),
			         BATON_PARTITION_FIRST(want) +
			             BATON_PARTITION_COUNT(want) - 1,
			         ps.cp.n_base);
		ps.failed = true;
		ps.want = ps.cp.applied; /* no retry every frame */
	}
	ps.applied_ns = now_ns;
}
