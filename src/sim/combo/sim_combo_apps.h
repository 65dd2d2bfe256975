/* Space harvesting with several best-effort applications and kernel
 * classes (COMBO, Chen et al., SoCC '23;
 * docs/papers.md). The Table 6 model (sim_combo.h) has one
 * BE application of identical CD kernels; this one has the setting of the
 * paper's Figs. 13-17: one game, one CD-only application (Parboil-like)
 * and one DNN training job of alternating CD and TC kernels, in three
 * streams (game, BE-CD, BE-TC).
 *
 * The model:
 *   - the game as in sim_combo.h: per frame a CUDA-core (CD) phase, then
 *     the RT phase (rt_share of the frame), rt x SM_total / s on s SMs
 *     (§5.4); a stable trace (a level that moves by up to +-3 % every
 *     calm_frames on average: Eq. 3 calls it stable) or a dynamic one
 *     (levels in [rt_lo, rt_hi], a new one every change_frames in swinging
 *     spells, held in calm ones; spells of spell_frames on average, Fig.
 *     18's mix);
 *   - each BE application a FIFO (erratum 10: one per application, only
 *     kernels of different applications co-run) cycling through its
 *     kernels, each with a class (CD, TC) and a solo time on the whole GPU,
 *     1/s on s SMs; one kernel of each in flight;
 *   - two kernels on the same SMs share them at core_combo_corun_speed(m)
 *     (Eq. 1), m from the pair table: game RT with BE CD rt_cd, BE CD with
 *     BE TC cd_tc, same class 0 (Table 3); a memory-bound application's
 *     co-runs gain mem_scale x m. Which pairs may share SMs is the
 *     policy's (core_combo_may_corun): never RT with TC, never the game's
 *     CD with BE work;
 *   - the game paced on its 1/fps grid, shown at its deadline or late.
 *
 * Schemes (enum sim_combo_scheme): temporal (PilotFish: one BE kernel at a
 * time, alone, after the render, if its solo time fits what is left),
 * relaxed (the RT phase co-runs a BE CD kernel where the shared ends meet
 * the deadline; after the render BE CD and TC co-run where both end in
 * time), integrated (Eq. 5's split; both applications back to back on the
 * BE group, co-running there), adaptive (core_combo_decide per frame).
 * Headroom merging (§5.5) on request, relaxed frames only: a frame whose
 * window joined with the next one's admits more work
 * (core_combo_merge_gain) delays the next frame's render by
 * core_combo_merge_delay. Render times are predicted exactly (the paper's
 * offline profile); eps keeps Eq. 4's error bound in the split and the
 * merge delay. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/combo.h"
#include "sim/combo/sim_combo.h"

#define SIM_COMBO_APP_MAX_KERNELS 8

/* A best-effort application: a cycle of kernels. */
struct sim_combo_app {
	const char *name;
	bool memory_bound; /* co-runs gain mem_scale x m */
	size_t n;          /* kernels in the cycle (1..MAX_KERNELS) */
	enum core_combo_kclass cls[SIM_COMBO_APP_MAX_KERNELS];
	double solo_s[SIM_COMBO_APP_MAX_KERNELS]; /* on the whole GPU */
};

/* The pair table (Eq. 1's makespan reduction per pair of classes). */
struct sim_combo_pairs {
	double rt_cd;     /* game RT with BE CD */
	double cd_tc;     /* BE CD with BE TC */
	double mem_scale; /* a memory-bound application's share of m */
};

#define SIM_COMBO_MIX_APPS 2

struct sim_combo_mix {
	struct core_combo_params p;
	double fps;
	enum sim_combo_trace trace;
	double rt_s;             /* stable: the level */
	double rt_lo_s, rt_hi_s; /* dynamic: the range of levels */
	double change_frames;    /* dynamic: mean frames per level (swinging) */
	double spell_frames;     /* dynamic: mean frames per spell */
	double calm_frames;      /* stable: mean frames per +-3 % move */
	double rt_share;         /* the RT phase's share of a frame */
	struct sim_combo_app apps[SIM_COMBO_MIX_APPS];
	struct sim_combo_pairs m;
	double step_s;
};

/* One run of one scheme. */
struct sim_combo_mix_run {
	double work_s[SIM_COMBO_MIX_APPS]; /* Eq. 6: solo time of completed
	                                      kernels, per application */
	double work_cd_s, work_tc_s;       /* the same, per class */
	uint64_t frames;
	double fps_mean, fps_p99, late_pct, integrated_pct;
	uint64_t merged;    /* frames delayed by a headroom merge */
	uint64_t coruns;    /* BE kernels launched onto SMs shared with the
	                       render or another BE kernel */
	uint64_t rt_coruns; /* of them, beside the render's RT phase */
	double forbidden_s; /* time a BE kernel shared SMs with a render
	                       kernel core_combo_may_corun forbids (0) */
};

/* Table 3's synthetic pair table: RT+CD 39.87 %, CD+TC 44.12 %. */
struct sim_combo_pairs sim_combo_pairs_table3(void);

/* Runs one scheme (merge: headroom merging in relaxed frames) over
 * duration_s, the first warmup_s not measured, the trace from seed. False
 * on bad input or no memory. */
bool sim_combo_mix_run(const struct sim_combo_mix *mx,
                       enum sim_combo_scheme scheme, bool merge,
                       double duration_s, double warmup_s, uint64_t seed,
                       struct sim_combo_mix_run *out);
