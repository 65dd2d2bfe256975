/* Space harvesting in the BE SDK (include/baton/be.h, cpu_device): when
 * batond gives the tenant units of its own beside the games'
 * (core/harvest_space.h; shm.h BATON_PARTITION), sub-launches that the
 * time slots would hold run there instead, confined by CPU affinity to
 * those units (ipc/cpu_partition.h). A sub-launch in the slot still gets
 * the whole device. For a device that is this process's CPUs (PoCL), or
 * a GPU whose launch gate can say that the process is held to the SMs
 * given (gpu_fits: the CUDA gate under MPS, src/sdk/cuda/space.c): a
 * GPU's units are not CPUs, and no call of ours confines a GPU client
 * once its context exists. */
#include <math.h>

#include "core/harvest_slot.h"
#include "sdk/be_internal.h"

/* The shortest partition sub-launch worth its fixed cost (s). */
#define SPACE_MIN_S 0.001

bool be_space_window(struct baton_be *be, int64_t now, double *w, int64_t *wake)
{
	uint32_t p = be->ctl.partition;
	if ((!be->opt.cpu_device && !be->gpu_fits) ||
	    BATON_PARTITION_COUNT(p) == 0 ||
	    (be->ctl.flags & BATON_CONTROL_BE_CONTINUOUS))
		return false;
	double len = be->hp.continuous_s;
	/* End by the next slot, where the whole device is ours. */
	if (be->ctl.be_slot_len_ns > 0) {
		struct core_harvest_slot slot = {
		    .start_s = (double)be->ctl.be_slot_start_ns * 1e-9,
		    .len_s = (double)be->ctl.be_slot_len_ns * 1e-9,
		    .period_s = (double)be->ctl.be_slot_period_ns * 1e-9,
		};
		double next, now_s = (double)now * 1e-9;
		/* In the slot the whole device is time's: a partition
		 * sub-launch there would leave the games' units idle while
		 * the time window rests (its budget), so it waits for that. */
		if (core_harvest_slot_window(&slot, 1.0, now_s, &next) > 0.0)
			return false;
		if (next > now_s && next - now_s < len)
			len = next - now_s;
		if (len < SPACE_MIN_S) {
			int64_t at = (int64_t)llround(next * 1e9);
			if (at > now && at < *wake)
				*wake = at;
			return false;
		}
	}
	if (!be_space_enter(be, p))
		return false;
	*w = len;
	return true;
}

bool be_space_enter(struct baton_be *be, uint32_t p)
{
	if (!be->opt.cpu_device)
		return p == 0 || (be->gpu_fits && be->gpu_fits(p));
	if (!be->cpus_init) {
		cpu_partition_init(&be->cpus);
		be->cpus_init = true;
	}
	if (be->cpus.applied == p)
		return true;
	if (cpu_partition_apply(&be->cpus, p) >= 0)
		return true;
	be_log(BE_LOG_WAIT,
	       "cannot confine the process to units %u-%u: "
	       "the partition is not used",
	       BATON_PARTITION_FIRST(p),
	       BATON_PARTITION_FIRST(p) + BATON_PARTITION_COUNT(p) - 1);
	return false;
}
