/* One simulated game: the frame loop CPU phase -> pacing sleep -> Present
 * that the shim sees, with the costs, the pacer and the bookkeeping of one
 * tenant. The engine (sim.c) moves it between states on its events and owns
 * the GPU; this module decides costs and sleeps and counts frames. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/pacing.h"
#include "core/predictor.h"
#include "sim/engine/metrics.h"
#include "sim/engine/rng.h"
#include "sim/scenario/scenario.h"
#include "sim/quality/sim_quality.h"

enum sim_game_state {
	SIM_GAME_CPU,      /* CPU phase; its end is scheduled */
	SIM_GAME_SLEEPING, /* pacing sleep; Present is scheduled */
	SIM_GAME_BLOCKED,  /* in Present, max_in_flight frames unfinished */
	SIM_GAME_FLUSHING, /* max_in_flight 0: Present waits for the GPU */
	SIM_GAME_STOPPED,  /* past stop_s: starts no more frames */
};

struct sim_game {
	const struct sim_tenant_spec *spec;
	struct sim_rng rng;
	struct core_predictor pred; /* submit-to-completion latency, s */
	struct core_pacer pacer;
	int64_t start_ns;
	int64_t stop_ns;   /* < 0: never stops */
	int64_t gran_ns;   /* sleep granularity, 0 = exact */
	double target_fps; /* from the controller, 0 = unpaced */
	int64_t period_ns;
	enum sim_game_state state;
	uint64_t frame; /* frames started */
	size_t next_scene;
	double cpu_mean_ms, gpu_mean_ms; /* means of the current scene */
	int64_t cpu_ns, gpu_ns;          /* costs of the frame in progress */
	uint32_t in_flight; /* frames submitted, not finished on the GPU */
	/* The control epoch in progress. */
	uint32_t ep_frames, ep_intervals;
	uint32_t ep_paced;   /* frames the pacer delayed this epoch */
	int64_t ep_sleep_ns; /* their pacing sleeps, summed */
	int64_t ep_interval_ns;
	int64_t last_present_ns; /* its last Present call, 0 = none */
	int64_t last_display_ns; /* valid if displayed */
	bool displayed;
	struct sim_metrics metrics;
	struct sim_qgame *q; /* quality levels; NULL: none */
};

/* index: the tenant's position in the scenario, which with seed picks its
 * random stream. Measured time is [warmup_ns, end_ns). A game with
 * quality levels starts at the mode's first level (sim_quality.h). */
bool sim_game_init(struct sim_game *g, const struct sim_tenant_spec *spec,
                   uint64_t seed, size_t index, int64_t warmup_ns,
                   int64_t end_ns, enum sim_quality_mode mode);
void sim_game_finish(struct sim_game *g);

/* Starts a frame at now: draws its costs. False (state STOPPED) if the game
 * starts no frame at now. */
bool sim_game_begin_frame(struct sim_game *g, int64_t now);
/* The CPU phase ended at now: returns when the pacing sleep ends (>= now),
 * i.e. when the frame reaches Present. */
int64_t sim_game_pace(struct sim_game *g, int64_t now);
void sim_game_set_target(struct sim_game *g, double fps);
/* Present may hand the frame to the GPU now (else it blocks). */
bool sim_game_can_submit(const struct sim_game *g);
/* One of its frames, submitted at submit_ns, finished on the GPU at now.
 * False only if out of memory. */
bool sim_game_displayed(struct sim_game *g, int64_t now, int64_t submit_ns);
/* What the game's shim would report of the epoch that ends: its frames
 * counted when displayed, the intervals between displays; the core turns
 * them into F_out (core/measure.h). */
struct sim_epoch {
	uint32_t frames;     /* frames displayed */
	uint32_t intervals;  /* display intervals ending in the epoch */
	int64_t interval_ns; /* their lengths, summed */
	uint32_t paced;      /* frames the pacer delayed */
	double sleep_s;      /* their pacing sleeps, summed */
};
/* Fills *e for the epoch that ends and starts the next epoch. */
void sim_game_end_epoch(struct sim_game *g, struct sim_epoch *e);
/* Whether the tenant is on the GPU's roster at now: started and not past
 * stop_s. */
bool sim_game_active(const struct sim_game *g, int64_t now);
