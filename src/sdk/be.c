/* The BE SDK's API (include/baton/be.h): the task, the wait for a window,
 * the sizing and the report. The decisions are the core's: the window and
 * the mode come from batond's control block (core_harvest_tick ran
 * there) or, with no daemon, from core_harvest_observe and
 * core_harvest_window over our own probes; the block count from the fit
 * (core_harvest_task_next); the rest after a sub-launch from
 * core_harvest_rest. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc/ring.h"
#include "ipc/socket_path.h"
#include "core/harvest_slot.h"
#include "sdk/be_internal.h"
#include "sdk/sized.h"

/* The options as first released with a size field, through cpu_device: a
 * caller's struct is at least this long (the rule in common.h). */
#define OPTIONS_FIRST_SIZE                                                     \
	(offsetof(struct baton_be_options, cpu_device) + sizeof(int))

void baton_be_options_init(struct baton_be_options *o)
{
	if (!o) {
		be_log(BE_LOG_CALL, "baton_be_options_init: NULL options");
		return;
	}
	*o = (struct baton_be_options){
	    .size = sizeof(*o),
	    .weight = 1.0,
	    .calib_probes = 32,
	    .calib_pct = 95.0,
	    .calib_factor = 1.5,
	    .fps = 60.0,
	    .periodical_ms = 8.5,  /* GPU grid's N1 subtask, Sec. 4 */
	    .continuous_ms = 17.0, /* and N2 */
	};
}

static bool in_range(double x, double lo, double hi)
{
	return isfinite(x) && x > lo && x <= hi;
}

/* Checks o; the first bad field named in a log line. */
static bool options_valid(const struct baton_be_options *o)
{
	const char *bad = NULL;
	if (!in_range(o->weight, 0.0, 1000.0))
		bad = "weight (0, 1000]";
	else if (!(o->cap == 0.0 || in_range(o->cap, 0.0, 1.0)))
		bad = "cap (0, 1] or 0";
	else if (!in_range(o->fps, 0.0, 1000.0))
		bad = "fps (0, 1000]";
	else if (!in_range(o->periodical_ms, 0.0, 10000.0) ||
	         !in_range(o->continuous_ms, 0.0, 10000.0))
		bad = "periodical_ms, continuous_ms (0, 10000]";
	else if (o->alpha_ns < 0 || o->max_wait_ms < 0)
		bad = "alpha_ns, max_wait_ms >= 0";
	else if (o->probe && !o->alpha_ns &&
	         (o->calib_probes == 0 || o->calib_probes > 100000 ||
	          !in_range(o->calib_pct, 0.0, 100.0) ||
	          !in_range(o->calib_factor, 0.0, 1000.0)))
		bad = "calib_probes [1, 100000], calib_pct (0, 100], "
		      "calib_factor (0, 1000]";
	if (bad)
		be_log(BE_LOG_CALL, "baton_be_open: bad option, want %s", bad);
	return !bad;
}

int baton_be_open(const char *name, const struct baton_be_options *o,
                  baton_be **out)
{
	return be_open(name, o, NULL, out);
}

int be_open(const char *name, const struct baton_be_options *o,
            be_gpu_fits_fn gpu_fits, baton_be **out)
{
	if (!out || !name || !*name || strlen(name) >= BE_NAME_MAX) {
		be_log(BE_LOG_CALL, "baton_be_open: %s",
		       !out    ? "NULL handle pointer"
		       : !name ? "NULL name"
		               : "name must be 1 to 63 bytes");
		return BATON_EINVAL;
	}
	*out = NULL;
	struct baton_be_options opt;
	baton_be_options_init(&opt);
	if (o && !sdk_sized_in(&opt, sizeof(opt), o, OPTIONS_FIRST_SIZE)) {
		be_log(BE_LOG_CALL,
		       "baton_be_open: options of size %zu: "
		       "not from baton_be_options_init, or asking "
		       "for what this library lacks",
		       o->size);
		return BATON_EINVAL;
	}
	o = &opt;
	if (!options_valid(o))
		return BATON_EINVAL;
	struct baton_be *be = calloc(1, sizeof(*be));
	if (!be)
		return BATON_ENOMEM;
	snprintf(be->name, sizeof(be->name), "%s", name);
	be->opt = *o;
	be->gpu_fits = gpu_fits;
	be->sock = -1;
	if (o->socket_path ? snprintf(be->socket, sizeof(be->socket), "%s",
	                              o->socket_path) >= (int)sizeof(be->socket)
	                   : !ipc_socket_path(be->socket, sizeof(be->socket))) {
		be_log(BE_LOG_CALL, "baton_be_open: socket path too long");
		free(be);
		return BATON_EINVAL;
	}
	be->opt.socket_path = NULL; /* the caller's string may go */
	be->memfd = ipc_shm_create((uint32_t)getpid(), &be->shm);
	if (be->memfd < 0) {
		be_log(BE_LOG_CALL, "baton_be_open: no shared memory");
		free(be);
		return BATON_ESYS;
	}
	be->hp = core_harvest_params_default();
	/* The probe loop: GPU grid's constants, Sleep(1/F) after a
	 * periodical sub-launch (GPU grid, Algorithm 1, defect 6 in
	 * docs/papers.md). */
	be->hp_nd = core_harvest_params_default();
	be->hp_nd.periodical_s = o->periodical_ms * 1e-3;
	be->hp_nd.continuous_s = o->continuous_ms * 1e-3;
	be->hp_nd.rest_s = 1.0 / o->fps;
	be->tenant.weight = o->weight;
	be->tenant.cap = o->cap;
	be->tenant.probe = true;
	be->alpha_ns = o->alpha_ns;
	if (o->probe && !be->alpha_ns) {
		be->alpha_ns = be_probe_calibrate(
		    be, o->calib_probes, o->calib_pct, o->calib_factor);
		if (be->alpha_ns < 0) {
			be_log(BE_LOG_PROBE, "baton_be_open: the probe failed "
			                     "while calibrating; no probe");
			be->alpha_ns = 0;
			be->opt.probe = NULL;
		}
	}
	be_conn_poll(be, be_now_ns());
	*out = be;
	return BATON_OK;
}

void baton_be_close(baton_be *be)
{
	if (!be)
		return;
	be_conn_close(be);
	ipc_shm_unmap(&be->shm);
	close(be->memfd);
	free(be);
}

/* Publishes in the ring header (shm.h) the sub-launch under way: released
 * at release_ns (0 = none) with window_ns. batond flags it stuck when it
 * runs far past its window. The window first, so a daemon that sees the
 * release sees its window. */
static void publish_inflight(struct baton_be *be, int64_t release_ns,
                             int64_t window_ns)
{
	if (release_ns)
		atomic_store_explicit(&be->shm.ring->be_inflight_window_ns,
		                      window_ns, memory_order_relaxed);
	atomic_store_explicit(&be->shm.ring->be_inflight_ns, release_ns,
	                      memory_order_release);
}

/* The fit of kernel id: its own, else a free slot, else the least
 * recently used one, cleared. */
static struct be_kernel *kernel_fit(struct baton_be *be, uint32_t id)
{
	struct be_kernel *pick = &be->kernels[0];
	for (size_t i = 0; i < BE_KERNELS; i++) {
		struct be_kernel *k = &be->kernels[i];
		if (k->used && k->id == id) {
			pick = k;
			goto found;
		}
		if (!k->used || (pick->used && k->last_use < pick->last_use))
			pick = k;
	}
	*pick = (struct be_kernel){.used = true, .id = id};
found:
	pick->last_use = ++be->uses;
	return pick;
}

/* The fit the sub-launch given runs under: on a partition, in the idle
 * lane (sharing the cores with the games at a lower priority) or in
 * time, each at its own rate. */
static struct core_harvest_fit *kernel_fit_for(struct baton_be *be, bool part)
{
	return part           ? &be->kernel->fit_part
	       : be->out_idle ? &be->kernel->fit_idle
	                      : &be->kernel->fit;
}

/* The window stamped for a sub-launch of n blocks given window w (s):
 * the longer of w and the time the fit expects n blocks to take. n is
 * at least one block, and one block (a launch the OpenCL gate may not
 * cut, one work-group on a slow machine) can take longer than any
 * window: it is then expected to run that long, not hung, and batond's
 * stuck rule (core/harvest_stuck.h) judges it against that. */
static int64_t stamp_window_ns(struct baton_be *be, bool part, double w,
                               uint64_t n)
{
	double expect = core_harvest_fit_predict(kernel_fit_for(be, part), n);
	return (int64_t)((expect > w ? expect : w) * 1e9);
}

int64_t be_kernel_shortest_ns(const struct baton_be *be, uint64_t n)
{
	if (!be->kernel)
		return -1;
	const struct core_harvest_fit *fits[] = {
	    &be->kernel->fit, &be->kernel->fit_part, &be->kernel->fit_idle};
	double best = -1.0;
	for (size_t i = 0; i < sizeof(fits) / sizeof(fits[0]); i++)
		for (uint32_t j = 0; j < fits[i]->len; j++)
			if (fits[i]->n[j] == (double)n &&
			    (best < 0.0 || fits[i]->t[j] < best))
				best = fits[i]->t[j];
	return best < 0.0 ? -1 : (int64_t)(best * 1e9);
}

int baton_be_task_begin(baton_be *be, uint32_t kernel_id, int64_t n_blocks)
{
	if (!be || n_blocks <= 0) {
		be_log(BE_LOG_CALL, "baton_be_task_begin: %s",
		       !be ? "NULL handle" : "block count must be > 0");
		return BATON_EINVAL;
	}
	be->kernel = kernel_fit(be, kernel_id);
	be->task = (struct core_harvest_task){.n = (uint64_t)n_blocks};
	be->in_task = true;
	if (be->outstanding)
		publish_inflight(be, 0, 0); /* abandoned */
	be->outstanding = false;
	/* Algorithm 1 starts each task with count = 0: two periodical
	 * sub-launches before continuous mode can begin. */
	if (!be->connected && !be->keep_mode)
		core_harvest_observe(&be->hp_nd, &be->tenant, false);
	return BATON_OK;
}

static bool slot_window(struct baton_be *be, int64_t now, double *w,
                        int64_t *wake);

/* The slot batond wrote (len 0: none). */
static struct core_harvest_slot control_slot(const struct baton_be *be)
{
	return (struct core_harvest_slot){
	    .start_s = (double)be->ctl.be_slot_start_ns * 1e-9,
	    .len_s = (double)be->ctl.be_slot_len_ns * 1e-9,
	    .period_s = (double)be->ctl.be_slot_period_ns * 1e-9,
	};
}

/* The time window: the rest after the last sub-launch, the budget, the
 * window and the slot. */
static bool temporal_window(struct baton_be *be, int64_t now, double *w,
                            int64_t *wake)
{
	if (be->rest_until_ns < 0) {
		/* The budget was 0 when the last one ended: wait for the
		 * daemon's next word. */
		if (be->ctl.policy_epoch == be->rest_epoch)
			return false;
		be->rest_until_ns = 0;
	}
	if (now < be->rest_until_ns) {
		*wake = be->rest_until_ns < now + 10 * BE_STEP_NS
		            ? be->rest_until_ns
		            : now + 10 * BE_STEP_NS;
		return false;
	}
	if (be->ctl.be_window_ns <= 0 || be->ctl.cap_ns_per_s == 0 ||
	    be->ctl.cap_ns_per_s > BATON_CAP_MAX_NS_PER_S)
		return false;
	return slot_window(be, now, w, wake);
}

/* The time slot (core/harvest_slot.h) in periodical mode, and the mode
 * and budget the daemon wrote: true and the window if one is open. */
static bool slot_window(struct baton_be *be, int64_t now, double *w,
                        int64_t *wake)
{
	be->tenant.mode = be->ctl.flags & BATON_CONTROL_BE_CONTINUOUS
	                      ? CORE_HARVEST_CONTINUOUS
	                      : CORE_HARVEST_PERIODICAL;
	be->tenant.budget = (double)be->ctl.cap_ns_per_s * 1e-9;
	*w = (double)be->ctl.be_window_ns * 1e-9;
	if (be->tenant.mode == CORE_HARVEST_PERIODICAL)
		be_idle_beside_games(be, now); /* be_idle.c */
	if (be->tenant.mode == CORE_HARVEST_PERIODICAL &&
	    be->ctl.be_slot_len_ns > 0) {
		/* Start only in the span every game waits in, sized to
		 * what is left of it (core/harvest_slot.h). */
		struct core_harvest_slot slot = control_slot(be);
		/* In even pieces of at most periodical_ms (GPU grid's N1):
		 * each is sized anew from the fit, so one that runs long
		 * runs into the games' frames by less (docs/harvesting.md,
		 * "The slot at idle priority"), and together they fill the
		 * slot. */
		double piece = be->opt.periodical_ms * 1e-3;
		if (piece > 0.0 && piece < *w)
			*w = piece;
		*w = core_harvest_slot_piece(&slot, *w);
		double next;
		*w = core_harvest_slot_window(&slot, *w, (double)now * 1e-9,
		                              &next);
		if (!(*w > 0.0)) {
			int64_t at = (int64_t)llround(next * 1e9);
			if (at <= now)
				at = now + 1000; /* rounding: just after */
			*wake = at < now + 10 * BE_STEP_NS
			            ? at
			            : now + 10 * BE_STEP_NS;
			return false;
		}
	}
	return true;
}

/* Under batond: true and the window (s) if a sub-launch may start now,
 * in time (the whole device) or, when time is shut, on the partition
 * (*part; be_space.c); else false and when to look again. The control
 * block counts only once the daemon we registered with has written it
 * (reg_seq). */
static bool daemon_window(struct baton_be *be, int64_t now, double *w,
                          int64_t *wake, bool *part)
{
	struct ipc_control_values v;
	uint32_t seq = atomic_load(&be->shm.control->seq);
	if (seq != be->reg_seq && ipc_control_read(be->shm.control, &v) &&
	    (v.flags & BATON_CONTROL_VALID))
		be->ctl = v, be->ctl_seen = true;
	*wake = now + BE_STEP_NS;
	*part = false;
	be->out_idle = false;
	if (!be->ctl_seen)
		return false;
	if (be->ctl.flags & BATON_CONTROL_BE_IDLE) {
		/* The idle lane: batond wrote no slot, a continuous window
		 * and the lane's budget; the time rules below then run
		 * sub-launches back to back, at idle priority. */
		if (!be_idle_enter(be, now))
			return false; /* re-registering without it */
		be->out_idle = true;
		return temporal_window(be, now, w, wake);
	}
	if (temporal_window(be, now, w, wake))
		return true;
	*part = be_space_window(be, now, w, wake);
	return *part;
}

/* No daemon: GPU grid's loop. The rest first, then a probe (a failed one
 * counts as busy: never continuous on a guess), then the core's mode and
 * window for a GPU no game reports on. */
static bool probe_window(struct baton_be *be, int64_t now, double *w,
                         int64_t *wake)
{
	if (be->rest_until_ns < 0)
		be->rest_until_ns = now + (int64_t)(be->hp_nd.rest_s * 1e9);
	if (now < be->rest_until_ns) {
		*wake = be->rest_until_ns;
		return false;
	}
	bool quiet = false;
	if (be->opt.probe) {
		/* Two probes, the first untimed: after the rest, a real GPU's
		 * first launch is slow on its own (an H100 took 59 us where
		 * alpha, calibrated back to back, was 17 us, and the second
		 * took 12: docs/sdk.md), which read as load on every probe
		 * and never let the loop go continuous. The second is timed
		 * the way alpha was calibrated. */
		int64_t k = be_probe_once(be);
		if (k >= 0)
			k = be_probe_once(be);
		if (k < 0)
			be_log(BE_LOG_PROBE, "the probe failed: counted busy");
		quiet = k >= 0 && k < be->alpha_ns;
	}
	core_harvest_observe(&be->hp_nd, &be->tenant, quiet);
	be->tenant.budget = be->opt.cap > 0.0 ? be->opt.cap : 1.0;
	struct core_harvest_gpu hg = {.eq1_s = -1.0};
	*w = core_harvest_window(&be->hp_nd, &hg, &be->tenant);
	return true;
}

/* n blocks from off cut down to a whole number of be->granule, unless
 * that leaves none or they end the task. A block one work-group on a
 * device of g compute units: 9 groups of 3.5 ms on 2 cores take 5
 * rounds, the last on one core, and a tenth of the sub-launch is lost
 * (cl-hash's long items under the gate, split: 87.7 % of its free rate
 * with no game); 8 take 4, every core busy. */
static uint64_t whole_rounds(const struct baton_be *be, uint64_t off,
                             uint64_t n)
{
	uint64_t g = be->granule;
	if (g < 2 || n <= g || off + n >= be->task.n)
		return n;
	return n - n % g;
}

/* The time a sub-launch given window w is sized to. A periodical one
 * under batond has a game's frame right after its window (the slot ends a
 * margin before a Present) and runs at the games' priority: it is sized
 * so that nine in ten end within w on this machine as it is now (the
 * fit's spread, core/harvest_fit.h), not on average. A fixed margin does
 * not scale: on a slower machine with steal the same sub-launch took 0.5x
 * to 1.6x its mean, and 31 % of the slot's ran over their window by more
 * than a tenth (docs/harvesting.md, "The slot on a slower machine").
 * Continuous mode, the idle lane and a partition meet no frame: w. */
static double planned_window(struct baton_be *be, bool daemon, bool part,
                             double w)
{
	if (!daemon || part || be->out_idle ||
	    be->tenant.mode != CORE_HARVEST_PERIODICAL)
		return w;
	return w / core_harvest_fit_spread(kernel_fit_for(be, part), 0.9);
}

int baton_be_next(baton_be *be, int64_t *offset, int64_t *count)
{
	if (!be || !offset || !count) {
		be_log(BE_LOG_CALL, "baton_be_next: NULL %s",
		       !be ? "handle" : "offset or count");
		return BATON_EINVAL;
	}
	if (!be->in_task || be->outstanding) {
		be_log(BE_LOG_CALL, "baton_be_next: %s",
		       !be->in_task ? "no task begun"
		                    : "the last sub-launch is not reported "
		                      "(baton_be_done)");
		return BATON_ESTATE;
	}
	if (be->task.done >= be->task.n) {
		be->in_task = false;
		return 0;
	}
	int64_t t0 = be_now_ns(), now = t0;
	int64_t deadline =
	    be->opt.max_wait_ms > 0 ? t0 + be->opt.max_wait_ms * 1000000 : 0;
	double w = 0.0;
	bool daemon, part = false;
	for (;;) {
		int64_t wake;
		bool was = be->connected;
		daemon = be_conn_poll(be, now);
		if (daemon != was)
			be->tenant.quiet = 0; /* a new regime: periodical */
		if (daemon ? daemon_window(be, now, &w, &wake, &part)
		           : probe_window(be, now, &w, &wake))
			break;
		if (deadline && wake > deadline) {
			be_sleep_until(deadline);
			be->out_waited_ns = be_now_ns() - t0;
			be->waited_ns += be->out_waited_ns;
			be_log(BE_LOG_WAIT, "no window within %lld ms",
			       (long long)be->opt.max_wait_ms);
			return BATON_ETIMEDOUT;
		}
		be_sleep_until(wake);
		now = be_now_ns();
	}
	/* In time, the whole device: leave a partition we were on. */
	if (!part)
		be_space_enter(be, 0);
	uint64_t off, n;
	if (!daemon)
		be->out_idle = false;
	core_harvest_task_next(&be->task, kernel_fit_for(be, part),
	                       planned_window(be, daemon, part, w), &off, &n);
	n = whole_rounds(be, off, n);
	be->out_part = part;
	now = be_now_ns();
	be->outstanding = true;
	be->out_off = off;
	be->out_count = n;
	be->out_daemon = daemon;
	be->release_ns = now;
	be->out_waited_ns = now - t0;
	be->waited_ns += now - t0;
	be->window_ns = (int64_t)(w * 1e9);
	publish_inflight(be, now, stamp_window_ns(be, part, w, n));
	*offset = (int64_t)off;
	*count = (int64_t)n;
	return 1;
}

/* One BATON_FRAME_BE record (ipc/shm.h): the sub-launch's release, its
 * device time, its wait and its blocks. Pushed whether or not a daemon
 * reads it now: the next one starts at the head. The running totals in
 * the ring header first (release-ordered before the record by the push):
 * batond counts from them, as a tenant launching thousands a second
 * overruns the ring between two of its reads. */
static void push_record(struct baton_be *be, uint64_t count, int64_t t_ns)
{
	int64_t max = IPC_FRAME_MAX_GPU_NS - 1;
	struct baton_ring *r = be->shm.ring;
	atomic_store_explicit(
	    &r->be_blocks_total,
	    atomic_load_explicit(&r->be_blocks_total, memory_order_relaxed) +
	        count,
	    memory_order_relaxed);
	atomic_store_explicit(
	    &r->be_device_ns_total,
	    atomic_load_explicit(&r->be_device_ns_total, memory_order_relaxed) +
	        (uint64_t)(t_ns < max ? t_ns : max),
	    memory_order_relaxed);
	struct baton_frame f = {
	    .present_ns = be->release_ns,
	    .cpu_ns = count < (uint64_t)IPC_FRAME_MAX_CPU_NS
	                  ? (int64_t)count
	                  : IPC_FRAME_MAX_CPU_NS,
	    /* Unbounded for BE records (ring.h): batond spreads a long
	     * wait over the epochs since the last record. */
	    .sleep_ns = be->out_waited_ns,
	    .gpu_ns = t_ns < max ? t_ns : max,
	    /* We are the only producer: the record gets head + 1. */
	    .gpu_frame = atomic_load_explicit(&be->shm.ring->head,
	                                      memory_order_relaxed) +
	                 1,
	    .flags = BATON_FRAME_BE,
	};
	ipc_ring_push(be->shm.ring, be->shm.records, &f);
}

void be_report_unwindowed(struct baton_be *be, int64_t count, int64_t t_ns,
                          int64_t release_ns)
{
	if (!be || count <= 0 || be->outstanding)
		return;
	be->release_ns = release_ns;
	push_record(be, (uint64_t)count, t_ns > 0 ? t_ns : 0);
	be->launches++;
	be->blocks += (uint64_t)count;
}

int baton_be_done(baton_be *be, int64_t offset, int64_t count,
                  int64_t device_ns)
{
	if (!be) {
		be_log(BE_LOG_CALL, "baton_be_done: NULL handle");
		return BATON_EINVAL;
	}
	if (!be->outstanding) {
		be_log(BE_LOG_CALL, "baton_be_done: no sub-launch given");
		return BATON_ESTATE;
	}
	if (offset != (int64_t)be->out_off || count <= 0 ||
	    count > (int64_t)be->out_count) {
		be_log(BE_LOG_CALL,
		       "baton_be_done: offset %lld count %lld, but the "
		       "sub-launch was offset %llu count %llu",
		       (long long)offset, (long long)count,
		       (unsigned long long)be->out_off,
		       (unsigned long long)be->out_count);
		return BATON_EINVAL;
	}
	int64_t now = be_now_ns();
	int64_t t_ns = device_ns >= 0 ? device_ns : now - be->release_ns;
	double t_s = (double)t_ns * 1e-9;
	core_harvest_task_done(&be->task, kernel_fit_for(be, be->out_part),
	                       (uint64_t)count, t_s);
	push_record(be, (uint64_t)count, t_ns);
	publish_inflight(be, 0, 0);
	be->outstanding = false;
	be->launches++;
	be->blocks += (uint64_t)count;
	be->idle_launches += be->out_idle ? 1u : 0u;
	if (be->out_part) {
		/* The partition's units are ours: no rest, and the time
		 * window's rest stays as it was. */
		be->part_launches++;
		return BATON_OK;
	}
	double rest = core_harvest_rest(be->out_daemon ? &be->hp : &be->hp_nd,
	                                &be->tenant, t_s);
	if (be->out_daemon && be->tenant.mode == CORE_HARVEST_PERIODICAL &&
	    !be->out_idle) {
		struct core_harvest_slot slot = control_slot(be);
		rest = core_harvest_slot_rest(&slot, be->tenant.budget, rest);
	}
	if (rest < 0.0) {
		be->rest_until_ns = -1;
		be->rest_epoch = be->ctl.policy_epoch;
	} else {
		be->rest_until_ns = now + (int64_t)(rest * 1e9);
	}
	return BATON_OK;
}

int baton_be_info(const baton_be *be, struct baton_be_info *out)
{
	if (!be || !out) {
		be_log(BE_LOG_CALL, "baton_be_info: NULL %s",
		       !be ? "handle" : "output");
		return BATON_EINVAL;
	}
	if (out->size == 0) {
		be_log(BE_LOG_CALL, "baton_be_info: info.size not set");
		return BATON_EINVAL;
	}
	struct baton_be_info info = {
	    .size = sizeof(info),
	    .connected = be->connected,
	    .continuous = be->tenant.mode == CORE_HARVEST_CONTINUOUS,
	    .alpha_ns = be->alpha_ns,
	    .window_ns = be->window_ns,
	    .launches = be->launches,
	    .blocks = be->blocks,
	    .waited_ns = be->waited_ns,
	    .partition_launches = be->part_launches,
	    .idle_launches = be->idle_launches,
	};
	if (be->kernel)
		core_harvest_fit_coef(&be->kernel->fit, &info.c0_s, &info.c1_s);
	sdk_sized_out(out, &info, sizeof(info));
	return BATON_OK;
}
