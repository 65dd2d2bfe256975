/* The capacity stage of the control tick (gOver, Yao et al., IEEE TC 2023,
 * Sec. 3.3; labels G1-G7 as defined in docs/papers.md):
 * per-tenant GPU caps, per-second utilization and QoS sampling, overload
 * detection, overload mitigation (Algorithm 1 corrected),
 * per-user cap aggregation, and admission ("oversell") as a pure question.
 *
 * A cap is a ceiling of GPU time per second, in (0, 1] of one GPU. Each
 * tenant has a published cap (`cap_initial`, input: what the user bought,
 * gOver's initial_cap) and a dynamic cap (`caps.cap`, state) that the
 * stage moves and that is never above the published one (G1). The dynamic
 * caps plus a free pool add up to `cap_total` (one GPU by default): a cap
 * moves from tenant to tenant (mitigation), from the pool to a tenant (a
 * newcomer, an overloaded tenant) or back to the pool (a departure), and
 * no move creates or destroys capacity. Tenants without a published cap
 * (0) are not capped; their load still counts.
 *
 * Everything lives in the caller's arrays (struct core_tenant.caps and
 * struct core_gpu.caps): no I/O, no clock reads, no allocation. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A user's (owner's) cap: its tenants' budgets together never exceed it. */
struct core_owner_cap {
	uint64_t owner;
	double cap; /* (0, 1]; anything else is ignored */
};

/* The utilization a cap is sized for: under U_o by this share of it (0.71
 * at U_o 0.95). A cap sized at U_o itself (its cost x SLA / U_o) leaves
 * the tenant no room for its cost's ordinary noise: a heavy glmark2
 * holding its SLA in a light scene on llvmpipe read u 0.70-0.89 one
 * period to the next under such a cap, within noise of crossing U_o three
 * periods in a row (being flagged overloaded, taking cap from a donor and
 * stopping admission) while it held its SLA. Sized at 0.81 (a margin of 0.15)
 * it still read up to 0.92: the cost learned at the join was 15 % under its
 * later use. */
#define CORE_CAP_SIZE_MARGIN 0.25

/* Per-tenant state of the capacity stage, kept in struct core_tenant. */
struct core_cap_state {
	bool joined; /* got its first dynamic cap (from the pool) */
	double cap;  /* dynamic cap, 0 <= cap <= cap_initial */
	/* The period in progress, summed over the ticks. */
	double acc_busy_s, acc_time_s;
	double acc_frames;
	/* The last period's sample (G4, G5 normalised). sampled is false
	 * until the tenant has been through one period. */
	bool sampled;
	double u;           /* busy / (budget x period) */
	double e;           /* (sla - fps) / sla; > 0: QoS broken */
	double fps;         /* frames / time over the period */
	uint32_t over_run;  /* successive samples with u > U_o */
	uint32_t below_run; /* successive samples with below_sla */
	/* outputs */
	bool below_sla;  /* the last period's FPS under the SLA beyond
	                    cap_sla_tol and one frame (not judged in its
	                    first period, nor before it presented) */
	bool overloaded; /* u over U_o for cap_run samples, or below_sla
	                    for two samples in a row (one far below it) */
	double budget;   /* the cap the gate enforces: the dynamic cap,
	                    scaled down so that the owner's tenants fit its
	                    owner cap, plus wc_extra; 0 = not capped */
	/* Work-conserving tenants (caps_wc.c): its GPU use,
	 * busy / epoch smoothed over fps_smooth_s, and the share of the
	 * GPU's spare capacity its budget holds beyond its cap. */
	double use;
	double wc_extra;
	bool wc_full; /* scratch: takes no more of the spare this tick */
};

/* Per-GPU state of the capacity stage, kept in struct core_gpu. */
/* Periods of total load kept for admission (at least cap_quiet's). */
#define CORE_CAPS_RECENT 16

struct core_caps_gpu {
	/* input: per-user caps (may be NULL). Owners not listed have none. */
	const struct core_owner_cap *owner_caps;
	size_t n_owner_caps;

	bool init;           /* set up on the first tick */
	double pool;         /* cap no tenant holds: cap_total minus the
	                        dynamic caps of the tenants in the array */
	uint32_t joined;     /* tenants holding a dynamic cap, last tick */
	double acc_time_s;   /* the period in progress */
	double acc_util_s;   /* GPU busy over it (util x epoch), summed */
	double acc_busy_s;   /* the tenants' busy time over it, summed */
	double acc_beyond_s; /* work-conserving tenants' busy time beyond
	                        their strict budgets over it, summed */
	bool sampled;        /* one period has ended */
	uint32_t quiet;      /* successive periods without an overload
	                        signal; a join or a departure restarts it */
	uint32_t periods;    /* periods ended */
	double total_load;   /* G6, last period: max(sum busy_i / T +
	                        other_util, measured utilization), less
	                        the work-conserving tenants' use beyond
	                        their strict budgets */
	/* G6 of the last periods, newest at recent_load[(periods - 1) %
	 * CORE_CAPS_RECENT]: admission takes the highest of the quiet ones */
	double recent_load[CORE_CAPS_RECENT];
	double overhead;       /* last period: the load the tenants cause
	                          over the busy time they report, >= 1
	                          (caps.c, end_period); 1 before a sample */
	uint32_t n_overloaded; /* last period */
	bool severe;           /* more than one tenant overloaded: capacity is
	                          not advertised (gOver's "severe warning") */
	/* The last mitigation, for status and tests: recipient and donor
	 * indices into the array (SIZE_MAX: the pool / none), amount. */
	size_t last_recipient, last_donor;
	double last_moved;
	uint64_t moves; /* cap moves made */
	/* Work-conserving budgets (caps_wc.c): the measured
	 * load, max(util, sum of busy + other_util), smoothed over
	 * fps_smooth_s, and the spare capacity the work-conserving
	 * tenants share: util_target less that load without their use
	 * beyond their caps. */
	double wc_load;
	double wc_spare;
};

/* Why admission says no. */
enum core_admit_reason {
	CORE_ADMIT_FITS = 0,
	CORE_ADMIT_BAD_PROFILE, /* expected load not a positive number */
	CORE_ADMIT_NO_SAMPLE,   /* no period has ended yet */
	CORE_ADMIT_SEVERE,      /* more than one tenant overloaded */
	CORE_ADMIT_NOT_QUIET,   /* an overload in the last cap_quiet periods
	                           (or a join/departure restarted the count) */
	CORE_ADMIT_LOAD,        /* total load + newcomer >= U_l */
	CORE_ADMIT_ENCODER,     /* the video encoder's load + the newcomer's
	                           stream >= cap_encoder_limit (admit_res.h) */
	CORE_ADMIT_VRAM,        /* its video memory does not fit in what the
	                           GPU has free (admit_res.h) */
};

/* The answer to "does one more tenant of expected load x fit". */
struct core_admit {
	bool fits;
	uint32_t more; /* how many more such tenants fit now (0 if !fits) */
	enum core_admit_reason why;
	double load;     /* total load: the highest of the last cap_quiet
	                    periods (one period's is noisy) */
	double newcomer; /* its expected load, cost x SLA x overhead */
	double overhead; /* the factor used (core_caps_gpu.overhead) */
	double limit;    /* U_l */
	/* How many fit by each resource alone (admit_res.h): the 3D
	 * engine's count (gOver's rule), the encoder's and the video
	 * memory's; UINT32_MAX where the resource does not bind (the
	 * newcomer needs none of it, or its size is unknown). `more` is the
	 * smallest. */
	uint32_t more_3d, more_encoder, more_vram;
};

/* A short English phrase for a reason ("fits", "total load ..."). */
const char *core_admit_reason_str(enum core_admit_reason r);

struct core_params;
struct core_tenant;
struct core_gpu;

/* The capacity stage, called by core_controller_tick once per epoch after
 * the measurements and before the policy (docs/architecture.md, stage 2):
 *   - a tenant with a published cap and no dynamic one yet joins: it takes
 *     from the pool, then, up to a fair share cap_total / (joined + 1),
 *     from the others' spare cap (caps.c);
 *   - busy time, frames and the GPU's load are summed over the period;
 *   - at each period end (cap_period_s): samples u_i and e_i, detects
 *     overload, mitigates (corrected Algorithm 1), counts quiet periods
 *     and computes the total load for admission;
 *   - every tick: each tenant's budget (the dynamic cap within its owner's
 *     cap; a work-conserving tenant that uses all of it gets a share of
 *     the GPU's spare capacity on top, still within its owner's cap). */
void core_caps_tick(const struct core_params *p, struct core_gpu *gpu,
                    struct core_tenant *t, size_t n);

/* A tenant leaves (the caller drops it from its array after this call): its
 * dynamic cap returns to the pool and the quiet count restarts, so that a
 * departure alone never makes room look permanent (notes, Sec. 3). The
 * tick notices a tenant dropped without this call too (fewer joined
 * tenants than the tick before); the call makes it immediate. */
void core_caps_depart(struct core_gpu *gpu, struct core_tenant *t);

/* Does one more tenant of GPU cost cost_s seconds per frame at sla_fps fit
 * (gOver's oversell rule, Sec. 3.3, G6): capacity is advertised, no
 * overload for cap_quiet periods, and total load + cost_s x sla_fps < U_l.
 * `more` is how many such tenants would fit on the same rule. Pure: it
 * changes nothing; the caller admits by adding the tenant. */
/* The total load admission holds against U_l: the highest of the last
 * cap_quiet periods' (core_admit.load). */
double core_caps_admit_load(const struct core_params *p,
                            const struct core_caps_gpu *g);

struct core_admit core_caps_admit(const struct core_params *p,
                                  const struct core_gpu *gpu, double cost_s,
                                  double sla_fps);
