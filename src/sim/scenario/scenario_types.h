/* What a scenario is: the GPU, the tenants, their SLA, the policy and
 * its gains, the duration and the seed (docs/scenarios.md). The parsers
 * fill it (scenario.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/harvest.h"
#include "core/policy.h"
#include "core/quality_model.h"
#include "core/quality_opt.h"
#include "sim/combo/sim_combo.h"
#include "sim/fleet/sim_fleet.h"

#define SIM_NAME_MAX 32

enum sim_gpu_model {
	/* Driver default: round robin in quanta among contexts with queued
	 * work, a context-switch cost whenever the context changes. Every busy
	 * tenant gets an equal slice, so a game with cheap frames runs far
	 * above one with expensive frames (vGASA Fig. 1). */
	SIM_GPU_TIMESLICE = 0,
	/* Jobs run to completion in submission order. */
	SIM_GPU_FCFS = 1,
	/* gOver's budgeted round robin (Algorithms 2-3 as corrected in
	 * docs/papers.md): time slicing in quanta among contexts with work and
	 * budget left; a capped context's budget grows by cap x slot every
	 * slot (100 ms, residue carried) and is reset to cap x slot at each
	 * period (1 s: residue and debt dropped); the GPU idles when no
	 * context with work has budget. Uncapped contexts have no limit. */
	SIM_GPU_BUDGET = 2,
};

struct sim_gpu_spec {
	enum sim_gpu_model model;
	double quantum_ms; /* time slice, timeslice and budget models */
	double switch_us;  /* cost of switching between contexts */
	double slot_ms;    /* budget model: refill slot (gOver: 100 ms) */
	double period_ms;  /* budget model: reset period (gOver: 1 s) */
};

/* How the simulator sets the budget model's caps (policy.caps). */
enum sim_caps_mode {
	SIM_CAPS_STATIC = 0, /* each tenant's cap as the scenario gives it:
	                        gVirt's equal shares, static oversubscription */
	SIM_CAPS_DYNAMIC =
	    1, /* the capacity stage's budgets (src/core/caps.h) */
};

enum sim_pacer_kind {
	SIM_PACER_GRID = 0,     /* Baton: absolute deadline grid */
	SIM_PACER_RELATIVE = 1, /* vGASA Eq. 1: relative sleep */
};

/* How a best-effort tenant decides when and how much to launch
 * (scenario_be.c, docs/harvesting.md). */
enum sim_be_gate {
	SIM_BE_NONE = 0,      /* a game, not a BE tenant */
	SIM_BE_NAIVE = 1,     /* whole tasks, `depth` queued, no gate */
	SIM_BE_PROBE = 2,     /* GPU grid's Algorithm 1 (corrected): an
	                         empty-kernel probe feeds the hysteresis */
	SIM_BE_TELEMETRY = 3, /* Baton: the games' telemetry decides */
};

/* A BE tenant (kind = "be"): a task of `blocks` independent blocks whose
 * kernel time is c0 + c1 n, repeated for ever. */
struct sim_be_spec {
	enum sim_be_gate gate;
	uint64_t blocks;
	double c0_ms, c1_ms;
	double weight;   /* share among BE tenants */
	double cap;      /* its cap, (0, 1]; 0 = none */
	int depth;       /* naive: kernels queued at once */
	double probe_us; /* probe gate: the empty kernel on an idle GPU */
	double alpha_us; /* probe gate: k < alpha is a quiet observation */
	/* A hung kernel (docs/harvesting.md, "A hung sub-launch"): the
	 * first sub-launch released at or after hang_at_s runs hang_s
	 * longer than c0 + c1 n. hang_s 0: none. Gated tenants only. */
	double hang_at_s;
	double hang_s;
};

/* From at_s on, the tenant's mean costs change (a scene change). */
struct sim_scene {
	double at_s;
	double cpu_ms;
	double gpu_ms;
};

/* Quality levels (dJay, docs/scenarios.md "Quality"): who picks each
 * quality game's level. */
enum sim_quality_mode {
	SIM_QUALITY_OFF = 0,    /* every game at its start_level */
	SIM_QUALITY_DJAY,       /* the core's quality stage, Baton's budget */
	SIM_QUALITY_DJAY_PAPER, /* the stage in dJay's paper mode (33 ms) */
	SIM_QUALITY_ALL_LO,     /* every game pinned at its lowest level */
	SIM_QUALITY_ALL_ME,     /* ... at its middle level (n_levels / 2) */
	SIM_QUALITY_ALL_HI,     /* ... at its best level */
};

/* A stretch of play in one place (dJay Fig. 9's town, house, panorama,
 * dungeon): the per-type object counts of the frames drawn there (the
 * active object list) and of what may come into view soon (the potential
 * list, dJay §5, which the stage's estimates use). It lasts duration_s of
 * the game's time, or `frames` of its frames. */
struct sim_area {
	char name[SIM_NAME_MAX];
	double duration_s; /* > 0, or 0 when frames is set */
	uint64_t frames;
	double active[CORE_QM_MAX_TYPES];
	double potential[CORE_QM_MAX_TYPES];
};

/* A game with quality levels: per-level linear models of GPU seconds and
 * SSIM per frame over its object types (core/quality_model.h), and the
 * areas it walks through, in order from its start (the last one lasts
 * for ever unless loop). */
struct sim_quality_spec {
	size_t n_levels; /* 2..QUALITY_MAX_LEVELS, level 0 the lowest */
	size_t n_types;
	struct core_qm_level level[QUALITY_MAX_LEVELS];
	uint32_t start_level; /* the game's own default: its best level */
	struct sim_area *areas;
	size_t n_areas;
	bool loop;
};

struct sim_tenant_spec {
	char name[SIM_NAME_MAX];
	double sla_fps;   /* > 0 */
	double fixed_fps; /* > 0: pinned rate (like baton run --fps) */
	double cpu_ms;    /* mean CPU time per frame (game logic) */
	double gpu_ms;    /* mean GPU execution time per frame */
	double jitter;    /* relative standard deviation of both costs */
	/* A frame whose critical path is latency-bound under contention: its
	 * CPU phase lasts cpu_ms * (1 + cpu_stretch * b), b = the other
	 * tenants with GPU work queued or running when the phase starts (on
	 * llvmpipe, the game's thread waits for cores the others' rasterizer
	 * threads hold). Its rate under contention is then below what its
	 * GPU share allows. 0 = not stretched. */
	double cpu_stretch;
	struct sim_scene *scenes; /* sorted by at_s */
	size_t n_scenes;
	/* Trace-driven instead: per-frame costs read from a CSV file
	 * (cpu_ms,gpu_ms per line), replayed in a loop. n_trace == 0: use the
	 * parametric model above. */
	double *trace_cpu_ms;
	double *trace_gpu_ms;
	size_t n_trace;
	double start_s;    /* joins at this time (default 0) */
	double stop_s;     /* leaves at this time (0 = stays to the end) */
	int max_in_flight; /* frames queued on the GPU before Present blocks
	                      (default 2); 0 = Present waits until the frame
	                      has finished on the GPU (vGASA's Flush) */
	enum sim_pacer_kind pacer;
	double sleep_granularity_ms; /* sleeps round up to this (0 = exact) */
	/* Who runs it, as batond's uid: ESA bounds each owner's share of the
	 * budget. Default 0: every game one user's, vGASA's setting. */
	uint64_t owner;
	/* Published GPU cap in (0, 1] (gOver's initial cap); 0 = none. */
	double cap;
	/* Past its cap, it may still use the GPU while nobody with budget
	 * wants it (gOver's caps are not work-conserving; a user packing a
	 * host may want them to be). */
	bool work_conserving;
	/* Joins only when the capacity stage says a session of its profile
	 * fits (core_caps_admit), at start_s at the earliest, one arrival per
	 * tick. Its profile: profile_ms of GPU per frame at sla_fps (default
	 * gpu_ms). */
	bool admit;
	double profile_ms;
	struct sim_be_spec be; /* be.gate != SIM_BE_NONE: a BE tenant */
	/* Quality levels (gpu_ms, scenes and trace are then unused: the
	 * GPU cost of a frame is its level's model on its area's counts,
	 * with jitter); NULL: a game without levels. */
	struct sim_quality_spec *quality;
};

/* A kp/ki pair to sweep (vGASA Fig. 8). */
struct sim_gains {
	double kp;
	double ki;
};

struct sim_scenario {
	char name[64];
	char description[256];
	double duration_s; /* simulated time, warm-up included */
	double warmup_s;   /* left out of every figure */
	uint64_t seed;
	struct sim_gpu_spec gpu;
	char policy[16]; /* "none", "sa", "fsa", "esa" */
	struct core_params params;
	enum sim_caps_mode caps;
	struct sim_tenant_spec *tenants;
	size_t n_tenants;
	struct sim_gains *sweep; /* n_sweep > 0: run once per pair */
	size_t n_sweep;
	/* Time harvesting (scenario_be.c): the stage's parameters, and
	 * whether the games' telemetry reaches it (false: hosts Baton does
	 * not see, GPU grid's setting; BE tenants then probe). */
	struct core_harvest_params harvest;
	bool games_seen;
	/* The stuck rule (core/harvest_stuck.h) on (the default) or off,
	 * to compare: off, the stage never hears of a sub-launch in
	 * flight. */
	bool stuck_rule;
	/* Quality (dJay): who picks the levels, and the stale-frame
	 * penalty of the displayed SSIM (docs/scenarios.md "Quality"); the
	 * stage's own parameters are params.quality, set from the mode by
	 * sim_quality_set_mode. */
	enum sim_quality_mode quality;
	double stale_penalty;
	/* Space harvesting (sim_combo.h): with combo.on the run is the
	 * SM-level model's, and the scenario has no tenants. */
	struct sim_combo_spec combo;
	/* The fleet simulator (sim_fleet.h): with fleet.on the run is the
	 * fleet model's over duration_s, and the scenario has no tenants. */
	struct sim_fleet_spec fleet;
};
