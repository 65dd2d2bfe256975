#include "core/gate.h"

bool core_gate_cap_valid(double cap)
{
	/* NaN fails both comparisons. */
	return cap >= 0.0 && cap <= 1.0;
}

double core_gate_cap_tighter(double cap, double other)
{
	return other > 0.0 && (cap == 0.0 || other < cap) ? other : cap;
}

void core_gate_init(struct core_gate *g, double cap)
{
	*g = (struct core_gate){0};
	if (core_gate_cap_valid(cap))
		g->cap = cap;
}

/* Brings the level up to now_ns. The first call only starts the clock: a
 * gate knows nothing of the time before it was first asked. A clock that
 * goes back (it never should) refills nothing. The refill is not cut to
 * the credit bound here, only to one period: the time since the last
 * charge is the time a frame whose cost has not arrived yet was drawing,
 * and its budget is that frame's (core_gate_charge cuts what is left). */
static void refill(struct core_gate *g, int64_t now_ns)
{
	if (!g->started) {
		g->started = true;
		g->last_ns = now_ns;
		return;
	}
	if (now_ns <= g->last_ns)
		return;
	g->level_ns += g->cap * (double)(now_ns - g->last_ns);
	if (g->level_ns > (double)CORE_GATE_PERIOD_NS)
		g->level_ns = (double)CORE_GATE_PERIOD_NS;
	g->last_ns = now_ns;
}

/* Credit above one slot's budget is cut. */
static void cut_credit(struct core_gate *g)
{
	double credit = g->cap * (double)CORE_GATE_SLOT_NS;
	if (g->level_ns > credit)
		g->level_ns = credit;
}

bool core_gate_set_cap(struct core_gate *g, int64_t now_ns, double cap)
{
	if (!core_gate_cap_valid(cap))
		return false;
	if (cap == 0.0 || g->cap == 0.0) {
		/* Removed, or set on a gate that had none: a fresh bucket. */
		core_gate_init(g, cap);
		if (cap > 0.0)
			refill(g, now_ns);
		return true;
	}
	refill(g, now_ns);
	g->cap = cap;
	cut_credit(g);
	return true;
}

void core_gate_charge(struct core_gate *g, int64_t now_ns, int64_t cost_ns)
{
	if (g->cap == 0.0 || cost_ns < 0)
		return;
	refill(g, now_ns);
	g->level_ns -= (double)cost_ns;
	cut_credit(g);
	if (g->level_ns < -(double)CORE_GATE_PERIOD_NS)
		g->level_ns = -(double)CORE_GATE_PERIOD_NS;
}

int64_t core_gate_open_at(struct core_gate *g, int64_t now_ns)
{
	if (g->cap == 0.0)
		return now_ns;
	refill(g, now_ns);
	if (g->level_ns >= 0.0)
		return now_ns;
	/* Rounded up, so that at the time returned the debt is paid. The
	 * debt bound keeps this under 1e9 / cap ns, far from overflow for
	 * any cap a tenant can have (the smallest double above 0 aside:
	 * clamped). */
	double wait = -g->level_ns / g->cap;
	if (wait > (double)INT64_MAX / 4)
		return now_ns + INT64_MAX / 4;
	int64_t w = (int64_t)wait;
	if ((double)w < wait)
		w++;
	return now_ns + w;
}
