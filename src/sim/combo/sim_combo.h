/* Space harvesting in the simulator (COMBO, Chen et al., SoCC
 * '23; docs/papers.md, "COMBO"): one game and one
 * best-effort (BE) application on a GPU of SM_total SMs, frame by frame,
 * under the policy batond runs (core/combo.h).
 *
 * The model (what COMBO's results depend on):
 *   - the game renders each frame in a CUDA-core phase then an RT phase
 *     (rt_share of it); a frame of rt seconds on the whole GPU takes
 *     rt x SM_total / s on s SMs (§5.4); its render time comes from a
 *     stable trace (constant) or a dynamic one (a level in [lo, hi] held
 *     for a geometric number of frames, mean change_frames);
 *   - the BE application is a FIFO of identical CUDA-core kernels of
 *     be_kernel_s on the whole GPU, one in flight (a stream), scaling as
 *     1/s on s SMs; a kernel keeps the SMs it was launched onto until it
 *     ends (PTB blocks bound by SM id, Fig. 8);
 *   - two kernels sharing SMs (the game's RT phase and a BE kernel, the
 *     relaxed scheme's intra-SM co-run) each run at 1 / (2 (1 - m)) of
 *     their solo speed: equal solo times T end together at (1 - m) 2T,
 *     Eq. 1's makespan reduction m (Fig. 7: 13.7 % for RT with CD);
 *   - the game is paced: a frame starts on its grid (1/fps) and is shown
 *     at its deadline if its render ended by then, else at its end (and
 *     the grid moves on from there).
 *
 * Schemes, each run on the same trace: "temporal" (PilotFish: a BE
 * kernel only after the render, where its solo time fits what is left of
 * the period), "relaxed" (intra-SM co-run in the RT phase where the
 * shared ends meet the deadline, then temporal), "integrated" (exact
 * inter-SM: the render on Eq. 5's SMs, BE on the rest, a growing render
 * group holding BE launches for that frame), "adaptive" (COMBO: Eqs. 2-3
 * pick one of the last two frame by frame). The render time each frame is
 * predicted exactly (the paper's offline profile; eps covers Eq. 4's
 * error where a scenario sets it). Headroom merging (§5.5) is not
 * modelled. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/combo.h"

enum sim_combo_scheme {
	SIM_COMBO_TEMPORAL = 0,
	SIM_COMBO_RELAXED,
	SIM_COMBO_INTEGRATED,
	SIM_COMBO_ADAPTIVE,
	SIM_COMBO_N_SCHEMES
};

enum sim_combo_trace { SIM_COMBO_STABLE = 0, SIM_COMBO_DYNAMIC = 1 };

struct sim_combo_spec {
	bool on;                    /* the scenario has a combo group */
	struct core_combo_params p; /* the policy's parameters */
	double fps;                 /* the game's rate (its QoS: 1/fps) */
	enum sim_combo_trace trace;
	double rt_s;             /* stable: the render time */
	double rt_lo_s, rt_hi_s; /* dynamic: its range */
	double rt_mean_s;        /* dynamic: its mean (lo..hi) */
	double change_frames;    /* dynamic: mean frames per level */
	double rt_share;         /* the RT phase's share of a frame */
	double be_kernel_s;      /* a BE kernel on the whole GPU */
	double corun_gain;       /* m: RT with CD co-run (Eq. 1) */
	double step_s;           /* the model's time step */
	uint32_t schemes;        /* bit per enum sim_combo_scheme */
};

/* One frame of a run, for `baton sim --plot` (cli/plot_combo.c). */
struct sim_combo_sample {
	double t_s;      /* the frame's start, from the run's start */
	double rt_s;     /* its render time on the whole GPU (the trace) */
	double render_s; /* start to the render's end on the SMs it had; 0
	                    if the run ended first */
	double be_busy;  /* SMs BE kernels held, averaged over the frame
	                    (its start to the next frame's); a co-run kernel
	                    holds every SM it shares */
	uint32_t split;  /* the render group: Eq. 5 (integrated), sm_total
	                    otherwise (core_combo_frame) */
	uint32_t be_sms; /* SMs BE may be launched onto: sm_total - split
	                    (integrated; 0 held), sm_total otherwise */
	uint8_t scheme;  /* enum sim_combo_scheme in force: temporal,
	                    relaxed or integrated */
	bool held;       /* the frame held BE launches (the safe switch) */
};

/* A run's frames, warm-up included, bounded: at most
 * SIM_COMBO_TIMELINE_MAX samples over the whole run, evenly decimated (when
 * the buffer fills, every other sample goes and the stride doubles: frame k
 * is kept iff k % stride == 0). 20,000 is 5.5 min at 60 FPS undecimated, and
 * about 1 MB a run. */
#define SIM_COMBO_TIMELINE_MAX 20000

struct sim_combo_timeline {
	struct sim_combo_sample *v;
	size_t n, cap;
	uint64_t stride; /* every stride-th frame is kept (1, 2, 4, ...) */
	uint32_t sm_total;
	double period_s; /* the QoS: 1/fps */
};

/* One scheme's run. */
struct sim_combo_run {
	enum sim_combo_scheme scheme;
	uint64_t frames;          /* measured (after the warm-up) */
	double be_kernels;        /* BE kernels completed */
	double kernels_per_frame; /* be_kernels / frames (Table 6) */
	double fps_mean;          /* frames shown per second */
	double fps_p99;           /* 1 / the p99 frame interval */
	double late_pct;          /* frames shown after their deadline */
	double integrated_pct;    /* frames under the integrated scheme */
	uint64_t held;            /* frames whose BE launches were held */
	uint64_t switches;        /* scheme changes */
	struct sim_combo_timeline timeline; /* freed by sim_combo_free */
};

struct sim_combo_result {
	struct sim_combo_run runs[SIM_COMBO_N_SCHEMES];
	size_t n_runs;
};

/* Table 6's setting: QoS 16.7 ms, 82 SMs, 14.8-ms stable frames, RT 36.5 %
 * of a frame, 1.2-ms mriq kernels, m 13.7 %, eps 0, a 10-us step, every
 * scheme; dynamic 12-16 ms with the same mean, a level every 3 frames. */
struct sim_combo_spec sim_combo_spec_default(void);

/* "temporal", "relaxed", "integrated", "adaptive"; NULL past the end. */
const char *sim_combo_scheme_name(enum sim_combo_scheme s);

/* Runs every scheme in spec->schemes over duration_s (the first warmup_s
 * not measured), the trace drawn from seed. False on bad input. */
bool sim_combo_run(const struct sim_combo_spec *spec, double duration_s,
                   double warmup_s, uint64_t seed,
                   struct sim_combo_result *out);
/* Frees the runs' timelines; the figures stay. */
void sim_combo_free(struct sim_combo_result *r);

/* The frame intervals a run measured (for their percentiles). */
struct sim_combo_intervals {
	double *v;
	size_t n, cap;
};
/* Appends x; false when out of memory. */
bool sim_combo_intervals_push(struct sim_combo_intervals *iv, double x);

/* Spends w SM-seconds of render on a frame: its CD phase first, what
 * exceeds it on the RT phase. True once both are done. */
bool sim_combo_frame_work(double *cd_left, double *rt_left, double w);

/* Appends frame k's sample (frames counted from 0, each offered once, in
 * order) if the stride keeps it, decimating when full. *index: where it
 * went, or -1 when not kept. False when out of memory. */
bool sim_combo_timeline_add(struct sim_combo_timeline *tl, uint64_t k,
                            const struct sim_combo_sample *s, long *index);
