/* What a simulation run returns: per tenant, per second, and the
 * quality, COMBO and fleet results where the scenario has them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/combo/sim_combo.h"
#include "sim/fleet/sim_fleet.h"
#include "sim/scenario/scenario.h"

/* A quality game's level changes and area changes (dJay Figs. 12-13): when,
 * and how many frames it had started by then. */
struct sim_level_change {
	double t_s;
	uint64_t frame; /* frames started before it: frame + 1 runs at level */
	uint32_t level;
};
struct sim_area_change {
	double t_s;
	uint64_t frame; /* the first frame drawn in the area */
	uint32_t area;
};

/* Figures of a quality game (docs/scenarios.md "Quality"), over its
 * counted windows: whole one-second windows in measured time from one
 * second after it started until it stopped. */
struct sim_quality_result {
	double mean_ssim;    /* mean displayed SSIM of its windows */
	double min_fps;      /* fewest frames displayed in a window */
	double secs_below;   /* windows more than one frame short of the SLA */
	double windows;      /* counted windows */
	bool refused;        /* the stage refused its join */
	uint32_t level;      /* its level at the end */
	double *ssim_per_s;  /* per window of the run; NaN where not counted */
	double *level_per_s; /* level at each window's end; NaN before start */
	struct sim_level_change *changes;
	size_t n_changes;
	struct sim_area_change *areas;
	size_t n_areas;
};

/* The quality games, between one game's start and the next's (dJay Fig.
 * 11: players join one by one): figures over the counted windows from a
 * second after the phase began to its end. */
struct sim_quality_phase {
	double t0_s, t1_s;
	uint32_t players; /* quality games running in the phase */
	double mean_ssim; /* over those games' windows */
	double min_fps;
	double secs_below; /* game-windows below their SLA */
	double windows;    /* game-windows counted */
};

struct sim_tenant_result {
	char name[SIM_NAME_MAX];
	double sla_fps;
	/* Over the measured time (after warm-up): */
	double fps_mean;      /* frames / measured seconds */
	double fps_p1;        /* 1st percentile of per-second FPS */
	double frame_ms_p99;  /* 99th percentile frame interval */
	double frame_ms_max;  /* the longest (a hung kernel's mark) */
	double below_sla_pct; /* % of one-second windows under sla_fps */
	double gpu_share;     /* fraction of GPU time used, 0..1 */
	double joined_s;      /* when it arrived; -1: never (not admitted) */
	double cap;           /* its budget (GPU cap) at the end; 0: none */
	/* A best-effort tenant (docs/harvesting.md), over the measured time:
	 * blocks per second, GPU grid's P (that over its dedicated speed)
	 * and Q (continuous sub-launches over all). */
	bool be;
	double be_blocks_per_s;
	double be_p;
	double be_q;
	/* The stuck rule (core/harvest_stuck.h), over the measured time:
	 * seconds the stage held it stuck (0 with the rule off); its GPU
	 * time (ms) while another BE tenant's sub-launch had overrun, the
	 * rule on or off (under it, at most the sub-launch it had released
	 * before: on a FIFO GPU it queued behind the hung kernel); the
	 * sub-launches it released meanwhile (0 under the rule). */
	double be_stuck_s;
	double be_run_while_stuck_ms;
	uint64_t be_launched_while_stuck;
	/* Per one-second window over the whole run, warm-up included, for
	 * plots: frames displayed, and the pacing target at the window's end
	 * (0 = unpaced). n_secs entries each. */
	double *fps_per_s;
	double *target_per_s;
	size_t n_secs;
	struct sim_quality_result *quality; /* NULL: a game without levels */
};

struct sim_result {
	char policy[16];
	double gpu_util;    /* busy fraction over the measured time, 0..1 */
	double *util_per_s; /* per one-second window, whole run */
	size_t n_secs;
	double warmup_s;
	double duration_s;
	struct sim_tenant_result *tenants;
	size_t n_tenants;
	uint64_t events; /* events processed, for the throughput benchmark */
	/* Capacity (gOver Fig. 8): % of the measured one-second windows in
	 * which some tenant running (for a second already) was under its
	 * SLA; and the tenants admitted by the capacity stage. */
	double qos_broken_pct;
	uint32_t admitted;
	/* Time harvesting: the share of the games' idle GPU time (measured
	 * time less the games' GPU time) the BE tenants used, 0..1; -1 when
	 * there is no BE tenant. */
	double harvest;
	/* Quality (dJay), where some game has levels: the mode, the mean of
	 * the quality games' mean displayed SSIM, the density (games admitted
	 * and held at their SLA: at most 1 % of their windows below), joins
	 * refused, the stage's estimated total benefit at each window's end,
	 * and the phases by player count. */
	bool quality;
	char quality_mode[16];
	double q_mean_ssim;
	uint32_t q_games, q_density, q_refusals;
	double *q_benefit_per_s;
	struct sim_quality_phase *q_phases;
	size_t q_n_phases;
	/* Space harvesting (the scenario's combo group): each scheme's run;
	 * no tenants then. */
	bool combo;
	struct sim_combo_result combo_result;
	/* The fleet simulator (the scenario's fleet group): each
	 * placement's day; no tenants then. */
	bool fleet;
	struct sim_fleet_result fleet_result;
};

/* Frees what a run allocated in *r and zeroes it. */
void sim_result_finish(struct sim_result *r);
