/* The control epoch (daemon.h): measurements from the rings, one
 * core_controller_tick, targets into the control blocks.
 *
 * Frames are counted in the epoch in which the daemon reads them, not by
 * present_ns: a record is written after Present returns, so one presented
 * just before a tick can only be read at the next; counting by read time
 * counts every frame exactly once. */
#include "daemon/daemon.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/controller.h"
#include "core/measure.h"
#include "daemon/tick/be_stuck.h"
#include "daemon/tick/tick_account.h"
#include "daemon/tick/tick_harvest.h"
#include "daemon/quality/model_loader.h"
#include "daemon/quality/quality_models.h"
#include "ipc/control.h"
#include "util/log.h"
#include "daemon/tick/target.h"
#include "daemon/tick/tick_publish.h"
#include "daemon/tick/tick_res.h"

#define NS_PER_S 1000000000LL
/* How long after a second ends its late records may still arrive. */
#define SECOND_GRACE_NS (NS_PER_S / 4)
/* EWMA weight of one epoch's GPU share in the reported share. */
#define SHARE_ALPHA 0.2

/* What one epoch's records say about one tenant: a game's measurements
 * for the core (core/measure.h; their gpu_s is what counts of the claim,
 * set by seen_gpu), and what batond does with the rest. */
struct epoch_sample {
	struct core_epoch_sample m;
	double claimed_gpu_s; /* the GPU time the records claim */
	bool software;        /* a record says its GPU time is a software
	                         rasterizer's CPU time (a claim: tenant_seen.h) */
	/* best-effort tenants: work units done and time waited */
	uint64_t units;
	double be_wait_s;
};

/* Counts a record of the wrong kind (shm.h: BATON_FRAME_BE from a game, a
 * frame from a best-effort tenant); logged at most once a second with the
 * count since the last line. */
static void wrong_kind(struct tenant *t, int64_t now)
{
	t->wrong_kind++;
	unsigned held;
	if (!log_gate_take(&t->wrong_kind_log, now, NS_PER_S, &held))
		return;
	/* this record and those held back since the last line */
	log_warn("tenant %llu \"%s\" pid %d: %llu %s dropped (%s)",
	         (unsigned long long)t->id, t->name, (int)t->pid,
	         (unsigned long long)held + 1,
	         t->be ? "frame records" : "best-effort records",
	         t->be ? "a best-effort tenant writes BATON_FRAME_BE only"
	               : "only a best-effort registration writes "
	                 "BATON_FRAME_BE");
}

/* One best-effort record: a sub-launch. Its wait counts at most the time
 * since the tenant's last record (or registration): sleep_ns is not
 * bounded by the ring reader (shm.h). */
static void be_record(struct tenant *t, const struct baton_frame *f,
                      struct epoch_sample *s)
{
	struct tenant_be *b = &t->be_state;
	int64_t since = f->present_ns - b->last_ns;
	int64_t wait = f->sleep_ns < since ? f->sleep_ns : since;
	if (wait > 0)
		s->be_wait_s += (double)wait * 1e-9;
	if (f->present_ns > b->last_ns)
		b->last_ns = f->present_ns;
	s->units += (uint64_t)f->cpu_ns; /* >= 0, < 2^42: no overflow */
}

/* A client that keeps the ring header's totals (shm.h): the tick's work
 * and GPU time are their growth since the last tick, whatever records the
 * ring lost. Read after the ring: every record read has its share in
 * them. Hostile: a total that went backwards counts nothing (and is the
 * new base); the GPU time is bounded downstream (tenant_seen.h), the
 * blocks here as a record's are. */
static void be_totals(struct tenant *t, struct epoch_sample *s)
{
	struct tenant_be *b = &t->be_state;
	uint64_t blocks = atomic_load_explicit(&t->shm.ring->be_blocks_total,
	                                       memory_order_relaxed);
	uint64_t dev = atomic_load_explicit(&t->shm.ring->be_device_ns_total,
	                                    memory_order_relaxed);
	if (blocks == 0 && dev == 0)
		return; /* an older client, or none reported yet: records */
	uint64_t db = blocks >= b->blocks_seen ? blocks - b->blocks_seen : 0;
	uint64_t dd = dev >= b->device_ns_seen ? dev - b->device_ns_seen : 0;
	b->blocks_seen = blocks;
	b->device_ns_seen = dev;
	s->units = db < (uint64_t)IPC_FRAME_MAX_CPU_NS
	               ? db
	               : (uint64_t)IPC_FRAME_MAX_CPU_NS;
	s->claimed_gpu_s = (double)dd * 1e-9;
}

static bool read_ring(struct daemon *d, struct tenant *t, int64_t now,
                      struct epoch_sample *s)
{
	char err[160];
	*s = (struct epoch_sample){0};
	uint64_t lost = t->reader.lost;
	/* At most one ring's worth per tick: a producer faster than
	 * capacity per epoch loses records (counted), never stalls us. */
	ssize_t n = ipc_ring_read(&t->reader, d->frames, BATON_RING_CAPACITY,
	                          now, err, sizeof(err));
	if (n < 0) {
		log_error("tenant %llu \"%s\" pid %d: corrupt ring: %s",
		          (unsigned long long)t->id, t->name, (int)t->pid, err);
		t->corrupt = true;
		return false;
	}
	if (t->reader.lost != lost)
		log_debug("tenant %llu: %llu records lost",
		          (unsigned long long)t->id,
		          (unsigned long long)(t->reader.lost - lost));
	int64_t gpu_ns = 0;
	uint32_t frames = 0;
	for (ssize_t k = 0; k < n; k++) {
		const struct baton_frame *f = &d->frames[k];
		if (((f->flags & BATON_FRAME_BE) != 0) != t->be) {
			wrong_kind(t, now);
			continue;
		}
		frames++;
		if (f->gpu_ns >= 0)
			gpu_ns += f->gpu_ns; /* each < 10 s: no overflow */
		if (f->flags & BATON_FRAME_GPU_SOFTWARE)
			s->software = true;
		if (t->be) {
			be_record(t, f, s);
			continue;
		}
		if (t->last_present_ns > 0) {
			s->m.interval_sum_s +=
			    (double)(f->present_ns - t->last_present_ns) * 1e-9;
			s->m.intervals++;
		}
		t->last_present_ns = f->present_ns;
		stats_add(&t->win, f->present_ns);
		tenant_count_frame(t, f->present_ns);
		/* The wait is the pacer's and the gate's (shm.h gate_us,
		 * at most the wait rounded up to a microsecond). */
		int64_t gate = (int64_t)f->gate_us * 1000;
		if (gate > f->sleep_ns)
			gate = f->sleep_ns;
		int64_t pace = f->sleep_ns - gate;
		if (pace > 0) {
			s->m.paced++;
			s->m.sleep_s += (double)pace * 1e-9;
		}
		s->m.gate_s += (double)gate * 1e-9;
	}
	s->m.frames = frames;
	s->claimed_gpu_s = (double)gpu_ns * 1e-9;
	if (t->be)
		be_totals(t, s);
	return true;
}

/* The game's quality area (daemon/quality/quality.h): declarations once, then
 * the epoch's object counts. A bad declaration is logged once and the game runs
 * on at its default level. */
static void read_quality(struct daemon *d, struct tenant *t)
{
	char err[128];
	enum daemon_quality_event ev =
	    daemon_quality_tick(&t->quality, t->shm.quality, err, sizeof(err));
	if (ev == DAEMON_QUALITY_REJECTED)
		log_warn("tenant %llu \"%s\": %s; its quality stays the "
		         "game's own",
		         (unsigned long long)t->id, t->name, err);
	else if (ev == DAEMON_QUALITY_DECLARED)
		log_info("tenant %llu \"%s\": game \"%s\", %u quality "
		         "levels, %u object types",
		         (unsigned long long)t->id, t->name, t->quality.game_id,
		         t->quality.n_levels, t->quality.n_types);
	if (ev == DAEMON_QUALITY_DECLARED && d->cfg.params.quality_on)
		t->quality.models_wanted = true;
	if (t->quality.models_wanted && d->models) {
		/* Read by the loader thread (model_loader.h), never here; a
		 * full queue is asked again next tick. */
		char who[IPC_NAME_MAX + 32];
		snprintf(who, sizeof(who), "tenant %llu \"%s\"",
		         (unsigned long long)t->id, t->name);
		if (model_loader_request(d->models, t->id, &t->quality, who))
			t->quality.models_wanted = false;
	}
	if (d->cfg.params.quality_on)
		daemon_quality_inputs(&t->quality, &t->core.quality);
}

/* The models the loader thread finished: each to its tenant, if it is
 * still registered (a game that left has its models freed). */
static void take_models(struct daemon *d)
{
	struct model_loader_done done[16];
	unsigned n;
	while (d->models && (n = model_loader_take(d->models, done, 16)) > 0)
		for (unsigned k = 0; k < n; k++) {
			struct tenant *t = NULL;
			for (size_t i = 0; i < d->n_tenants && !t; i++)
				if (d->tenants[i]->id == done[k].tenant_id)
					t = d->tenants[i];
			if (!t || !t->quality.declared) {
				free(done[k].models);
				continue;
			}
			free(t->quality.models);
			t->quality.models = done[k].models;
		}
}

/* The quality stage's level back into what the control block publishes. */
static void take_quality(struct tenant *t)
{
	if (!daemon_quality_take_choice(&t->quality, &t->core.quality))
		return;
	const struct core_quality_tenant *cq = &t->core.quality;
	log_info("tenant %llu \"%s\": quality %s (estimated %.2f ms a "
	         "frame, benefit %.3f)",
	         (unsigned long long)t->id, t->name,
	         t->quality.level_names[cq->level], cq->est_cost * 1e3,
	         cq->est_benefit);
}

/* One GPU's figures for the metrics snapshot. */
static void fill_gpu(const struct daemon *d, const struct daemon_gpu *dg,
                     struct metrics_gpu *m)
{
	const struct core_gpu *g = &dg->gpu;
	*m = (struct metrics_gpu){
	    .util = g->util,
	    .other_util = g->other_util,
	    .sla_util = g->sla_util,
	    .overload = g->overload ? 1.0 : 0.0,
	    .common_fps = g->common_fps,
	    .slot_s = dg->harvest_gpu.slot.len_s,
	    .be_holder = (double)dg->be_holder,
	    .be_hold = (double)dg->harvest_gpu.hold.reason,
	    .space_units = (double)daemon_space_units(d, dg),
	    .space_split = (double)dg->space.split,
	    .space_be_units = (double)dg->space.be_count,
	    .space_switches = (double)dg->space.switches,
	    .total_load = g->caps.total_load,
	    .cap_severe = g->caps.severe ? 1.0 : 0.0,
	    .n_cap_overloaded = (double)g->caps.n_overloaded,
	    .res = dg->res,
	};
	snprintf(m->name, sizeof(m->name), "%s", dg->name);
	snprintf(m->device, sizeof(m->device), "%s", dg->device);
}

static void publish(struct daemon *d, size_t n_snap, size_t n_be)
{
	if (!d->metrics && !d->record)
		return;
	/* Too big for the stack of a tick: the daemon's own copy. */
	struct metrics_snapshot *sp = &d->snapshot;
	*sp = (struct metrics_snapshot){
	    .policy = d->policy->name,
	    .n_gpus = d->n_gpus,
	    .tick_s = d->tick_cost_s,
	    .ticks = d->ticks,
	    .tenants = d->snap,
	    .n = n_snap,
	    .be = d->be_snap,
	    .n_be = n_be,
	};
	for (size_t g = 0; g < d->n_gpus; g++)
		fill_gpu(d, &d->gpus[g], &sp->gpus[g]);
	/* Admission for every configured app profile (cost and SLA), on
	 * every GPU. */
	for (size_t i = 0;
	     i < d->cfg.n_apps && sp->n_profiles < METRICS_MAX_PROFILES; i++) {
		const struct daemon_app *a = &d->cfg.apps[i];
		if (!(a->cost_ms > 0.0))
			continue;
		struct metrics_profile *mp = &sp->profiles[sp->n_profiles++];
		snprintf(mp->name, sizeof(mp->name), "%s", a->name);
		struct core_res_need need = daemon_app_need(a);
		for (size_t g = 0; g < d->n_gpus; g++) {
			struct core_admit adm = daemon_gpu_admit(
			    d, g, a->cost_ms * 1e-3, a->sla_fps, &need);
			mp->admissible[g] = adm.fits ? (double)adm.more : 0.0;
		}
	}
	if (d->metrics && !metrics_publish(d->metrics, sp))
		log_warn("metrics: out of memory, serving the last snapshot");
	/* Past the tick's own cost (tick_s): one copy a wall second. */
	if (d->record) {
		struct timespec wall;
		clock_gettime(CLOCK_REALTIME, &wall);
		record_offer(d->record, sp,
		             (int64_t)wall.tv_sec * 1000000000LL +
		                 wall.tv_nsec);
	}
}

static void fill_snapshot(struct daemon *d, struct tenant *t, int64_t now,
                          struct metrics_tenant *m)
{
	static const double qs[3] = {0.5, 0.9, 0.99};
	if (t->frame_q_ns == 0 || now - t->frame_q_ns >= NS_PER_S) {
		size_t n =
		    stats_intervals(&t->win, now, 2 * NS_PER_S, d->intervals);
		stats_quantiles(d->intervals, n, qs, t->frame_q, 3);
		t->frame_q_ns = now;
	}
	*m = (struct metrics_tenant){
	    .id = t->id,
	    .uid = t->uid,
	    .pid = t->pid,
	    .sla_fps = daemon_tenant_sla(d, t),
	    .target_fps = t->core.target_fps,
	    .fps = stats_fps(&t->win, now, NS_PER_S),
	    .frame_s = {t->frame_q[0], t->frame_q[1], t->frame_q[2]},
	    .below_sla_s = (double)t->below_sla_s,
	    .gpu_share = t->gpu_share,
	    .limited = t->core.limited ? 1.0 : 0.0,
	    .reach_fps = t->core.reach_fps,
	    .cap = t->cap,
	    .budget = t->core.caps.budget,
	    .u = t->core.caps.sampled ? t->core.caps.u : 0.0,
	    .overloaded = t->core.caps.overloaded ? 1.0 : 0.0,
	    .cap_bound = t->core.cap_bound ? 1.0 : 0.0,
	    .has_quality = t->quality.declared,
	    .quality_level = (double)daemon_quality_level(&t->quality),
	    .gpu = (double)t->gpu,
	    .gpu_source = gpu_source_name(t->gpu_source),
	    .res = t->res,
	};
	snprintf(m->name, sizeof(m->name), "%s", t->name);
}

/* Whether GPU g is a CPU device this tick: batond's knowledge of it
 * (daemon_gpu_kind), else whether a tenant on it has its software flag
 * borne out by its CPU time (tenant_seen.h), as of its last epoch. */
static bool cpu_device(const struct daemon *d, size_t g)
{
	switch (daemon_gpu_kind(&d->gpus[g])) {
	case DAEMON_GPU_CPUS:
		return true;
	case DAEMON_GPU_HARDWARE:
		return false;
	case DAEMON_GPU_UNKNOWN:
		break;
	}
	for (size_t i = 0; i < d->n_tenants; i++) {
		const struct tenant *t = d->tenants[i];
		if (!t->corrupt && t->gpu == g && t->seen.software)
			return true;
	}
	return false;
}

/* The epoch's GPU seconds of t that count (tenant_seen.h), and what it
 * claimed, smoothed for status. */
static double seen_gpu(struct tenant *t, const struct epoch_sample *s, bool cpu,
                       double dt)
{
	struct tenant_seen_claim c = {
	    .gpu_s = s->claimed_gpu_s,
	    .records = s->m.frames,
	    .software = s->software,
	    .last_present_ns = t->be ? 0 : t->last_present_ns,
	    .game = !t->be,
	};
	double gpu = tenant_seen_epoch(&t->seen, &c, cpu, dt);
	if (t->seen.unmeasured && !t->seen.unmeasured_logged &&
	    (cpu || s->software)) {
		t->seen.unmeasured_logged = true;
		log_warn("tenant %llu \"%s\" pid %d: its CPU time cannot be "
		         "read; its GPU time counts as none on a CPU device",
		         (unsigned long long)t->id, t->name, (int)t->pid);
	}
	t->seen.claimed_share +=
	    SHARE_ALPHA * (t->seen.claimed_s / dt - t->seen.claimed_share);
	return gpu;
}

/* A best-effort tenant's epoch: its smoothed rates, and its inputs to the
 * harvesting stage. */
static void be_epoch(struct tenant *t, const struct epoch_sample *s, double dt)
{
	struct tenant_be *b = &t->be_state;
	b->units += s->units;
	b->units_s += SHARE_ALPHA * ((double)s->units / dt - b->units_s);
	/* A long wait arrives with the record that ends it: spread over the
	 * epochs after, at most one second a second. */
	b->wait_carry_s += s->be_wait_s;
	double wait = b->wait_carry_s < dt ? b->wait_carry_s : dt;
	b->wait_carry_s -= wait;
	b->wait_ratio += SHARE_ALPHA * (wait / dt - b->wait_ratio);
	b->core.weight = b->weight;
	b->core.cap = t->cap;
	b->core.probe = false; /* batond sees the games: telemetry */
}

/* A game's epoch into the core's inputs (core/measure.h). gpu: its GPU
 * seconds that count (seen_gpu). */
static void take_measures(const struct daemon *d, struct tenant *t,
                          struct epoch_sample *s, double gpu, int64_t now)
{
	struct core_tenant_terms terms = {
	    .sla_fps = daemon_tenant_sla(d, t),
	    .fixed_fps = t->fixed_fps,
	    .cap = t->cap,
	    .work_conserving = t->work_conserving,
	    .work_after_wait = t->work_after_wait,
	    /* ESA bounds each user's share: a user's subordinate uids are
	     * that user (owners.h). */
	    .owner = t->owner,
	};
	s->m.now_ns = now;
	s->m.last_frame_ns = t->last_present_ns;
	s->m.last_present_ns = t->last_present_ns;
	s->m.gpu_s = gpu;
	/* a measurement (gpu_source) or a bounded claim: an epoch that
	 * counted nothing is a sample of 0 */
	s->m.gpu_bounded = t->gpu_source != GPU_SOURCE_SHIM ||
	                   t->seen.seen_s < t->seen.claimed_s;
	core_tenant_measure(&t->core, &terms, &s->m);
}

/* One GPU's controller (gpus.h): its tenants into the core's array, the
 * core tick on its state, the decisions back into their control blocks.
 * busy and be_busy: its tenants' GPU seconds this epoch. */
static void tick_gpu(struct daemon *d, size_t g, int64_t now, double dt,
                     double busy, double be_busy, bool software)
{
	struct daemon_gpu *dg = &d->gpus[g];
	size_t n = 0;
	for (size_t i = 0; i < d->n_tenants; i++) {
		struct tenant *t = d->tenants[i];
		if (!t->corrupt && !t->be && t->gpu == g)
			d->core[n++] = t->core; /* the core wants one array */
	}
	dg->gpu.util = fmin(busy / dt, 1.0);
	tick_update_other_util(d, g, software, fmin((busy + be_busy) / dt, 1.0),
	                       dt);
	dg->gpu.caps.owner_caps = d->cfg.user_caps;
	dg->gpu.caps.n_owner_caps = d->cfg.n_user_caps;
	bool severe = dg->gpu.caps.severe;
	daemon_harvest_gather(d, g, now, dt, software);
	uint64_t switches = dg->space.switches;
	uint64_t releases = dg->space.releases;
	core_controller_tick(d->policy, &d->cfg.params, &dg->gpu, d->core, n);
	if (dg->space.switches != switches || dg->space.releases != releases)
		daemon_space_log(d, dg);
	if (!software)
		daemon_mps_tick(d->cfg.mps_control, &dg->mps, dg->name,
		                dg->space.be_count, daemon_space_units(d, dg),
		                now);
	if (dg->gpu.caps.severe != severe) {
		if (dg->gpu.caps.severe)
			log_warn("%s: %u tenants overloaded: not advertising "
			         "capacity (total load %.2f)",
			         dg->name, (unsigned)dg->gpu.caps.n_overloaded,
			         dg->gpu.caps.total_load);
		else
			log_info("%s: at most one tenant overloaded: "
			         "advertising capacity again",
			         dg->name);
	}
	daemon_harvest_apply(d, g);

	const struct core_harvest_hold *hold = &dg->harvest_gpu.hold;
	bool held = hold->reason != CORE_HARVEST_OPEN &&
	            hold->reason != CORE_HARVEST_HOLD_OTHER;
	dg->be_holder = 0;
	size_t k = 0;
	for (size_t i = 0; i < d->n_tenants; i++) {
		struct tenant *t = d->tenants[i];
		if (t->corrupt || t->be || t->gpu != g)
			continue;
		if (held && hold->game == k)
			dg->be_holder = t->id; /* the core's index, as an id */
		bool was = t->core.caps.overloaded;
		t->core = d->core[k++];
		take_quality(t);
		if (t->core.caps.overloaded && !was)
			log_info("tenant %llu \"%s\" overloaded: u %.2f of its "
			         "cap %.3f (budget %.3f), %.1f FPS",
			         (unsigned long long)t->id, t->name,
			         t->core.caps.u, t->cap, t->core.caps.budget,
			         t->core.caps.fps);
		daemon_write_target(t, d->ticks, d->gpus[t->gpu].space.split);
		tenant_close_seconds(t, daemon_tenant_sla(d, t), now,
		                     SECOND_GRACE_NS);
	}
}

void daemon_tick(struct daemon *d, int64_t now)
{
	int64_t t0 = daemon_now_ns();
	int64_t epoch_ns = (int64_t)d->cfg.epoch_ms * 1000000LL;
	/* The real length of this epoch: the timer may fire late. */
	int64_t dt_ns = d->last_tick_ns > 0 ? now - d->last_tick_ns : epoch_ns;
	if (dt_ns < 1000000)
		dt_ns = 1000000;
	double dt = (double)dt_ns * 1e-9;

	/* On llvmpipe (and any GPU without a usable counter) there is no
	 * hardware utilisation to read: a GPU's busy fraction is the sum of
	 * the GPU time its tenants report, as far as batond sees it
	 * (tenant_seen.h), clamped to one GPU. Whether a GPU is a CPU
	 * device is batond's decision (cpu_device), not a record's. The
	 * best-effort tenants' time is apart (be_busy): it is the idle time
	 * they harvest, so it is in no policy's or the capacity stage's
	 * load (util), and, being reported, not in other_util either. */
	double busy[DAEMON_MAX_GPUS] = {0}, be_busy[DAEMON_MAX_GPUS] = {0};
	bool software[DAEMON_MAX_GPUS] = {0};
	for (size_t g = 0; g < d->n_gpus; g++)
		software[g] = cpu_device(d, g);
	size_t n = 0;
	unsigned scans = GPU_ACCOUNT_SCANS_PER_TICK;
	take_models(d);
	for (size_t i = 0; i < d->n_tenants; i++) {
		struct tenant *t = d->tenants[i];
		struct epoch_sample s;
		if (t->corrupt || !read_ring(d, t, now, &s))
			continue;
		unsigned g = t->gpu < d->n_gpus ? t->gpu : 0;
		double gpu = seen_gpu(t, &s, software[g], dt);
		if (t->be) {
			t->gpu_share += SHARE_ALPHA * (gpu / dt - t->gpu_share);
			be_busy[g] += gpu;
			be_epoch(t, &s, dt);
			continue;
		}
		gpu = tick_account_gpu(d, t, gpu, software[g], now, dt, &scans);
		g = t->gpu; /* its DRM clients may have placed it */
		t->gpu_share += SHARE_ALPHA * (gpu / dt - t->gpu_share);
		busy[g] += gpu;
		n++;
		read_quality(d, t);
		take_measures(d, t, &s, gpu, now);
	}
	/* Counted first: the control blocks this tick writes carry it. */
	d->ticks++;
	for (size_t g = 0; g < d->n_gpus; g++)
		tick_gpu(d, g, now, dt, busy[g], be_busy[g], software[g]);
	d->last_tick_ns = now;
	daemon_res_tick(d, now, dt);

	size_t n_be = 0;
	if (d->metrics || d->record)
		for (size_t i = 0, j = 0; i < d->n_tenants; i++) {
			struct tenant *t = d->tenants[i];
			if (t->corrupt)
				continue;
			if (t->be)
				daemon_fill_be_snapshot(d, t,
				                        &d->be_snap[n_be++]);
			else
				fill_snapshot(d, t, now, &d->snap[j++]);
		}
	d->tick_cost_s = (double)(daemon_now_ns() - t0) * 1e-9;
	publish(d, n, n_be);
	publish_offer(d);
}
