/* Placement holds: a GPU that `place` has just given a session keeps a
 * seat for it until the session registers there or the hold runs out.
 * Without one, two sessions placed at the same instant see the same loads
 * and both go to the emptiest GPU (spread), or both to a GPU with room
 * for one. A hold counts as a session in placement's pick (its expected
 * load, and one more tenant) and in the GPU's count of sessions that fit.
 * Bounded: CORE_PLACE_HOLDS_MAX in all, CORE_PLACE_HOLDS_PER_UID for one
 * user (a user placing more replaces its own oldest), so no asker can
 * grow batond's memory or fill the table for others. Pure, as all of
 * src/core. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/place.h"

#define CORE_PLACE_HOLDS_MAX     64
#define CORE_PLACE_HOLDS_PER_UID 8

struct core_place_hold {
	bool live;
	uint32_t gpu;
	uint32_t uid;
	double load;      /* the session's expected load (0: cost unknown) */
	int64_t until_ns; /* it lapses then */
};

struct core_place_holds {
	struct core_place_hold h[CORE_PLACE_HOLDS_MAX];
};

/* A seat on gpu for uid's session, expected load `load`, held for
 * hold_ns from now (0: holds are off, nothing is kept). */
void core_place_holds_add(struct core_place_holds *hs, uint32_t gpu,
                          uint32_t uid, double load, int64_t now_ns,
                          int64_t hold_ns);

/* The live holds on each of g[0..n): their loads added to g[i].load and
 * their number to g[i].tenants; written to held[i] when held is not
 * NULL. Lapsed holds are dropped. */
void core_place_holds_apply(struct core_place_holds *hs, int64_t now_ns,
                            struct core_place_gpu *g, size_t n, uint32_t *held);

/* uid's session registered on gpu: the oldest of uid's holds there is
 * used up. False when uid held none there. */
bool core_place_holds_take(struct core_place_holds *hs, uint32_t gpu,
                           uint32_t uid);
