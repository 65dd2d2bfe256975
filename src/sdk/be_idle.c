/* The idle-priority lane in the BE SDK (core/harvest_idle.h; shm.h
 * BATON_CONTROL_BE_IDLE): a client whose device is this process's CPUs
 * (cpu_device) says so in its hello ("idle"), and when batond puts it in
 * the lane every thread of the process drops to SCHED_IDLE, PoCL's
 * workers included, and sub-launches run back to back, in and out of the
 * games' slot, on every core: the kernel gives a core to a game's thread
 * the moment it wakes. The threads are found in /proc/self/task, as
 * ipc/cpu_partition.c finds them, and again each second for threads
 * started since by one that was not yet lowered (a thread started by a
 * lowered one inherits its policy). There is no way back: an unprivileged
 * thread cannot leave SCHED_IDLE under the default RLIMIT_NICE
 * (sched(7)), so the process keeps to idle priority when the lane closes,
 * which only ever makes it gentler.
 *
 * The same priority serves a CPU device's periodical sub-launches, the
 * ones batond times into the games' slot (be_idle_beside_games): a
 * sub-launch that runs past the slot's end, or a game frame that starts
 * early, then finds the game's threads first on every core. Beside two
 * light games on llvmpipe (bench/harvest_real.py, two rounds, 2026-11-24)
 * the slot at normal priority harvested 84.2 % at frame p99 x1.09 and
 * x1.09 of the games alone, at idle priority 86.4 % at x1.05 and x1.08. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "sdk/be_internal.h"

#define IDLE_RESCAN_NS 1000000000LL

/* Lowers every thread of this process to SCHED_IDLE. Returns how many
 * could not be lowered (a thread that ended meanwhile is not one), -1 if
 * the threads cannot be listed. */
static int lower_threads(void)
{
	DIR *dir = opendir("/proc/self/task");
	if (!dir)
		return -1;
	int failed = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		int policy = sched_getscheduler((pid_t)tid);
		if (policy == SCHED_IDLE || (policy < 0 && errno == ESRCH))
			continue;
		struct sched_param sp = {.sched_priority = 0};
		if (sched_setscheduler((pid_t)tid, SCHED_IDLE, &sp) != 0 &&
		    errno != ESRCH)
			failed++;
	}
	closedir(dir);
	return failed;
}

/* The lowering both callers share: every thread now, then again each
 * second for new ones. True once the process is at idle priority (a few
 * new threads that stay behind are logged, not a failure). */
static bool lowered(struct baton_be *be, int64_t now)
{
	if (be->idle_entered && now < be->idle_rescan_ns)
		return true;
	int failed = lower_threads();
	be->idle_rescan_ns = now + IDLE_RESCAN_NS;
	if (failed == 0 || (be->idle_entered && failed > 0)) {
		if (failed > 0)
			be_log(BE_LOG_IDLE,
			       "%d new threads stay at their priority", failed);
		be->idle_entered = true;
		return true;
	}
	return false;
}

bool be_idle_enter(struct baton_be *be, int64_t now)
{
	if (!be->opt.cpu_device || be->idle_refused)
		return false;
	if (lowered(be, now))
		return true;
	/* Without idle priority the lane would run at the games' own: ask
	 * batond again, without the lane (be_conn.c leaves "idle" out of
	 * the hello from now on). */
	be_log(BE_LOG_IDLE, "cannot lower the process's threads to SCHED_IDLE: "
	                    "registering again without the idle lane");
	be->idle_refused = true;
	be_conn_close(be);
	be->redial_ns = now;
	return false;
}

void be_idle_beside_games(struct baton_be *be, int64_t now)
{
	if (!be->opt.cpu_device || be->idle_slot_refused || lowered(be, now))
		return;
	/* Not the lane: nothing to ask batond again. The slot still keeps
	 * the sub-launches out of the games' frames, as before. */
	be_log(BE_LOG_IDLE, "cannot lower the process's threads to SCHED_IDLE: "
	                    "sub-launches beside the games run at normal "
	                    "priority");
	be->idle_slot_refused = true;
}
