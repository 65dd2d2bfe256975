/* Shared by the quality optimizer's files (not public): the in-place
 * index sort and the workspace carving. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Returns whether index a goes before index b. */
typedef int (*quality_before_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Heapsort of idx[0..n) by before(): no allocation (libc's qsort may
 * allocate), O(n log n). Deterministic provided before() is a strict
 * total order (callers break every tie by index). */
void quality_sort(uint32_t *idx, size_t n, quality_before_fn before,
                  const void *ctx);

/* Takes count elements of size bytes from *cursor, rounded up to 8 bytes
 * so doubles that follow stay aligned. */
void *quality_carve(unsigned char **cursor, size_t count, size_t size);
