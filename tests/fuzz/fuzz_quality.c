/* libFuzzer target: batond's reader of a game's quality area
 * (daemon/quality/quality.c) on hostile bytes. The input's first bytes are the
 * area as the game left it; each later 40-byte chunk rewrites 32 bytes
 * somewhere in it before another tick (a game scribbling between ticks).
 * Whatever the bytes, the declarations taken are in range and the means
 * are finite counts per frame. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/quality/quality.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct daemon_quality *q)
{
	if (!q->declared)
		return;
	if (q->n_levels == 0 || q->n_levels > BATON_QUALITY_LEVELS_MAX ||
	    q->default_level >= q->n_levels || q->n_types == 0 ||
	    q->n_types > BATON_QUALITY_TYPES_MAX ||
	    q->level_in_use >= q->n_levels ||
	    daemon_quality_control_level(q) > q->n_levels)
		abort();
	for (uint32_t i = 0; i < q->n_types; i++)
		if (!isfinite(q->active_mean[i]) || q->active_mean[i] < 0 ||
		    q->active_mean[i] > (double)UINT32_MAX ||
		    !isfinite(q->potential_mean[i]) ||
		    q->potential_mean[i] < 0 ||
		    q->potential_mean[i] > (double)UINT32_MAX)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static _Alignas(64) unsigned char image[sizeof(struct baton_quality)];
	struct baton_quality *area = (struct baton_quality *)image;
	size_t first = size < sizeof(image) ? size : sizeof(image);
	memset(image, 0, sizeof(image));
	memcpy(image, data, first);
	struct daemon_quality q;
	daemon_quality_init(&q);
	char err[128];
	daemon_quality_tick(&q, area, err, sizeof(err));
	check(&q);
	for (size_t at = first; at + 40 <= size; at += 40) {
		uint64_t where;
		memcpy(&where, data + at, 8);
		where %= sizeof(image) - 32;
		memcpy(image + where, data + at + 8, 32);
		daemon_quality_tick(&q, area, err, sizeof(err));
		check(&q);
		if (q.declared)
			daemon_quality_pin(&q, (int32_t)(where % 10) - 2);
	}
	return 0;
}
