/* Time harvesting (GPU grid: Ino, Oka, Hagihara, IJNC 4(2), 2014; its
 * corrections in docs/papers.md): best-effort (BE) work runs in
 * sub-launches sized so that every game frame still meets the paper's
 * Eq. 1, t <= 1/F - H, with Baton's measured H (the shims report each
 * game's GPU time per frame, which the paper says "cannot be measured").
 *
 * Per GPU and per tick (core_harvest_tick), from the games' telemetry in
 * their struct core_tenant (k = GPU seconds per frame, target_fps or the
 * measured rate):
 *   - the Eq. 1 window: min over games of 1/F_i, minus the games' H summed
 *     (each game's next frame may queue behind one sub-launch and behind
 *     the other games' frames), minus a margin;
 *   - the BE budget: the GPU share the games leave (1 - sum k_i F_i - the
 *     load no tenant reports), minus a margin, split among the BE tenants
 *     by weight, none above its cap;
 *   - the mode, with the paper's asymmetric hysteresis (Algorithm 1 as
 *     docs/papers.md corrects it): PERIODICAL (one sub-launch per window, then
 *     a rest) until `enter_quiet` (3) quiet observations in a row, then
 *     CONTINUOUS (longer sub-launches back to back) until one busy one.
 *     The counter saturates (the printed algorithm's defect 3). A quiet
 *     observation is either no game presenting a frame over the tick
 *     (telemetry) or the BE tenant's own empty-kernel probe finishing
 *     under alpha (core_harvest_observe; for hosts no shim reports).
 *
 * The sizing of one sub-launch (the online fit of t(n) = c0 + c1 n and the
 * block offset) is in harvest_fit.h. Pure: no I/O, no clock, no globals. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/combo.h"
#include "core/policy.h"

enum core_harvest_mode {
	CORE_HARVEST_PERIODICAL = 0, /* games active: Fig. 4(a) */
	CORE_HARVEST_CONTINUOUS = 1, /* GPU fully idle: Fig. 4(b) */
};

struct core_harvest_params {
	double margin_s;      /* taken off the Eq. 1 window (s) */
	double util_margin;   /* GPU share kept free from the BE budget */
	double periodical_s;  /* > 0: longest periodical sub-launch (the
	                         paper's N1 as a time, 8.5 ms); 0: the Eq. 1
	                         window alone */
	double continuous_s;  /* sub-launch length in continuous mode (the
	                         paper's N2, 17 ms = 2 x periodical) */
	double rest_s;        /* least rest after a periodical sub-launch:
	                         the paper's Sleep(1/F); 0 = the budget's
	                         duty cycle alone */
	uint32_t enter_quiet; /* quiet observations in a row to enter
	                         continuous mode (paper: 3); one busy one
	                         leaves it */
	/* The slot (harvest_slot.h): periodical sub-launches start only
	 * in the span of each frame period in which every game waits. */
	bool align;              /* false: the window alone decides */
	bool steer;              /* with align: the games' pacers hold their
	                            Presents packed, one after another's
	                            frame, while best-effort work uses the
	                            slot (harvest_phase.h) */
	double slot_min_s;       /* a shorter common span is no slot */
	double period_tolerance; /* games' periods this far apart (relative)
	                            still share a slot */
	/* A sub-launch in flight longer than max(stuck_factor x its window,
	 * its window + stuck_slack_s) is a hung kernel (harvest_stuck.h). */
	double stuck_factor;
	double stuck_slack_s;
	/* A game with no GPU cost this many ticks after it registered does
	 * not report one: it is left out of the window and the budget
	 * (harvest.c, game_counts) rather than closing them for good. */
	uint32_t cost_grace_ticks;
	/* Space harvesting (harvest_space.h): space.sm_total units to
	 * divide between the games and best-effort work; below 2: off. */
	struct core_combo_params space;
	/* What a partition is earned by and what takes it back
	 * (harvest_space.h). space_earn: the best-effort processes' CPU
	 * use, as batond measures it and smoothed over space_earn_s, must
	 * reach this share of the units the partition would give them.
	 * 0.25: a client computing on a CPU device uses most of a core
	 * even on time slots alone (be-matmul beside glxgears on 2 cores:
	 * 0.8 to 1.1 of the one core it would get, 0.5 to 1.3 once it has
	 * it), and a quarter leaves it room for a budget the games
	 * squeeze, while a tenant that only says it computes uses close
	 * to 0. space_holdoff_s: after a game read under its SLA while
	 * the games were confined, no partition for this long. */
	double space_earn;
	double space_earn_s;
	double space_holdoff_s;
	/* The idle-priority lane (harvest_idle.h) for tenants whose device
	 * is this host's CPUs; off by default. */
	bool idle_lane;
};

/* One BE tenant as the harvesting stage sees it. */
struct core_be_tenant {
	/* inputs */
	double weight;     /* share among BE tenants; <= 0 counts as 1 */
	double cap;        /* published cap in (0, 1]; 0 = none */
	bool probe;        /* its mode follows its own probe
	                      (core_harvest_observe), not the games' telemetry */
	bool idle_capable; /* its device is this host's CPUs (PoCL) and
	                      its client lowers its threads to SCHED_IDLE
	                      in the idle lane (harvest_idle.h) */
	bool space;        /* its client can run on a space partition
	                      (harvest_space.h; batond: its hello's
	                      "partition") */
	double cpu_use;    /* CPU seconds per second its process used
	                      over the last tick, as the caller measured
	                      them (batond: /proc), not as it reports;
	                      0 when they cannot be measured */

	/* Inputs of the stuck rule (harvest_stuck.h): how long its
	 * sub-launch under way has been in flight (s; 0 = none), and the
	 * window that sub-launch was given. */
	double inflight_s;
	double inflight_window_s;
	/* state */
	uint32_t quiet; /* quiet observations in a row, saturating */
	/* outputs */
	enum core_harvest_mode mode;
	double budget;   /* GPU seconds per second it may use */
	double window_s; /* longest sub-launch it may start now; 0 = wait */
	bool stuck;      /* its sub-launch overran (harvest_stuck.h) */
	bool idle;       /* in the idle-priority lane (harvest_idle.h) */
};

/* The span of each frame period left to best-effort work (harvest_slot.h). */
struct core_harvest_slot {
	double start_s;  /* an occurrence's start */
	double len_s;    /* its length; 0 = no slot (start any time) */
	double period_s; /* it recurs every period_s */
};

/* Why the best-effort windows on a GPU are shut, and by which game. */
enum core_harvest_hold_reason {
	CORE_HARVEST_OPEN = 0,    /* no game shuts them */
	CORE_HARVEST_HOLD_COST,   /* a game whose GPU cost is not known yet
	                             (within cost_grace_ticks) */
	CORE_HARVEST_HOLD_PERIOD, /* the shortest frame period (game's) is
	                             all the games' GPU time and the margin */
	CORE_HARVEST_HOLD_LOAD,   /* the games' load leaves no budget; game:
	                             the one of the largest share */
	CORE_HARVEST_HOLD_OTHER,  /* the load no tenant reports leaves none */
};
struct core_harvest_hold {
	enum core_harvest_hold_reason reason;
	size_t game;        /* its index in the games (not for OPEN, OTHER) */
	double period_s;    /* PERIOD: that game's frame period */
	double games_gpu_s; /* PERIOD: the games' GPU time per frame, summed */
};

/* What the stage found for one GPU at the last tick. */
struct core_harvest_gpu {
	double games_util; /* sum k_i F_i over the games with a known k */
	double free_util;  /* what the BE tenants share: 1 - games_util -
	                      other load - util_margin, >= 0 */
	double eq1_s;      /* the Eq. 1 window; < 0: no game reports (the
	                      window is then periodical_s alone) */
	bool games_quiet;  /* no game presented a frame this tick */
	double weights;    /* the BE tenants' weights, summed */
	struct core_harvest_slot slot; /* core_harvest_slot's, not the
	                                  tick's: it needs the time */
	uint32_t n_stuck;              /* BE tenants with a hung sub-launch */
	struct core_harvest_hold hold; /* who shuts the windows, and why */
};

/* Defaults: 1 ms window margin, 5 % budget margin, no periodical cap (Eq. 1
 * decides), 17 ms continuous sub-launches (the paper's N2), no least rest,
 * 3 quiet observations (the paper); aligned to the slot, of at least 2 ms,
 * over periods within 2 %, the games' Presents packed (on a CPU device);
 * stuck past max(2 x window, window + 50 ms); space harvesting off (COMBO's
 * constants otherwise, a window of 8 ticks and a 1 s hold), earned by a
 * quarter of the partition's units used (smoothed over 1 s), held off
 * 30 s after a confined game misses its SLA. */
struct core_harvest_params core_harvest_params_default(void);

/* The Eq. 1 window over the games (s): min 1/F_i - sum H_i - margin_s,
 * never negative. F_i is the rate the game shows, never above its pacing
 * target (without a measured rate: its target, else its SLA); H_i its
 * learned k. A game with no k yet makes the window 0 (its frame cost is
 * unknown, so nothing can be promised) for cost_grace_ticks after it
 * registered, and is left out after. -1 when no game counts. */
double core_harvest_eq1(const struct core_harvest_params *p,
                        const struct core_tenant *games, size_t n);

/* One tick: the GPU's window, free share and quiet observation from the
 * games, then every BE tenant's budget (weights, caps; what a cap leaves
 * goes to the others), mode (telemetry-driven tenants observe
 * games_quiet) and window; last the stuck rule (harvest_stuck.h) over
 * their inflight_s. other_util: load no tenant reports. */
void core_harvest_tick(const struct core_harvest_params *p,
                       const struct core_tenant *games, size_t n_games,
                       double other_util, struct core_harvest_gpu *hg,
                       struct core_be_tenant *be, size_t n_be);

/* One observation (k < alpha from the probe, or a quiet tick): updates the
 * saturating counter and the mode. Returns the mode. */
enum core_harvest_mode core_harvest_observe(const struct core_harvest_params *p,
                                            struct core_be_tenant *be,
                                            bool quiet);

/* The tenant's window for its mode: continuous_s in continuous mode, else
 * the Eq. 1 window and periodical_s (the smaller of those that apply),
 * scaled by its weight's share so that the BE tenants' sub-launches
 * together delay a frame by at most the window. 0 when its budget is 0. */
double core_harvest_window(const struct core_harvest_params *p,
                           const struct core_harvest_gpu *hg,
                           const struct core_be_tenant *be);

/* How long to leave the GPU after a sub-launch that took t_s: keeps the
 * tenant within its budget (t (1 - b) / b) and, in periodical mode, at
 * least rest_s. Negative when its budget is 0: wait for the next tick. */
double core_harvest_rest(const struct core_harvest_params *p,
                         const struct core_be_tenant *be, double t_s);
