/* A simulated game's quality levels (dJay; docs/scenarios.md "Quality"):
 * its area cursor, the GPU cost and SSIM of each frame at its level, the
 * epoch's potential object counts the quality stage's estimates come from
 * (dJay §5), and the displayed SSIM per one-second window. The engine calls
 * it from game.c (frames), sim_tick.c (the stage) and sim.c (results). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/quality_stage.h"
#include "sim/scenario/scenario.h"
#include "sim/engine/result.h"

#define SIM_QRING 32 /* frames started, not yet displayed: <= 17 */

struct sim_qgame {
	const struct sim_quality_spec *spec;
	uint32_t level;
	/* area cursor: the area, and when (game time) and at which frame
	 * it began */
	size_t area;
	int64_t area_t0_ns;
	uint64_t area_f0;
	/* frames in flight, oldest first: their SSIM and GPU seconds */
	double ring_ssim[SIM_QRING], ring_cost_s[SIM_QRING];
	uint32_t head, count;
	/* this control epoch: potential counts summed over frames started,
	 * GPU seconds of the frames displayed */
	double ep_pot[CORE_QM_MAX_TYPES];
	double ep_act[CORE_QM_MAX_TYPES]; /* active counts, the same way */
	uint32_t ep_pot_frames;
	double ep_cost_s;
	double last_ssim;
	/* per one-second window: SSIM of the frames displayed, summed; the
	 * last displayed SSIM and the level at the window's end */
	size_t n_secs;
	double *ssim_sum_per_s, *last_per_s, *level_per_s;
	struct sim_level_change *changes;
	size_t n_changes, cap_changes;
	struct sim_area_change *areas;
	size_t n_areas, cap_areas;
	bool oom;
};

/* The level a game runs at first under mode. */
uint32_t sim_quality_first_level(const struct sim_quality_spec *q,
                                 enum sim_quality_mode mode);
bool sim_qgame_init(struct sim_qgame *q, const struct sim_quality_spec *spec,
                    uint32_t level, size_t n_secs);
void sim_qgame_finish(struct sim_qgame *q);
/* Frame number `frame` (1-based) starts at now, the game having started at
 * start_ns: moves the area cursor, adds the potential counts to the
 * epoch's, and returns the frame's model GPU cost (ms) at the level. */
double sim_qgame_frame_ms(struct sim_qgame *q, int64_t now, int64_t start_ns,
                          uint64_t frame);
/* The frame just costed goes in flight with its actual GPU cost. */
void sim_qgame_push(struct sim_qgame *q, double cost_s);
/* Its oldest frame in flight was displayed at now (< end of the run). */
void sim_qgame_displayed(struct sim_qgame *q, int64_t now);
/* The stage's inputs for this epoch (n_levels, cost, benefit from the
 * epoch's mean potential counts; start_level; not pinned), and the GPU
 * seconds of the frames displayed, as a shim's timer queries report them;
 * starts the next epoch. */
double sim_qgame_fill(struct sim_qgame *q, struct core_quality_tenant *t);
/* The stage chose level at now, after `frame` frames started: the next
 * frame runs at it. */
void sim_qgame_set_level(struct sim_qgame *q, uint32_t level, int64_t now,
                         uint64_t frame);
/* Window w ended: its level and last SSIM. */
void sim_qgame_sample(struct sim_qgame *q, size_t w);
