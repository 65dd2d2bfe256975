/* Steering the games' Presents into packed phases (Baton's, not GPU grid's;
 * docs/harvesting.md "Steering the games' phases").
 *
 * The slot (harvest_slot.h) is the intersection of the games' pacing
 * waits, and each wait ends at the game's Present. Two games paced to
 * the same period but presenting half a period apart share only what
 * their waits overlap: 17 ms of a 33 ms period in one measured run, 28
 * in another, and the slot's harvest followed it (58 % and 93 %,
 * docs/benchmarks.md). Nothing held the phases: each pacer's grid is
 * anchored where its game's first (or last late) frame fell.
 *
 * So while best-effort work runs beside them, the games' pacers hold
 * their Presents packed in each period: the first game with a Present, a
 * target, a k and a wait (the leader) keeps its own phase, and each other
 * such game whose period is within period_tolerance of the leader's is
 * given, as its phase, the time the game before it finishes: that game's
 * Present plus its busy span (the period less its mean wait, plus a k
 * when its frames reach the GPU before the wait: the complement of its
 * idle span in harvest_slot.h) plus margin_s. The slot is then the
 * period less the busy spans and margins, whatever phases the games
 * started at. Its shim moves its grid toward that phase by at most a
 * small step per frame (core_pacer_steer, pacing.h), so a frame interval
 * changes by no more than that step while it converges, about half a
 * second at most, and then only when the two grids drift a dead band
 * apart. A phase once given is kept while the packing moves by less than
 * one such step (the busy spans move a little from tick to tick). The
 * slot's best-effort work does not wait while a follower converges: a
 * hold until every follower was within period / 8 of its phase cost
 * heavy games 30 % of the rows for no gain in frame p99 (the phase of a
 * game with late frames is off that far often; docs/benchmarks.md).
 *
 * Packed, not presenting together: two games presenting at once wait for
 * each other's frames, on a FIFO GPU in the queue and on a software
 * rasterizer for the same cores. Measured on llvmpipe with the Presents
 * together (docs/benchmarks.md): the slot 27-28 ms of 33, harvest 86-91
 * %, but the second game's frame p99 1.14-1.16x its own alone.
 *
 * Only with `align` and `steer` on and at least one best-effort tenant
 * that uses the slot (one outside the idle lane): games alone are never
 * moved. The control tick calls it only on a device that is this host's
 * CPUs (core_harvest_stage.cpu_device; docs/harvesting.md says why not
 * on a GPU). Pure: no I/O, no clock. */
#pragma once

#include <stddef.h>

#include "core/harvest.h"
#include "core/policy.h"

/* Sets each game's phase_s: 0 for the leader, for games whose period is
 * too far from the leader's, that lack a Present, target, k or wait, that
 * are pinned (fixed_fps) or whose SLA is above the leader's target, and
 * for all when steering is off or n_slot_be is 0; otherwise, in the
 * games' order after the leader, the leader's next Present after now_s
 * plus the busy spans and margins of the games packed before it (or the
 * phase it had, while that is within a step). Returns the leader's
 * index, or n when none. */
size_t core_harvest_phase(const struct core_harvest_params *p,
                          struct core_tenant *games, size_t n, size_t n_slot_be,
                          double now_s);
