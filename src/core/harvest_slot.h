/* Where in the games' frame cycle a best-effort sub-launch may run (GPU
 * grid's Eq. 1 says how long a sub-launch may be, not when).
 *
 * A paced game is idle at the end of each period: after its CPU phase and
 * its GPU work, while the pacer sleeps before Present. A sub-launch that
 * starts at an arbitrary phase may land on a frame's CPU phase or GPU work
 * and stretch it (on a software rasterizer the BE kernel and the game
 * compete for the same cores; on a GPU it delays the frame's work): Eq. 1
 * keeps the frame within its deadline, but not at its usual time, and the
 * frame-interval tail grows. The slot is the span of each period in which
 * every game is in its pacing sleep: best-effort work started there, no
 * longer than the slot, meets no game's frame.
 *
 * For game i with period P_i (its pacing target), its last Present at
 * p_i, its mean pacing wait per frame d_i (sleep and gate, over the last
 * epoch) and its GPU time per frame k_i, the idle span before each
 * Present is [p_i + m P_i - d_i + k_i, p_i + m P_i - margin]: the k_i
 * at its start covers GPU work still draining from a submit made before
 * the wait (Vulkan submits before Present). A game whose frames reach the
 * GPU after the wait (work_after_wait: OpenGL renders at the real swap)
 * has none draining, and its span is the whole wait. The slot is the spans'
 * intersection, which recurs only if the games share a period: periods more
 * than period_tolerance apart give no slot (their phases slide), and the window
 * alone decides, as it does when the spans do not overlap.
 *
 * Pure: the caller passes the time (seconds on the clock of p_i). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/harvest.h"

/* struct core_harvest_slot is in harvest.h, a member of the GPU's
 * harvesting state. */

/* Game g's frame cycle as the slot and the phase steering
 * (harvest_phase.h) read it: its period (1 / target_fps), its first
 * Present after now_s, and how long it is busy after each Present (the
 * period less its mean wait, plus the k still draining in the wait when
 * its frames reach the GPU before it: the complement of its idle span),
 * at most the period. False when it has no Present, rate, k or wait. */
struct core_harvest_cycle {
	double period_s;
	double next_s;
	double busy_s;
};
bool core_harvest_cycle(const struct core_tenant *g, double now_s,
                        struct core_harvest_cycle *out);

/* The slot over the games at now_s; false (and len_s 0) when there is
 * none: alignment off, a game without a Present, a rate, a wait or a k,
 * periods apart, or spans that leave less than slot_min_s in common. */
bool core_harvest_slot(const struct core_harvest_params *p,
                       const struct core_tenant *games, size_t n, double now_s,
                       struct core_harvest_slot *out);

/* The window a sub-launch may use at now_s: window_s itself without a
 * slot; inside an occurrence, the smaller of window_s and the time left
 * in it, if that is at least half of min(window_s, len_s) (a shorter
 * sub-launch would be mostly its fixed cost c0); else 0, with the next
 * occurrence's start in *next_s. */
double core_harvest_slot_window(const struct core_harvest_slot *s,
                                double window_s, double now_s, double *next_s);

/* The length of the slot's pieces when none may pass max_s: the slot
 * divided evenly, len_s / ceil(len_s / max_s). Pieces of max_s itself
 * leave a remainder at the slot's end that is lost whenever it is under
 * half a piece (core_harvest_slot_window), up to a piece every period;
 * even pieces fill the slot. max_s itself without a slot. */
double core_harvest_slot_piece(const struct core_harvest_slot *s, double max_s);

/* The rest after a sub-launch given in the slot, rest_s being the
 * budget's (core_harvest_rest): none when the slot alone keeps the tenant
 * within its budget (its share of the period, len_s / period_s, at most
 * budget), so that the next piece of the same occurrence starts at once;
 * else rest_s. Several tenants splitting a budget by weight each get
 * less than the slot's share, and keep their rests. */
double core_harvest_slot_rest(const struct core_harvest_slot *s, double budget,
                              double rest_s);
