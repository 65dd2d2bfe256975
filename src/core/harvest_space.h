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
 * delay them. Pure: no I/O, no clock, no globals. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/combo.h"

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
};

/* One tick. games_util: u, the games' GPU share (whole-device seconds
 * per second); games_quiet: no game presented; overload: the capacity
 * stage's; n_be: best-effort tenants on the GPU; dt_s: the tick's
 * length. p->sm_total < 2 turns the stage off (nothing to divide). */
void core_space_tick(const struct core_combo_params *p,
                     struct core_space_gpu *s, double games_util,
                     bool games_quiet, bool overload, size_t n_be, double dt_s);
