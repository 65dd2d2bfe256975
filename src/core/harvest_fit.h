/* Sizing one BE sub-launch (GPU grid's Eq. 1 with a measured H;
 * docs/papers.md, "GPU grid"): per kernel, t(n) = c0 + c1 n is fitted
 * online by least squares over the last CORE_HARVEST_FIT_N sub-launches,
 * and the next one gets n = clamp(floor((budget - c0) / c1), 1, N - done)
 * blocks at offset `done`. The printed Algorithm 1 only decrements N, so
 * its kernels cannot know which blocks to compute (defect 1); the task here
 * tracks the offset. Pure: no I/O, no clock, no allocation. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define CORE_HARVEST_FIT_N 16

/* The recent sub-launches of one kernel: blocks and measured seconds. */
struct core_harvest_fit {
	double n[CORE_HARVEST_FIT_N];
	double t[CORE_HARVEST_FIT_N];
	uint32_t len, next;
};

/* A task of n independent blocks, done in order from block 0. */
struct core_harvest_task {
	uint64_t n;
	uint64_t done; /* blocks finished: the next sub-launch's offset */
};

/* Adds a finished sub-launch of n blocks that took t_s (ignored if n is 0
 * or t_s is not a positive finite number); the oldest falls out. */
void core_harvest_fit_add(struct core_harvest_fit *f, uint64_t n, double t_s);

/* c0 (s, >= 0) and c1 (s per block, > 0) from the samples. With one
 * distinct n (no slope to see) or a fit whose slope or intercept is not
 * physical, a line through the origin: the estimate that over-states c1
 * when c0 > 0, so that the next sub-launch errs short. False with no
 * sample. */
bool core_harvest_fit_coef(const struct core_harvest_fit *f, double *c0,
                           double *c1);

/* Predicted time of n blocks; 0 with no sample. */
double core_harvest_fit_predict(const struct core_harvest_fit *f, uint64_t n);

/* How far the kernel's measured times run past the fit's prediction: of
 * the samples' ratios t / predict(n), the one a share q (0..1] of them
 * stay within (the second largest of 16 at q = 0.9), at least 1 and at
 * most CORE_HARVEST_SPREAD_MAX. 1 with fewer than CORE_HARVEST_SPREAD_MIN
 * samples. The fit predicts a sub-launch's mean time, and a window sized
 * to the mean is overrun by about half of them: by a fixed margin on a
 * quiet machine, but on a slower one with steal the same sub-launch took
 * 0.5x to 1.6x its mean. Dividing a window by this spread sizes the
 * sub-launch so that a share q of them end within it, whatever the
 * machine's speed and noise (docs/harvesting.md, "The slot on a slower
 * machine"). */
#define CORE_HARVEST_SPREAD_MIN 8
#define CORE_HARVEST_SPREAD_MAX 3.0
double core_harvest_fit_spread(const struct core_harvest_fit *f, double q);

/* Blocks for a sub-launch of at most budget_s: clamp(floor((budget_s - c0)
 * / c1), 1, left); 1 with no sample yet (measure one block first), 0 when
 * left is 0. */
uint64_t core_harvest_blocks(const struct core_harvest_fit *f, double budget_s,
                             uint64_t left);

/* The next sub-launch within budget_s: its offset and block count. False
 * when the task is done. */
bool core_harvest_task_next(const struct core_harvest_task *task,
                            const struct core_harvest_fit *f, double budget_s,
                            uint64_t *offset, uint64_t *count);

/* A sub-launch of count blocks finished in t_s: the offset moves on (never
 * past n) and the fit learns from it. */
void core_harvest_task_done(struct core_harvest_task *task,
                            struct core_harvest_fit *f, uint64_t count,
                            double t_s);
