/* The quality stage of the control tick (dJay §6;
 * docs/architecture.md, "One policy core, two worlds", stage 3): after
 * capacity and before pacing, choose each game's quality level so that the
 * games' costs at their SLAs fit the GPU's budget, then tell the stages after
 * it what those levels cost.
 *
 * Every tenant with a learned cost is an item of the multiple-choice
 * knapsack (quality_opt.h):
 *  - a game with per-level estimates (n_levels >= 2: the driver evaluated
 *    its models on the epoch's active and potential object lists, dJay
 *    §5) offers its levels: the model's cost of the frames drawn at each
 *    level, calibrated to this machine by the ratio of the measured cost
 *    per frame k to that model cost at the level it runs (a model fitted
 *    elsewhere, or a little off, still adds up to what the GPU measures),
 *    times the rise of the potential list's model cost over the drawn
 *    frames' above its usual ratio (so that a heavy area coming raises the
 *    estimate before its frames are drawn: what dJay's POL is for);
 *  - a game without estimates, and a pinned one (`baton set --level`), is
 *    an item with one choice: its measured cost k.
 * The weight is the rate it is held to (its pinned rate, else its SLA
 * reference) and the budget util_target less the load no tenant reports
 * (Baton); dJay's paper mode is weight 1, costs in ms, 33 ms, strict '<'.
 * A capped tenant (caps.h) offers only the levels its budget can pay for.
 *
 * Each tick (dJay §6.2-6.3): newcomers join one by one (best level that fits
 * the residual, else full reassignment, else refused: it runs at its
 * cheapest level, counts as an admission failure and asks again next tick;
 * its measured cost stays in the knapsack as a single choice, its
 * unmeasured claim does not); then Warning/Critical on the total, which
 * force a full reassignment; else one epoch step (one level per session,
 * upgrades by marginal utility while there is room, downgrades while over).
 * A level
 * change rescales k by the model's cost ratio at once, so the demand and the
 * pacing policy of this very tick act on the cost of the level just chosen,
 * not the last one measured.
 *
 * Pure: the workspace is the caller's (core_quality_workspace_size). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/quality_opt.h"

/* Per tenant, in struct core_tenant. A zeroed struct is a game without
 * levels that has not joined. */
struct core_quality_tenant {
	/* inputs, set by the driver each tick */
	uint32_t n_levels; /* levels with estimates; < 2: a single choice */
	double cost[QUALITY_MAX_LEVELS];    /* model GPU-s per frame */
	double benefit[QUALITY_MAX_LEVELS]; /* model benefit (SSIM) */
	/* The model's cost per level on the epoch's active counts (what
	 * the frames k measured drew); 0: unknown, cost[] stands in. */
	double cost_active[QUALITY_MAX_LEVELS];
	/* state: cost[] over cost_active[], its usual value per level
	 * (quality_stage.c, look_ahead) */
	double pol_smooth[QUALITY_MAX_LEVELS];
	uint32_t pinned;      /* level + 1 forced by the user; 0 = none */
	uint32_t start_level; /* the level it runs before the stage chose
	                         one (the game's default) */

	/* state and outputs */
	bool joined;        /* placed by a join, and not refused since */
	bool refused;       /* its join did not fit even with everyone else at
	                       the cheapest: an admission failure. It runs at its
	                       cheapest level, asks to join again each tick,
	                       and its measured cost (k > 0) counts as a
	                       single choice meanwhile. */
	bool chosen;        /* level below is in force (chosen or pinned) */
	uint32_t level;     /* the level in force */
	double hold_s;      /* no upgrade before this runs out: a downgrade
	                       undid an upgrade (core_params.quality_hold_s) */
	double flap_s;      /* since its last upgrade, hold_s counting down:
	                       a downgrade meanwhile undoes it */
	uint32_t flaps;     /* upgrades undone lately: each doubles the next
	                       hold; one that lasts its flap_s takes one off */
	double est_cost;    /* calibrated GPU-s per frame at level; 0 = none */
	double est_benefit; /* model benefit at level; 0 = none */

	/* A cost that steps up (quality_stage.c, follow_step): the epochs
	 * with frames in a row whose cost was over k by quality_step_ratio,
	 * the least of their costs, and the epochs with frames still to
	 * pass after a level change before one counts. */
	uint32_t step_run;
	double step_min;
	uint32_t step_quiet;
	/* The joint noise (quality_stage.c, track_spread): this window's
	 * GPU seconds over what k counted for its frames, and its frames. */
	double spread_over_s;
	uint32_t spread_frames;
};

/* Per GPU, in struct core_gpu. */
struct core_quality_gpu {
	/* input: the caller's workspace, core_quality_workspace_size(n)
	 * bytes aligned for double, for the largest n it ticks with; the
	 * stage does nothing (and says so in `starved`) when it is short */
	void *workspace;
	size_t workspace_size;

	struct quality_alarm alarm;
	/* outputs of the last tick */
	bool starved;           /* workspace too small: levels left alone */
	double budget;          /* what the levels had to fit */
	double total_cost;      /* sum weight x calibrated cost at the levels */
	double total_benefit;   /* sum of est_benefit of the items */
	double ceiling;         /* the total the games proved they get, under
	                           the budget (quality_stage.c, learn_ceiling);
	                           0 = none */
	double settle_s;        /* before the ceiling may be cut again */
	double spread_var;      /* the variance of the total's cost over a
	                           window about the games' k (quality_stage.c,
	                           track_spread) */
	uint32_t spread_epochs; /* into the window */
	double spread;          /* quality_spread_z standard deviations of
	                           it: the headroom taken off the budget */
	double floor;           /* the total with every placed game at its
	                           cheapest level: what admission can count
	                           on (core_quality_admit) */
	uint32_t items;         /* tenants in the knapsack (a refused one with a
	                           measured cost included) */
	uint32_t changed;       /* level changes this tick */
	enum quality_alarm_verdict verdict;
	uint64_t reassignments; /* full reassignments (alarms and joins) */
	uint64_t refusals;      /* tenants refused (counted once per refusal
	                           spell, not per retry) */
};

struct core_params;
struct core_tenant;
struct core_gpu;

size_t core_quality_workspace_size(size_t n);

/* Admission with the quality lever (dJay §6.3; a refused join is
 * an admission failure): does a newcomer of cost_s GPU-s per frame at
 * sla_fps fit if every placed game went down to its cheapest level, and
 * how many such. From the last tick's floor; pure. */
struct core_quality_admit {
	bool fits;
	uint32_t more;
	double floor;  /* the placed games at their cheapest (budget units) */
	double need;   /* the newcomer's (budget units) */
	double budget; /* the last tick's */
};
struct core_quality_admit core_quality_admit(const struct core_params *p,
                                             const struct core_gpu *gpu,
                                             double cost_s, double sla_fps);

/* Stage 3 of core_controller_tick; does nothing unless p->quality_on. */
void core_quality_tick(const struct core_params *p, struct core_gpu *gpu,
                       struct core_tenant *t, size_t n);
