/* Shared by the quality optimizer's files (not public): the in-place
 * index sort and the workspace carving. */
#pragma once

#include <stddef.h>
#include <stdint.h>

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
