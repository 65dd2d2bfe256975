/* Prometheus text exposition format 0.0.4 for one snapshot (metrics.h). */
#include "daemon/report/metrics.h"

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
                       const char *name, size_t offset)
{
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
                   const char *name, size_t offset)
{
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

/* One line per GPU (one controller each, daemon/gpus.h), labelled with
 * its index: a figure of struct metrics_gpu at offset. */
static void per_gpu(struct buf *b, const struct metrics_snapshot *s,
                    const char *name, size_t offset)
{
	for (size_t g = 0; g < s->n_gpus; g++) {
		double v =
		    *(const double *)((const char *)&s->gpus[g] + offset);
		put(b, "%s{gpu=\"%zu\"} %.9g\n", name, g, v);
	}
}

#define TENANT_FIELD(f) offsetof(struct metrics_tenant, f)
#define BE_FIELD(f)     offsetof(struct metrics_be, f)
#define GPU_FIELD(f)    offsetof(struct metrics_gpu, f)

/* The frame-time summary: three quantile lines per tenant. */
static void frame_time_lines(struct buf *b, const struct metrics_snapshot *s,
                             const char *name)
{
	static const char *const quantiles[3] = {"0.5", "0.9", "0.99"};
	for (size_t i = 0; i < s->n; i++) {
		for (size_t q = 0; q < 3; q++) {
			put(b, "%s", name);
			tenant_labels(b, s, &s->tenants[i]);
			put(b, ",quantile=\"%s\"} %.9g\n", quantiles[q],
			    s->tenants[i].frame_s[q]);
		}
	}
}

/* One line a tenant, its source in a label (gpu_account.h). */
static void gpu_source_lines(struct buf *b, const struct metrics_snapshot *s,
                             const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct metrics_tenant *t = &s->tenants[i];
		put(b, "%s", name);
		tenant_labels(b, s, t);
		put(b, ",source=\"%s\"} 1\n",
		    t->gpu_source ? t->gpu_source : "shim");
	}
}

/* Only games that declared quality levels (baton.h) have one. */
static void quality_lines(struct buf *b, const struct metrics_snapshot *s,
                          const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct metrics_tenant *t = &s->tenants[i];
		if (!t->has_quality)
			continue;
		put(b, "%s", name);
		tenant_labels(b, s, t);
		put(b, "} %.9g\n", t->quality_level);
	}
}

static void admissible_lines(struct buf *b, const struct metrics_snapshot *s,
                             const char *name)
{
	for (size_t i = 0; i < s->n_profiles; i++)
		for (size_t g = 0; g < s->n_gpus; g++) {
			put(b, "%s{gpu=\"%zu\",profile=\"", name, g);
			put_label(b, s->profiles[i].name);
			put(b, "\"} %.9g\n", s->profiles[i].admissible[g]);
		}
}

static void node_admissible_lines(struct buf *b,
                                  const struct metrics_snapshot *s,
                                  const char *name)
{
	for (size_t i = 0; i < s->n_profiles; i++) {
		double sum = 0.0;
		for (size_t g = 0; g < s->n_gpus; g++)
			sum += s->profiles[i].admissible[g];
		put(b, "%s{profile=\"", name);
		put_label(b, s->profiles[i].name);
		put(b, "\"} %.9g\n", sum);
	}
}

static void gpu_info_lines(struct buf *b, const struct metrics_snapshot *s,
                           const char *name)
{
	for (size_t g = 0; g < s->n_gpus; g++) {
		put(b, "%s{gpu=\"%zu\",gpu_id=\"", name, g);
		put_label(b, s->gpus[g].name);
		put(b, "\",device=\"");
		put_label(b, s->gpus[g].device);
		put(b, "\"} 1\n");
	}
}

static void policy_lines(struct buf *b, const struct metrics_snapshot *s,
                         const char *name)
{
	put(b, "%s{policy=\"", name);
	put_label(b, s->policy);
	put(b, "\"} 1\n");
}

static void tick_lines(struct buf *b, const struct metrics_snapshot *s,
                       const char *name)
{
	put(b, "%s %.9g\n", name, s->tick_s);
}

static void ticks_lines(struct buf *b, const struct metrics_snapshot *s,
                        const char *name)
{
	put(b, "%s %llu\n", name, (unsigned long long)s->ticks);
}

/* How a family's lines are drawn from the snapshot. */
enum family_kind {
	PER_TENANT, /* a double of struct metrics_tenant at offset */
	PER_BE,     /* a double of struct metrics_be at offset */
	PER_GPU,    /* a double of struct metrics_gpu at offset */
	CUSTOM,     /* lines() writes them */
};

/* Video memory in bytes (gpu_res.h): one line a tenant. */
static void tenant_vram_lines(struct buf *b, const struct metrics_snapshot *s,
                              const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		put(b, "%s", name);
		tenant_labels(b, s, &s->tenants[i]);
		put(b, "} %" PRIu64 "\n", s->tenants[i].res.vram_bytes);
	}
}

/* A GPU's VRAM in bytes, total (when known) and used, a line each. */
static void gpu_vram_lines(struct buf *b, const struct metrics_snapshot *s,
                           const char *name)
{
	for (size_t g = 0; g < s->n_gpus; g++) {
		const struct core_res_gpu *r = &s->gpus[g].res.core;
		if (r->vram_total)
			put(b, "%s{gpu=\"%zu\",kind=\"total\"} %" PRIu64 "\n",
			    name, g, r->vram_total);
		put(b, "%s{gpu=\"%zu\",kind=\"used\"} %" PRIu64 "\n", name, g,
		    r->vram_used);
	}
}

struct family {
	const char *name;
	const char *type; /* "gauge", "counter" or "summary" */
	const char *help;
	enum family_kind kind;
	size_t offset;
	void (*lines)(struct buf *b, const struct metrics_snapshot *s,
	              const char *name);
};

#define TENANT(n, t, h, f)                                                     \
	{                                                                      \
		n, t, h, PER_TENANT, TENANT_FIELD(f), NULL                     \
	}
#define BE(n, h, f)                                                            \
	{                                                                      \
		n, "gauge", h, PER_BE, BE_FIELD(f), NULL                       \
	}
#define GPU(n, h, f)                                                           \
	{                                                                      \
		n, "gauge", h, PER_GPU, GPU_FIELD(f), NULL                     \
	}
#define LINES(n, t, h, fn)                                                     \
	{                                                                      \
		n, t, h, CUSTOM, 0, fn                                         \
	}

/* Every family, in the order they are written. */
static const struct family families[] = {
    TENANT("baton_tenant_target_fps", "gauge",
           "Pacing target the daemon gives the tenant (0 = unpaced).",
           target_fps),
    TENANT("baton_tenant_fps", "gauge",
           "Frames per second over the last second.", fps),
    LINES("baton_tenant_frame_time_seconds", "summary",
          "Frame time (present to present) over the last two seconds.",
          frame_time_lines),
    TENANT("baton_tenant_below_sla_seconds_total", "counter",
           "Whole seconds in which the tenant presented fewer frames "
           "than its SLA.",
           below_sla_s),
    TENANT("baton_tenant_gpu_share", "gauge",
           "Fraction of the GPU the tenant used (smoothed).", gpu_share),
    TENANT("baton_tenant_limited", "gauge",
           "1 while the tenant cannot reach its reference (SLA, pinned "
           "or common rate): something other than the pacer limits "
           "it.",
           limited),
    TENANT("baton_tenant_reach_fps", "gauge",
           "The rate the tenant could run at were its pacer not holding "
           "it back (smoothed; 0 = unknown).",
           reach_fps),
    TENANT("baton_tenant_cap", "gauge",
           "Published GPU cap: GPU seconds per second (0 = none).", cap),
    TENANT("baton_tenant_cap_budget", "gauge",
           "The cap the tenant's gate enforces now: its dynamic cap "
           "within its user's cap (0 = none).",
           budget),
    TENANT("baton_tenant_cap_utilization", "gauge",
           "GPU busy time over the budget in the last capacity "
           "period (u_i).",
           u),
    TENANT("baton_tenant_overloaded", "gauge",
           "1 while the capacity stage finds the tenant overloaded "
           "(u over U_o for cap_run periods within cap_qos_margin of "
           "its SLA, or FPS under its SLA).",
           overloaded),
    TENANT("baton_tenant_cap_bound", "gauge",
           "1 while the tenant's budget gate (its cap), not the "
           "pacer or the machine, holds its frames back.",
           cap_bound),
    LINES("baton_tenant_quality_level", "gauge",
          "Quality level the tenant draws at: batond's pin or choice, "
          "else the tenant's default (0 = cheapest; tenants that "
          "declared quality levels only).",
          quality_lines),
    LINES("baton_tenant_gpu_source_info", "gauge",
          "Where the tenant's GPU time came from (source: fdinfo, the "
          "kernel's count of its DRM clients; nvml, NVML's count of its "
          "process; cpu, its process's CPU "
          "time on a software rasterizer; shim, its shim's timers); "
          "always 1.",
          gpu_source_lines),
    TENANT("baton_tenant_gpu", "gauge",
           "The index of the GPU the tenant renders on (the gpu label "
           "of the GPU families; baton_gpu_info names it).",
           gpu),
    TENANT("baton_tenant_video_share", "gauge",
           "Fraction of its GPU's video engines (encode, decode) the "
           "tenant kept busy (smoothed; its DRM clients' count, else its "
           "share of NVML's encoder sessions).",
           res.video_share),
    LINES("baton_tenant_vram_bytes", "gauge",
          "Video memory resident for the tenant's DRM clients.",
          tenant_vram_lines),
    /* The best-effort tenants' families (docs/harvesting.md). */
    BE("baton_be_work_units_per_second",
       "Work units (blocks) a best-effort tenant completes per "
       "second (smoothed).",
       units_s),
    BE("baton_be_gpu_share",
       "Fraction of the GPU a best-effort tenant used (smoothed).", gpu_share),
    BE("baton_be_wait_ratio",
       "Seconds a best-effort tenant waited for a window or its "
       "budget per second (smoothed).",
       wait_ratio),
    BE("baton_be_gpu", "The index of the GPU a best-effort tenant runs on.",
       gpu),
    BE("baton_be_budget",
       "GPU seconds per second a best-effort tenant may use: the "
       "share the paced tenants leave, less a margin, split by weight "
       "within caps.",
       budget),
    BE("baton_be_window_seconds",
       "Longest sub-launch a best-effort tenant may start now (GPU "
       "grid's Eq. 1 over the paced tenants; 0 = wait).",
       window_s),
    BE("baton_be_continuous",
       "1 while a best-effort tenant is in continuous mode (no paced "
       "tenant presented a frame for enter_quiet ticks).",
       continuous),
    BE("baton_be_stuck",
       "1 while a best-effort tenant's sub-launch has run past "
       "max(stuck_factor x its window, its window + stuck_ms): a hung "
       "kernel. It gets no budget and every best-effort window stays "
       "shut until it reports.",
       stuck),
    BE("baton_be_idle_lane",
       "1 while a best-effort tenant is in the idle-priority lane: "
       "its device is this host's CPUs and its threads run at "
       "SCHED_IDLE, sub-launches back to back (harvest idle_lane).",
       idle),
    /* One controller per GPU (daemon/gpus.h). */
    GPU("baton_gpu_utilization",
        "GPU busy fraction: the sum of the paced tenants' reported "
        "GPU time per epoch (best-effort tenants' apart: "
        "baton_be_gpu_share).",
        util),
    GPU("baton_gpu_other_utilization",
        "Busy fraction of the device taken by work no tenant reports "
        "(software rasterizers: the host CPUs' load beyond the "
        "tenants', steal included; smoothed). ESA leaves it out of "
        "its budget.",
        other_util),
    GPU("baton_gpu_sla_utilization",
        "Busy fraction the tenants need at their SLAs (pinned ones at "
        "their pinned rate), other load included; 0 = unknown.",
        sla_util),
    GPU("baton_gpu_overload",
        "1 while the tenants at their SLAs need more of the GPU than "
        "the utilization target: not every tenant can be held at its "
        "SLA.",
        overload),
    GPU("baton_gpu_common_fps",
        "ESA's common reference frame rate (0 under other policies).",
        common_fps),
    GPU("baton_harvest_slot_seconds",
        "Length of the span of each frame period in which every "
        "paced tenant waits before Present, where best-effort "
        "sub-launches start in periodical mode; 0 = none (the "
        "window alone decides).",
        slot_s),
    GPU("baton_harvest_held_by",
        "The id (as in baton status) of the paced tenant whose "
        "frames shut the best-effort windows this tick; 0 = none.",
        be_holder),
    GPU("baton_harvest_hold_reason",
        "Why the best-effort windows are shut: 0 open, 1 a paced "
        "tenant's GPU cost not known yet, 2 a paced tenant's frame "
        "period left nothing after the paced tenants' GPU time, 3 "
        "their load left no budget, 4 load no tenant reports left "
        "none.",
        be_hold),
    GPU("baton_space_units",
        "Compute units space harvesting divides between the paced "
        "tenants and best-effort ones (harvest.space_units); 0 = off.",
        space_units),
    GPU("baton_space_split",
        "Units the paced tenants render on, from the first (COMBO's "
        "integrated scheme, Eq. 5); 0 = the whole device (temporal "
        "sharing only).",
        space_split),
    GPU("baton_space_be_units",
        "Units best-effort tenants own beside the paced tenants' (the "
        "rest of the device); 0 = none this tick.",
        space_be_units),
    GPU("baton_space_switches",
        "Changes between the integrated and the temporal scheme so "
        "far.",
        space_switches),
    GPU("baton_gpu_total_load",
        "Total load of the last capacity period (the tenants' busy "
        "time over the period plus other load, or the measured "
        "utilization, whichever is larger).",
        total_load),
    GPU("baton_gpu_overloaded_tenants",
        "Tenants the capacity stage found overloaded in the last "
        "period.",
        n_cap_overloaded),
    GPU("baton_gpu_capacity_severe",
        "1 while more than one tenant is overloaded: batond does not "
        "advertise capacity.",
        cap_severe),
    GPU("baton_gpu_encoder_utilization",
        "Busy fraction of the GPU's video encoder (NVML, else the sum "
        "of its tenants' video engines); admission's second resource.",
        res.encoder_util),
    GPU("baton_gpu_decoder_utilization",
        "Busy fraction of the GPU's video decoder (NVML only; 0 "
        "elsewhere).",
        res.decoder_util),
    LINES("baton_gpu_vram_bytes", "gauge",
          "The GPU's video memory: kind=\"total\" (NVML, amdgpu's "
          "sysfs or batond's config; absent when unknown) and "
          "kind=\"used\" (by anyone; the tenants' where nothing else "
          "tells).",
          gpu_vram_lines),
    LINES("baton_admissible_sessions", "gauge",
          "How many more sessions of a configured app profile fit now "
          "(baton capacity --profile).",
          admissible_lines),
    LINES("baton_node_admissible_sessions", "gauge",
          "How many more sessions of a configured app profile fit on "
          "this node: the sum over its GPUs.",
          node_admissible_lines),
    LINES("baton_gpu_info", "gauge",
          "Each GPU batond runs a controller for: its index (the gpu "
          "label of the other families), its name (gpu_id) and device.",
          gpu_info_lines),
    LINES("baton_policy_info", "gauge", "The pacing policy in force.",
          policy_lines),
    LINES("baton_daemon_tick_seconds", "gauge",
          "Wall time of the last control tick.", tick_lines),
    LINES("baton_daemon_ticks_total", "counter",
          "Control ticks since batond started.", ticks_lines),
};

static void write_family(struct buf *b, const struct metrics_snapshot *s,
                         const struct family *f)
{
	header(b, f->name, f->type, f->help);
	switch (f->kind) {
	case PER_TENANT:
		per_tenant(b, s, f->name, f->offset);
		break;
	case PER_BE:
		per_be(b, s, f->name, f->offset);
		break;
	case PER_GPU:
		per_gpu(b, s, f->name, f->offset);
		break;
	case CUSTOM:
		f->lines(b, s, f->name);
		break;
	}
}

char *metrics_format(const struct metrics_snapshot *s, size_t *len)
{
	struct buf b = {.cap = 4096};
	b.s = malloc(b.cap);
	if (!b.s)
		return NULL;
	b.s[0] = '\0';
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		write_family(&b, s, &families[i]);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	*len = b.len;
	return b.s;
}
