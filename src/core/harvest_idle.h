/* The idle-priority lane (Baton's, not GPU grid's; docs/harvesting.md
 * "The idle-priority lane"). GPU grid had one way to keep best-effort
 * work out of a frame's way: not to launch it, so it fits every
 * sub-launch into Eq. 1's window and the slot. A device that is the
 * host's CPUs (PoCL computing beside llvmpipe) has a second: the OS
 * scheduler. A thread at SCHED_IDLE runs only on a core no other thread
 * wants, and yields it the moment a game's thread wakes, so the time a
 * game leaves idle *during* its frame (a core its rasterizer does not
 * use, the gaps between its draw calls) is best-effort work's too, not
 * only the span of each period every game waits in.
 *
 * A best-effort tenant whose device is this host's CPUs and whose client
 * says it follows the lane (idle_capable: its hello's "idle") is put in
 * it when the `idle_lane` parameter is on, no best-effort tenant on the
 * GPU is stuck and the capacity stage finds no overload (a game under
 * its SLA gets the whole machine, and the time slots are the more
 * careful rule). In the lane: window continuous_s
 * (sub-launches back to back: the scheduler, not the window, keeps frames
 * on time) and budget min(cap, w_i / max w) (the heaviest tenant never
 * rests, the others rest in proportion to their weights; the scheduler
 * shares idle cores evenly between the threads that run). The client
 * drops its threads to SCHED_IDLE before its first sub-launch there
 * (sdk/be_idle.c); it stays there when the lane closes, since an
 * unprivileged thread cannot leave SCHED_IDLE (sched(7)).
 * Pure: no I/O, no clock. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/harvest.h"

/* After core_harvest_tick: sets each tenant's `idle` and, for those in
 * the lane, its window and budget as above. Returns how many are in the
 * lane (they need no space partition). */
size_t core_harvest_idle(const struct core_harvest_params *p,
                         const struct core_harvest_gpu *hg, bool overload,
                         struct core_be_tenant *be, size_t n);
