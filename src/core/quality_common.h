/* Shared by the quality optimizer's files (not public): the in-place
 * index sort and the workspace carving. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/quality_opt.h"

/* A sort entry: ordered by k1 descending, then k2 descending, then idx
 * ascending (a strict total order, so the sort is deterministic). */
struct quality_key {
	double k1, k2;
	uint32_t idx;
};

/* Heapsort of keys[0..n) in that order: no allocation (libc's qsort may
 * allocate), O(n log n), the comparison inlined (a callback costs about
 * half the solvers' time at 64 x 8). */
void quality_sort(struct quality_key *keys, size_t n);

/* Takes count elements of size bytes from *cursor, rounded up to 8 bytes
 * so doubles that follow stay aligned. */
void *quality_carve(unsigned char **cursor, size_t count, size_t size);

/* What the exact solver's Pareto search needs (quality_pareto.c). */
struct quality_pareto_in {
	size_t n, nf;           /* sessions, free sessions */
	bool strict;            /* Eq. 2 with '<' */
	double lambda, eps;     /* the LP break slope; improvements sought */
	double R0, B0;          /* budget less fixed sessions; their benefit */
	const uint32_t *free_s; /* [nf] */
	const uint32_t *surv;   /* [n x 8] surviving levels by score */
	const uint32_t *n_surv; /* [n] */
	const double *wc, *score; /* [n x 8] weighted cost, b - lambda wc */
	const double *sfx_best;   /* [nf + 1] suffix sums of best scores */
	const double *sfx_minc;   /* [nf + 1] suffix sums of cheapest costs */
	const struct quality_item *items;
};

size_t quality_pareto_stage_cap(size_t n);
size_t quality_pareto_bytes(size_t n);
/* 1: found a better solution (*inc and cur[free sessions] set); 0: none
 * better exists; -1: the lists outgrew the workspace (search another
 * way). */
int quality_pareto_search(const struct quality_pareto_in *in, void *ws,
                          uint32_t *cur, double *inc);
