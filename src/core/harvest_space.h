/* Space harvesting at the control tick (COMBO, Chen et al., SoCC '23;
 * docs/papers.md): on a device that can be divided into
 * compute units (SMs through MPS or green contexts; cores on a software
 * rasterizer, where llvmpipe renders and PoCL computes on the same CPUs),
 * the games render on units [0, split) and best-effort tenants own
 * [split, total) while the games' load holds still; when it swings, the
 * games get the whole device back and best-effort work returns to the
 * time slots of harvest.h.
 *
 * COMBO decides per frame and per game; batond sees the GPU once a tick,
 * so the stage applies the same decision (core_combo_decide) to the GPU's
 * aggregate load, with the tick standing for the frame: the games' GPU
 * seconds per second u = sum k_i F_i are the render time of a one-second
 * frame, and Eq. 5 gives split = ceil(total x u x (1 + eps)) rounded to
 * the granularity. Eq. 2's spread is over the last W ticks' u; a window
 * whose every load needs the same group is stable whatever its spread
 * (ours: on a few coarse units a swing inside one group changes
 * nothing, and a software rasterizer's load swings more than 10 % from
 * tick to tick). The hold
 * is asymmetric (combo.h): hold_s of stable ticks to divide the device,
 * one swinging tick to join it again. No partition at all while no
 * best-effort tenant runs, while no game presents (continuous mode uses
 * the whole device), or while the capacity stage finds the GPU
 * overloaded (a game under its SLA gets every unit).
 *
 * The safe switch (§5.3, combo.h): a render group that grows, or a
 * change of scheme, revokes the best-effort partition for that tick: the
 * games widen at once and best-effort work, back on time slots, cannot
 * delay them.
 *
 * Ours, not COMBO's (its best-effort kernels are known to run): a
 * partition confines other users' games, so it is earned and given back
 * on measurements, never on a tenant's word.
 *   - Earned: the partition-capable best-effort tenants' CPU use, as the
 *     caller measured their processes (not their reports), smoothed over
 *     space_earn_s, must reach space_earn of the units the partition
 *     would give them (Eq. 5 on this tick's load); a tenant that only
 *     registers uses nothing and earns nothing.
 *   - Given back: a game under its SLA (the capacity stage's last
 *     period, caps.h below_sla) while the games were confined, or within
 *     that period after, joins the device at once and none is given for
 *     space_holdoff_s from then (the reading, up for the rest of its
 *     period, starts no second hold-off); a game under its SLA with no
 *     partition in force only keeps one from being given.
 * Pure: no I/O, no clock, no globals. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/combo.h"
#include "core/harvest.h"

/* One GPU's partition state and what the last tick chose. */
struct core_space_gpu {
	struct core_combo_game load; /* the aggregate's window and hold */
	uint32_t split;    /* games' units [0, split); 0: the whole device
	                      for everyone (no partition) */
	uint32_t be_first; /* best-effort units [be_first, be_first +
	                      be_count); be_count 0: none this tick */
	uint32_t be_count;
	enum core_combo_scheme scheme; /* as core_combo_decide chose */
	double spread;                 /* Eq. 2 at this tick */
	bool held;         /* this tick revoked the partition (switch) */
	uint64_t switches; /* scheme changes so far */
	/* The partition's earning and its hold-off (ours, above). */
	double be_use;     /* the partition-capable tenants' measured CPU
	                      use (units per second), smoothed */
	bool earned;       /* be_use reached space_earn of the units the
	                      partition would give, this tick */
	double holdoff_s;  /* time left before a partition may be given
	                      again; > 0 after a confined game missed */
	double blame_s;    /* time left in which a game's miss is the
	                      partition's: its SLA signal's span after the
	                      games were last confined */
	uint64_t releases; /* partitions given back for a game's miss */
};

/* One tick's measurements. */
struct core_space_in {
	double games_util;  /* u, the games' GPU share (whole-device seconds
	                       per second) */
	bool games_quiet;   /* no game presented */
	bool overload;      /* the capacity stage's */
	bool game_missed;   /* a game on the GPU read under its SLA over the
	                       last miss_span_s (caps.h below_sla) */
	double miss_span_s; /* how far back that reading looks (the
	                       capacity period) */
	size_t n_be;        /* best-effort tenants that would run on a
	                       partition */
	double be_cpu;      /* their use this tick, in units: on a CPU
	                       device their processes' CPU seconds per
	                       second, as measured; on a GPU their GPU
	                       seconds per second times the units (the
	                       caller's: daemon/tick/tick_harvest.c) */
	double dt_s;        /* the tick's length */
};

/* One tick. p->space.sm_total < 2 turns the stage off (nothing to
 * divide). */
void core_space_tick(const struct core_harvest_params *p,
                     struct core_space_gpu *s, const struct core_space_in *in);
