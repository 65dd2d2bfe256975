/* The GPU-time budget gate: a tenant's cap enforced by holding its frames
 * back before Present (gOver Sec. 3.2-3.4 in user space,
 * as gOver Sec. 5 says a non-GVT-g GPU needs; docs/papers.md).
 *
 * A cap is a ceiling of GPU-seconds per second, 0 < cap <= 1 of one GPU.
 * The gate is a bucket of GPU nanoseconds:
 * - it fills at cap ns per ns of wall time: cap x CORE_GATE_SLOT_NS per
 *   100-ms slot, as gOver's timeslice refill, but spread evenly over the
 *   slot instead of added at its start. The budget per slot is the same;
 *   refilling in one step would let a capped game burst a slot's worth of
 *   frames and then stall until the next slot (at cap 0.25 and 10-ms
 *   frames: 3 frames back to back, then 70 ms of nothing), which a player
 *   sees as stutter. Filled evenly, the frames come at cost / cap apart.
 * - it is charged with each frame's measured GPU cost when that arrives
 *   (GPU times are read back a frame or more late);
 * - a frame may present while the bucket is not in debt (level >= 0) and
 *   waits otherwise until the refill has paid the debt back.
 *
 * Unlike gOver, debt carries across the 1-s period: gOver forgives a
 * vGPU's overrun at each period start, so a tenant whose frames overrun
 * gets more than its cap. Here a frame may overrun by its whole length and
 * the next frame waits until it is paid for, however many periods that
 * takes. Debt is bounded at one period of GPU time (CORE_GATE_PERIOD_NS):
 * more than that is no interactive frame but a bogus report, and must not
 * stall a game for minutes.
 *
 * Credit is bounded at one slot's budget (cap x 100 ms), not a period's:
 * an idle tenant then bursts at most cap x 100 ms of GPU time (at cap 0.5,
 * 50 ms: a few frames of its neighbours) when it wakes up, where gOver's
 * per-period budget lets a vGPU idle for 900 ms spend the whole second's
 * in the last slot, starving the others for that long. A slot of credit
 * is still enough to absorb a game's frame-to-frame jitter below its cap,
 * which a bucket without credit would turn into waits.
 *
 * The bound is applied when a cost is charged, not while the bucket fills:
 * between two charges a frame is being drawn, and the refill over that
 * time is that frame's budget. Cut while it fills, a frame longer than a
 * slot lost everything above cap x 100 ms of it: a frame drawn in w ns
 * then waited (cost - cap x 100 ms) / cap, so the tenant got cost / (w +
 * (cost - cap x 100 ms) / cap), under its cap, and the less so the longer
 * contention made w (terrain at cap 0.30, frames of 0.2 s of both cores:
 * 0.25 alone, 0.18 beside two other games). Waking from idle, a tenant
 * spends at most the frames drawn before their first charge plus a slot's
 * budget, as before.
 *
 * Pure and allocation-free: no clock reads (the caller passes now), no
 * libm, so the shim compiles it in and the simulator runs the same gate. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define CORE_GATE_SLOT_NS   100000000LL  /* 100 ms: refill slot, credit */
#define CORE_GATE_PERIOD_NS 1000000000LL /* 1 s: the debt bound */

/* Caller-allocated; a zeroed struct is a gate without a cap. */
struct core_gate {
	double cap;      /* GPU-seconds per second, (0, 1]; 0: no cap */
	double level_ns; /* budget left; < 0: debt */
	int64_t last_ns; /* level_ns is as of this time */
	bool started;    /* last_ns is valid */
};

/* True for a usable cap value: 0 (none) or in (0, 1]; false for NaN,
 * infinities, negative values and values above one GPU. */
bool core_gate_cap_valid(double cap);

/* Cap precedence wherever two caps meet (an app entry's and a tenant's
 * own, batond's and the game's BATON_CAP): a second cap can lower the
 * first, never raise it. Returns the smaller of the two, 0 (none) only
 * when neither is set; a second cap not above 0 is none. */
double core_gate_cap_tighter(double cap, double other);

/* A gate with cap (0: none); an invalid cap gives a gate without one. The
 * bucket starts empty, neither credit nor debt. */
void core_gate_init(struct core_gate *g, double cap);

/* Changes the cap at now_ns: the time before now is refilled at the old
 * cap; debt is kept, credit is cut to the new cap's bound. Setting 0
 * removes the cap (and forgets the debt); a cap set on a gate without one
 * starts with an empty bucket. false (and nothing changed) for an invalid
 * cap. */
bool core_gate_set_cap(struct core_gate *g, int64_t now_ns, double cap);

/* Charges cost_ns of GPU time measured for a frame, at now_ns (when the
 * measurement arrived). Negative costs are ignored; without a cap, so is
 * everything. */
void core_gate_charge(struct core_gate *g, int64_t now_ns, int64_t cost_ns);

/* The earliest time >= now_ns at which the next frame may present: now_ns
 * while the bucket is not in debt (and always without a cap), else when
 * the refill will have paid the debt back. */
int64_t core_gate_open_at(struct core_gate *g, int64_t now_ns);
