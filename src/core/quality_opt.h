/* The quality optimizer (dJay §6, with the
 * corrections in docs/papers.md): pick one quality level per session to
 * maximise the summed benefit (Eq. 1) under one GPU budget (Eq. 2), one level
 * per session (Eq. 3): a multiple-choice knapsack.
 *
 * Baton's budget is GPU-seconds per second: sum_s weight_s * cost_s(level)
 * <= budget, with weight = the session's SLA in frames per second and cost
 * in GPU-seconds per frame. dJay's paper mode is weight 1, budget 33 (ms)
 * and a strict '<' (quality_params_djay).
 *
 * Three solvers share the item layout:
 *  - quality_exact: the optimum (quality_opt.c, branch and bound);
 *  - quality_full_assign / quality_epoch_step: dJay's greedy and its
 *    one-level-per-epoch hysteresis (quality_greedy.c);
 *  - quality_join: admission of a newcomer (quality_greedy.c).
 * quality_alarm_step (quality_alarm.c) is dJay's Warning / Critical rule.
 *
 * Pure: no allocation (the caller passes quality_workspace_size(n) bytes,
 * aligned for double), no globals, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define QUALITY_MAX_LEVELS 8

/* One session. Levels are ordered cheapest to best (level 0 = lowest);
 * an unmodified game is an item with n_levels = 1. */
struct quality_item {
	unsigned n_levels;                  /* 1..QUALITY_MAX_LEVELS */
	double weight;                      /* fps (SLA); 1 in paper mode */
	double cost[QUALITY_MAX_LEVELS];    /* estimated cost per frame */
	double benefit[QUALITY_MAX_LEVELS]; /* estimated benefit (SSIM) */
};

struct quality_params {
	double budget;            /* U (GPU-s/s) or B (33 ms in paper mode) */
	bool strict;              /* total < budget (dJay Eq. 2), else <= */
	bool exact_reassign;      /* full reassignments use quality_exact */
	unsigned warn_epochs;     /* Warning: consecutive epochs in band */
	unsigned critical_epochs; /* Critical: consecutive epochs above */
	double critical_ratio;    /* the band's top: 1.2 x budget (40/33) */
};

/* Baton: budget 1 GPU-s/s, '<=', exact reassignment, Warning after more
 * than 200 epochs (201), Critical after 1 epoch, ratio 1.2. */
struct quality_params quality_params_default(void);
/* dJay's paper mode: budget 33, strict '<', greedy full_assign. */
struct quality_params quality_params_djay(void);

enum quality_status {
	QUALITY_OK,
	QUALITY_INFEASIBLE, /* even every session at its cheapest misses */
};

/* Bytes of workspace every function below needs for n sessions. */
size_t quality_workspace_size(size_t n);

/* sum_s weight_s * cost_s(levels[s]), and the summed benefit. */
double quality_total_cost(const struct quality_item *items, size_t n,
                          const unsigned *levels);
double quality_total_benefit(const struct quality_item *items, size_t n,
                             const unsigned *levels);
/* Whether a total cost satisfies Eq. 2 under p (strict or not). */
bool quality_fits(const struct quality_params *p, double total);

/* The exact optimum into levels[0..n). On QUALITY_INFEASIBLE levels holds
 * each session's cheapest level (the closest to fitting). */
enum quality_status quality_exact(const struct quality_item *items, size_t n,
                                  const struct quality_params *p,
                                  unsigned *levels, void *workspace);

/* dJay's full_assign (§6.1, spec pseudocode with its [ours] guards and
 * tie-breaks). Infeasible: every session at its cheapest, as the spec. */
enum quality_status quality_full_assign(const struct quality_item *items,
                                        size_t n,
                                        const struct quality_params *p,
                                        unsigned *levels, void *workspace);

/* Full reassignment per p->exact_reassign (exact or full_assign). */
enum quality_status quality_reassign(const struct quality_item *items, size_t n,
                                     const struct quality_params *p,
                                     unsigned *levels, void *workspace);

struct quality_step_result {
	unsigned changed; /* sessions moved one level */
	bool over_budget; /* still over after the step: for Warning/Critical */
};

/* dJay's epoch step (§6.2): with residual budget, upgrade sessions one
 * level by marginal utility, best first; over budget, downgrade one level
 * each, least benefit lost per cost saved first, until it fits. levels is
 * in/out. */
struct quality_step_result quality_epoch_step(const struct quality_item *items,
                                              size_t n,
                                              const struct quality_params *p,
                                              unsigned *levels,
                                              void *workspace);

enum quality_join_result {
	QUALITY_JOIN_PLACED,     /* newcomer at the best level that fits */
	QUALITY_JOIN_REASSIGNED, /* none fitted: full reassignment */
	QUALITY_JOIN_REFUSED,    /* admission failure: old levels kept */
};

/* Session j joins (§6.3): levels of the others are the current ones;
 * levels[j] is written (0 when refused; the caller drops the session). */
enum quality_join_result quality_join(const struct quality_item *items,
                                      size_t n, size_t j,
                                      const struct quality_params *p,
                                      unsigned *levels, void *workspace);

/* Warning / Critical (§6.2, spec [ours] readings). */
struct quality_alarm {
	unsigned warn_count;     /* consecutive epochs in (B, ratio B] */
	unsigned critical_count; /* consecutive epochs above ratio B */
};

enum quality_alarm_verdict {
	QUALITY_ALARM_NONE,
	QUALITY_ALARM_WARNING,  /* full reassignment */
	QUALITY_ALARM_CRITICAL, /* full reassignment */
};

/* One epoch: measured total if measured is non-NULL, else the estimate.
 * On a verdict both counters reset (the caller runs quality_reassign). */
enum quality_alarm_verdict quality_alarm_step(struct quality_alarm *a,
                                              const struct quality_params *p,
                                              double estimated_total,
                                              const double *measured_total);
