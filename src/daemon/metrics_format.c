/* Prometheus text exposition format 0.0.4 for one snapshot (metrics.h). */
#include "daemon/metrics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A growing string; once an allocation fails it stays failed. */
struct buf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void put(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	if (b->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap * 2 + (size_t)n;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->failed = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

/* Label values escape backslash, double quote and newline; other control
 * bytes (a tenant names itself) become '?', so that no name can break a
 * line or a parser. */
static void put_label(struct buf *b, const char *v)
{
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;
		if (c == '\\')
			put(b, "\\\\");
		else if (c == '"')
			put(b, "\\\"");
		else if (c == '\n')
			put(b, "\\n");
		else if (c < 0x20 || c == 0x7f)
			put(b, "?");
		else
			put(b, "%c", c);
	}
}

static void header(struct buf *b, const char *name, const char *type,
                   const char *help)
{
	put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* {id="7",uid="1000"}, and name and pid where the config shows them (the
 * closing brace is the caller's). */
static void tenant_labels(struct buf *b, const struct metrics_snapshot *s,
                          const struct metrics_tenant *t)
{
	put(b, "{id=\"%" PRIu64 "\",uid=\"%u\"", t->id, (unsigned)t->uid);
	if (!s->names)
		return;
	put(b, ",name=\"");
	put_label(b, t->name);
	put(b, "\",pid=\"%d\"", (int)t->pid);
}

/* One line per tenant of a plain per-tenant value. */
static void per_tenant(struct buf *b, const struct metrics_snapshot *s,
                       const char *name, const char *type, const char *help,
                       size_t offset)
{
	header(b, name, type, help);
	for (size_t i = 0; i < s->n; i++) {
		const struct metrics_tenant *t = &s->tenants[i];
		double v = *(const double *)((const char *)t + offset);
		put(b, "%s", name);
		tenant_labels(b, s, t);
		put(b, "} %.9g\n", v);
	}
}

/* One line per best-effort tenant, labelled as games are. */
static void per_be(struct buf *b, const struct metrics_snapshot *s,
                   const char *name, const char *help, size_t offset)
{
	header(b, name, "gauge", help);
	for (size_t i = 0; i < s->n_be; i++) {
		const struct metrics_be *t = &s->be[i];
		double v = *(const double *)((const char *)t + offset);
		put(b, "%s{id=\"%" PRIu64 "\",uid=\"%u\"", name, t->id,
		    (unsigned)t->uid);
		if (s->names) {
			put(b, ",name=\"");
			put_label(b, t->name);
			put(b, "\",pid=\"%d\"", (int)t->pid);
		}
		put(b, "} %.9g\n", v);
	}
}

/* The best-effort tenants' families (docs/harvesting.md). */
static void be_families(struct buf *b, const struct metrics_snapshot *s)
{
	per_be(b, s, "baton_be_work_units_per_second",
	       "Work units (blocks) a best-effort tenant completes per "
	       "second (smoothed).",
	       offsetof(struct metrics_be, units_s));
	per_be(b, s, "baton_be_gpu_share",
	       "Fraction of the GPU a best-effort tenant used (smoothed).",
	       offsetof(struct metrics_be, gpu_share));
	per_be(b, s, "baton_be_wait_ratio",
	       "Seconds a best-effort tenant waited for a window or its "
	       "budget per second (smoothed).",
	       offsetof(struct metrics_be, wait_ratio));
	per_be(b, s, "baton_be_gpu",
	       "The index of the GPU a best-effort tenant runs on.",
	       offsetof(struct metrics_be, gpu));
	per_be(b, s, "baton_be_budget",
	       "GPU seconds per second a best-effort tenant may use: the "
	       "share the paced tenants leave, less a margin, split by weight "
	       "within "
	       "caps.",
	       offsetof(struct metrics_be, budget));
	per_be(b, s, "baton_be_window_seconds",
	       "Longest sub-launch a best-effort tenant may start now (GPU "
	       "grid's Eq. 1 over the paced tenants; 0 = wait).",
	       offsetof(struct metrics_be, window_s));
	per_be(b, s, "baton_be_continuous",
	       "1 while a best-effort tenant is in continuous mode (no paced "
	       "tenant "
	       "presented a frame for enter_quiet ticks).",
	       offsetof(struct metrics_be, continuous));
	per_be(b, s, "baton_be_stuck",
	       "1 while a best-effort tenant's sub-launch has run past "
	       "max(stuck_factor x its window, its window + stuck_ms): a hung "
	       "kernel. It gets no budget and every best-effort window stays "
	       "shut until it reports.",
	       offsetof(struct metrics_be, stuck));
	per_be(b, s, "baton_be_idle_lane",
	       "1 while a best-effort tenant is in the idle-priority lane: "
	       "its device is this host's CPUs and its threads run at "
	       "SCHED_IDLE, sub-launches back to back (harvest idle_lane).",
	       offsetof(struct metrics_be, idle));
}

/* One gauge per GPU (one controller each, daemon/gpus.h), labelled with
 * its index: a figure of struct metrics_gpu at offset. */
static void gpu_gauge(struct buf *b, const struct metrics_snapshot *s,
                      const char *name, const char *help, size_t offset)
{
	header(b, name, "gauge", help);
	for (size_t g = 0; g < s->n_gpus; g++) {
		double v =
		    *(const double *)((const char *)&s->gpus[g] + offset);
		put(b, "%s{gpu=\"%zu\"} %.9g\n", name, g, v);
	}
}

#define GPU_FIELD(f) offsetof(struct metrics_gpu, f)

char *metrics_format(const struct metrics_snapshot *s, size_t *len)
{
	struct buf b = {.cap = 4096};
	b.s = malloc(b.cap);
	if (!b.s)
		return NULL;
	b.s[0] = '\0';

	per_tenant(&b, s, "baton_tenant_target_fps", "gauge",
	           "Pacing target the daemon gives the tenant (0 = unpaced).",
	           offsetof(struct metrics_tenant, target_fps));
	per_tenant(&b, s, "baton_tenant_fps", "gauge",
	           "Frames per second over the last second.",
	           offsetof(struct metrics_tenant, fps));

	static const char *const quantiles[3] = {"0.5", "0.9", "0.99"};
	header(&b, "baton_tenant_frame_time_seconds", "summary",
	       "Frame time (present to present) over the last two seconds.");
	for (size_t i = 0; i < s->n; i++) {
		for (size_t q = 0; q < 3; q++) {
			put(&b, "baton_tenant_frame_time_seconds");
			tenant_labels(&b, s, &s->tenants[i]);
			put(&b, ",quantile=\"%s\"} %.9g\n", quantiles[q],
			    s->tenants[i].frame_s[q]);
		}
	}
	per_tenant(&b, s, "baton_tenant_below_sla_seconds_total", "counter",
	           "Whole seconds in which the tenant presented fewer frames "
	           "than its SLA.",
	           offsetof(struct metrics_tenant, below_sla_s));
	per_tenant(&b, s, "baton_tenant_gpu_share", "gauge",
	           "Fraction of the GPU the tenant used (smoothed).",
	           offsetof(struct metrics_tenant, gpu_share));
	per_tenant(&b, s, "baton_tenant_limited", "gauge",
	           "1 while the tenant cannot reach its reference (SLA, pinned "
	           "or common rate): something other than the pacer limits "
	           "it.",
	           offsetof(struct metrics_tenant, limited));
	per_tenant(
	    &b, s, "baton_tenant_reach_fps", "gauge",
	    "The rate the tenant could run at were its pacer not holding "
	    "it back (smoothed; 0 = unknown).",
	    offsetof(struct metrics_tenant, reach_fps));

	per_tenant(&b, s, "baton_tenant_cap", "gauge",
	           "Published GPU cap: GPU seconds per second (0 = none).",
	           offsetof(struct metrics_tenant, cap));
	per_tenant(&b, s, "baton_tenant_cap_budget", "gauge",
	           "The cap the tenant's gate enforces now: its dynamic cap "
	           "within its user's cap (0 = none).",
	           offsetof(struct metrics_tenant, budget));
	per_tenant(&b, s, "baton_tenant_cap_utilization", "gauge",
	           "GPU busy time over the budget in the last capacity "
	           "period (u_i).",
	           offsetof(struct metrics_tenant, u));
	per_tenant(&b, s, "baton_tenant_overloaded", "gauge",
	           "1 while the capacity stage finds the tenant overloaded "
	           "(u over U_o for cap_run periods within cap_qos_margin of "
	           "its SLA, or FPS under its SLA).",
	           offsetof(struct metrics_tenant, overloaded));
	per_tenant(&b, s, "baton_tenant_cap_bound", "gauge",
	           "1 while the tenant's budget gate (its cap), not the "
	           "pacer or the machine, holds its frames back.",
	           offsetof(struct metrics_tenant, cap_bound));

	/* Only games that declared quality levels (baton.h) have one. */
	header(&b, "baton_tenant_quality_level", "gauge",
	       "Quality level the tenant draws at: batond's pin or choice, "
	       "else the tenant's default (0 = cheapest; tenants that "
	       "declared quality levels only).");
	for (size_t i = 0; i < s->n; i++) {
		const struct metrics_tenant *t = &s->tenants[i];
		if (!t->has_quality)
			continue;
		put(&b, "baton_tenant_quality_level");
		tenant_labels(&b, s, t);
		put(&b, "} %.9g\n", t->quality_level);
	}

	per_tenant(&b, s, "baton_tenant_gpu", "gauge",
	           "The index of the GPU the tenant renders on (the gpu label "
	           "of the GPU families; baton_gpu_info names it).",
	           offsetof(struct metrics_tenant, gpu));
	be_families(&b, s);

	gpu_gauge(&b, s, "baton_gpu_utilization",
	          "GPU busy fraction: the sum of the paced tenants' reported "
	          "GPU time "
	          "per epoch (best-effort tenants' apart: baton_be_gpu_share).",
	          GPU_FIELD(util));
	gpu_gauge(&b, s, "baton_gpu_other_utilization",
	          "Busy fraction of the device taken by work no tenant reports "
	          "(software rasterizers: the host CPUs' load beyond the "
	          "tenants', steal included; smoothed). ESA leaves it out of "
	          "its budget.",
	          GPU_FIELD(other_util));
	gpu_gauge(
	    &b, s, "baton_gpu_sla_utilization",
	    "Busy fraction the tenants need at their SLAs (pinned ones at "
	    "their pinned rate), other load included; 0 = unknown.",
	    GPU_FIELD(sla_util));
	gpu_gauge(&b, s, "baton_gpu_overload",
	          "1 while the tenants at their SLAs need more of the GPU than "
	          "the utilization target: not every tenant can be held at its "
	          "SLA.",
	          GPU_FIELD(overload));
	gpu_gauge(&b, s, "baton_gpu_common_fps",
	          "ESA's common reference frame rate (0 under other policies).",
	          GPU_FIELD(common_fps));
	gpu_gauge(&b, s, "baton_harvest_slot_seconds",
	          "Length of the span of each frame period in which every "
	          "paced tenant waits before Present, where best-effort "
	          "sub-launches start in periodical mode; 0 = none (the "
	          "window alone decides).",
	          GPU_FIELD(slot_s));
	gpu_gauge(&b, s, "baton_harvest_held_by",
	          "The id (as in baton status) of the paced tenant whose "
	          "frames shut the best-effort windows this tick; 0 = none.",
	          GPU_FIELD(be_holder));
	gpu_gauge(&b, s, "baton_harvest_hold_reason",
	          "Why the best-effort windows are shut: 0 open, 1 a paced "
	          "tenant's GPU cost not known yet, 2 a paced tenant's frame "
	          "period left nothing after the paced tenants' GPU time, 3 "
	          "their load left no budget, 4 load no tenant reports left "
	          "none.",
	          GPU_FIELD(be_hold));
	gpu_gauge(
	    &b, s, "baton_space_units",
	    "Compute units space harvesting divides between the paced "
	    "tenants and best-effort ones (harvest.space_units); 0 = off.",
	    GPU_FIELD(space_units));
	gpu_gauge(&b, s, "baton_space_split",
	          "Units the paced tenants render on, from the first (COMBO's "
	          "integrated scheme, Eq. 5); 0 = the whole device (temporal "
	          "sharing only).",
	          GPU_FIELD(space_split));
	gpu_gauge(
	    &b, s, "baton_space_be_units",
	    "Units best-effort tenants own beside the paced tenants' (the "
	    "rest of the device); 0 = none this tick.",
	    GPU_FIELD(space_be_units));
	gpu_gauge(&b, s, "baton_space_switches",
	          "Changes between the integrated and the temporal scheme so "
	          "far.",
	          GPU_FIELD(space_switches));
	gpu_gauge(&b, s, "baton_gpu_total_load",
	          "Total load of the last capacity period (the tenants' busy "
	          "time over the period plus other load, or the measured "
	          "utilization, whichever is larger).",
	          GPU_FIELD(total_load));
	gpu_gauge(&b, s, "baton_gpu_overloaded_tenants",
	          "Tenants the capacity stage found overloaded in the last "
	          "period.",
	          GPU_FIELD(n_cap_overloaded));
	gpu_gauge(&b, s, "baton_gpu_capacity_severe",
	          "1 while more than one tenant is overloaded: batond does not "
	          "advertise capacity.",
	          GPU_FIELD(cap_severe));
	header(&b, "baton_admissible_sessions", "gauge",
	       "How many more sessions of a configured app profile fit now "
	       "(baton capacity --profile).");
	for (size_t i = 0; i < s->n_profiles; i++)
		for (size_t g = 0; g < s->n_gpus; g++) {
			put(&b,
			    "baton_admissible_sessions{gpu=\"%zu\",profile=\"",
			    g);
			put_label(&b, s->profiles[i].name);
			put(&b, "\"} %.9g\n", s->profiles[i].admissible[g]);
		}
	header(&b, "baton_node_admissible_sessions", "gauge",
	       "How many more sessions of a configured app profile fit on "
	       "this node: the sum over its GPUs.");
	for (size_t i = 0; i < s->n_profiles; i++) {
		double sum = 0.0;
		for (size_t g = 0; g < s->n_gpus; g++)
			sum += s->profiles[i].admissible[g];
		put(&b, "baton_node_admissible_sessions{profile=\"");
		put_label(&b, s->profiles[i].name);
		put(&b, "\"} %.9g\n", sum);
	}
	header(&b, "baton_gpu_info", "gauge",
	       "Each GPU batond runs a controller for: its index (the gpu "
	       "label of the other families), its name (gpu_id) and device.");
	for (size_t g = 0; g < s->n_gpus; g++) {
		put(&b, "baton_gpu_info{gpu=\"%zu\",gpu_id=\"", g);
		put_label(&b, s->gpus[g].name);
		put(&b, "\",device=\"");
		put_label(&b, s->gpus[g].device);
		put(&b, "\"} 1\n");
	}
	header(&b, "baton_policy_info", "gauge", "The pacing policy in force.");
	put(&b, "baton_policy_info{policy=\"");
	put_label(&b, s->policy);
	put(&b, "\"} 1\n");
	header(&b, "baton_daemon_tick_seconds", "gauge",
	       "Wall time of the last control tick.");
	put(&b, "baton_daemon_tick_seconds %.9g\n", s->tick_s);
	header(&b, "baton_daemon_ticks_total", "counter",
	       "Control ticks since batond started.");
	put(&b, "baton_daemon_ticks_total %llu\n",
	    (unsigned long long)s->ticks);

	if (b.failed) {
		free(b.s);
		return NULL;
	}
	*len = b.len;
	return b.s;
}
