/* COMBO's evaluation sweep (Figs. 13, 14, 16, 17): 4
 * games x 8 Parboil applications x 4 DNN training jobs = 128 groups, each
 * game with a stable and a dynamic trace, each group run under
 *   - temporal: PilotFish, the baseline of Fig. 13;
 *   - combo: adaptive (core_combo_decide) with headroom merging;
 *   - combo-nm: adaptive without merging (Fig. 16's COMBO-NM);
 *   - relaxed: the relaxed scheme only, with merging (Fig. 17).
 * Throughput is Eq. 6: the solo time of the completed BE kernels of both
 * applications over both traces; a figure's gain is the ratio - 1
 * (erratum 8). The catalogue's numbers and what each assumes are in
 * sim_combo_sweep.c and docs/combo-results.md. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/combo/sim_combo_apps.h"

#define SIM_COMBO_N_GAMES   4
#define SIM_COMBO_N_PARBOIL 8
#define SIM_COMBO_N_DNNS    4

enum sim_combo_variant {
	SIM_COMBO_V_TEMPORAL = 0,
	SIM_COMBO_V_COMBO,
	SIM_COMBO_V_COMBO_NM,
	SIM_COMBO_V_RELAXED,
	SIM_COMBO_N_VARIANTS
};

/* A game of Table 4 at 120 FPS. */
struct sim_combo_game_def {
	const char *name;
	double rt_medium_s, rt_low_s; /* derived rt_full = ratio / fps */
	double rt_share;              /* the RT phase's share (§1, §6.3) */
};

struct sim_combo_sweep_opts {
	double duration_s, warmup_s; /* per trace and variant */
	uint64_t seed;
	struct sim_combo_pairs m;
	struct core_combo_params p;
	double step_s;
	double kernel_scale; /* every BE kernel's solo time times this */
	/* bit i: game, Parboil application, DNN i is in the sweep */
	uint32_t games, parboil, dnns;
};

struct sim_combo_group {
	unsigned game, parboil, dnn;
	double work_s[SIM_COMBO_N_VARIANTS]; /* Eq. 6's sums, both traces */
	double fps_mean, fps_p99;            /* combo: the worse trace's */
	double late_pct;                     /* combo: the worse trace's */
	double integrated_pct[2];            /* combo: stable, dynamic */
	double gain13, gain16, gain17;       /* ratio - 1 */
	double forbidden_s; /* every run's sim_combo_mix_run.forbidden_s */
};

struct sim_combo_stat {
	double mean, median, max, min;
};

struct sim_combo_sweep {
	struct sim_combo_group *g;
	size_t n;
	struct sim_combo_stat fig13, fig16, fig17;
	double fig13_game[SIM_COMBO_N_GAMES]; /* mean gain per game */
	double fig13_compute, fig13_memory;   /* mean: BE kind */
	double fig17_dnn[SIM_COMBO_N_DNNS];   /* mean gain per DNN */
	double fps_mean, fps_mean_min, fps_p99_min, fps_p99_mean;
	double late_max;
	double duration_s;
};

/* 5 s a trace (0.2 s warm-up), seed 1, §1's real-kernel pair table
 * (RT+CD 13.7 %, CD+TC 18.1 %, memory-bound 0.5 x), the policy's
 * defaults but eps 0 (the split from an exact offline profile, as for
 * Table 6), a 10-us step, kernels as catalogued, every group. */
struct sim_combo_sweep_opts sim_combo_sweep_opts_default(void);

/* The sweeps `baton sim` runs by name (built-ins without a scenario
 * file): combo-fig13 (the defaults), combo-fig13-eps (eps 5.16 %, Eq. 4's
 * error bound, in the split and the merge delay), combo-fig13-long (every
 * BE kernel 1.5 x as long). */
struct sim_combo_sweep_preset {
	const char *name, *summary;
	double eps, kernel_scale;
};
/* The presets, n of them. */
const struct sim_combo_sweep_preset *sim_combo_sweep_presets(size_t *n);
/* The preset of that name, or NULL. */
const struct sim_combo_sweep_preset *sim_combo_sweep_find(const char *name);
/* The defaults with the preset's changes. */
struct sim_combo_sweep_opts
sim_combo_sweep_opts_of(const struct sim_combo_sweep_preset *preset);

const struct sim_combo_game_def *sim_combo_game_def(unsigned i);
const struct sim_combo_app *sim_combo_parboil(unsigned i);
const struct sim_combo_app *sim_combo_dnn(unsigned i);
const char *sim_combo_variant_name(enum sim_combo_variant v);

/* Runs the sweep; false on bad input or no memory. */
bool sim_combo_sweep_run(const struct sim_combo_sweep_opts *o,
                         struct sim_combo_sweep *out);
void sim_combo_sweep_finish(struct sim_combo_sweep *s);

/* Per-group rows and the figures' summaries beside the paper's. */
void sim_combo_sweep_text(FILE *out, const struct sim_combo_sweep *s);
json_t *sim_combo_sweep_json(const struct sim_combo_sweep *s);
