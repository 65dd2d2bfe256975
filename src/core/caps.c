/* The capacity stage (caps.h): gOver Sec. 3.3 with Algorithm 1
 * corrected (docs/papers.md, "gOver"). Each of the
 * printed algorithm's defects (a)-(h) is named where this file avoids it. */
#include "core/caps.h"

#include <math.h>

#include "core/caps_wc.h"
#include "core/policy.h"

const char *core_admit_reason_str(enum core_admit_reason r)
{
	switch (r) {
	case CORE_ADMIT_FITS:
		return "fits";
	case CORE_ADMIT_BAD_PROFILE:
		return "the newcomer's expected load is not a positive number";
	case CORE_ADMIT_NO_SAMPLE:
		return "no sampling period has ended yet";
	case CORE_ADMIT_SEVERE:
		return "more than one tenant is overloaded: capacity is not "
		       "advertised";
	case CORE_ADMIT_NOT_QUIET:
		return "an overload, arrival or departure in the last "
		       "periods";
	case CORE_ADMIT_LOAD:
		return "total load plus the newcomer's would reach U_l";
	case CORE_ADMIT_ENCODER:
		return "encoder: its load plus the newcomer's stream would "
		       "reach cap_encoder_limit";
	case CORE_ADMIT_VRAM:
		return "VRAM: the newcomer's video memory does not fit in "
		       "what the GPU has free";
	}
	return "unknown";
}

/* A published cap outside (0, 1] (NaN included) is no cap: the driver
 * rejects such input with an error; the core must not act on it. */
static bool capped(const struct core_tenant *t)
{
	return t->cap_initial > 0.0 && t->cap_initial <= 1.0;
}

/* (e) unused_cap is undefined in the paper: Baton's max(0, cap(1-u)). */
static double unused_cap(const struct core_tenant *t)
{
	double u = t->caps.u;
	if (!(u < 1.0))
		return 0.0;
	return t->caps.cap * (1.0 - (u > 0.0 ? u : 0.0));
}

/* What a tenant can give a newcomer and still run under U_o at its last
 * measured use: cap - used / U_o (its whole cap before it was sampled).
 * The newcomer takes at most half of it, so the giver stays under U_o. */
static double spare_cap(const struct core_params *p,
                        const struct core_tenant *t)
{
	if (!t->caps.sampled)
		return t->caps.cap;
	double used = t->caps.u * t->caps.cap;
	double s = t->caps.cap - used / (p->cap_u_over > 0 ? p->cap_u_over : 1);
	return s > 0.0 ? s : 0.0;
}

/* A published cap that changed (baton set): a dynamic cap above it goes
 * back to the pool at once (G1); an uncapped tenant returns all of it. */
static void follow_published(struct core_gpu *gpu, struct core_tenant *t)
{
	struct core_cap_state *c = &t->caps;
	if (!c->joined)
		return;
	if (!capped(t)) {
		gpu->caps.pool += c->cap;
		c->cap = 0.0;
		c->joined = false;
		c->over_run = 0;
		return;
	}
	if (c->cap > t->cap_initial) {
		gpu->caps.pool += c->cap - t->cap_initial;
		c->cap = t->cap_initial;
	}
}

/* A newcomer's first dynamic cap. The paper leaves it unspecified (notes,
 * Sec. 3 "Admission"); Baton's rule: the pool first, then, up to what its
 * learned cost needs at its SLA at the sized utilization (k x sla /
 * sized_u, caps.h), or a fair share cap_total / (joined + 1) while its
 * cost is unknown, half of the others'
 * spare cap, taken in proportion to it. Never above its published cap. The sum
 * of caps and pool does not change. */
static void join(const struct core_params *p, struct core_gpu *gpu,
                 struct core_tenant *t, size_t n, size_t me)
{
	struct core_tenant *nt = &t[me];
	double want = nt->cap_initial;
	double got = want < gpu->caps.pool ? want : gpu->caps.pool;
	if (got < 0.0)
		got = 0.0;
	gpu->caps.pool -= got;

	size_t joined = 0;
	double spare = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (i == me || !t[i].caps.joined)
			continue;
		joined++;
		spare += spare_cap(p, &t[i]);
	}
	double fair = p->cap_total / (double)(joined + 1);
	/* the sized utilization: U_o less CORE_CAP_SIZE_MARGIN of it */
	double sized_u = p->cap_u_over * (1.0 - CORE_CAP_SIZE_MARGIN);
	double need =
	    nt->k > 0.0 && sized_u > 0.0 ? nt->k * nt->sla_fps / sized_u : 0.0;
	double aim = need > 0.0 ? need : fair;
	double extra = (want < aim ? want : aim) - got;
	if (extra > 0.0 && spare > 0.0) {
		double take = extra < 0.5 * spare ? extra : 0.5 * spare;
		for (size_t i = 0; i < n; i++) {
			if (i == me || !t[i].caps.joined)
				continue;
			double s = take * spare_cap(p, &t[i]) / spare;
			if (s > t[i].caps.cap)
				s = t[i].caps.cap;
			t[i].caps.cap -= s;
			got += s;
		}
	}
	nt->caps.cap = got;
	nt->caps.joined = true;
	/* Alg. 1 restarts the quiet count after admitting (notes: "reset"):
	 * the newcomer's load is not in the last samples yet. */
	gpu->caps.quiet = 0;
}

/* A period's deficit under the SLA that is an overload at once: a heavy
 * scene under a cap sized for a light one runs at a third of its SLA. */
#define CAP_SLA_DEEP 0.25

/* The FPS rule: a period far under the SLA, or two in a row under it. One
 * shallow period alone is noise, not a tenant outgrowing its cap: on a
 * machine with a few percent steal, a game holding its SLA in a light
 * scene loses a frame or two to a hiccup (or a scene load's stall) in one
 * period, and that alone flagged it overloaded, took cap from a donor and
 * stopped admission. */
static bool sla_broken(const struct core_cap_state *c)
{
	return c->below_sla && (c->below_run >= 2 || c->e > CAP_SLA_DEEP);
}

/* Samples one tenant at the period's end (G3-G5). A tenant that has been
 * here less than half a period keeps summing into the next one. */
static void sample_tenant(const struct core_params *p, struct core_tenant *t)
{
	struct core_cap_state *c = &t->caps;
	if (c->acc_time_s < 0.5 * p->cap_period_s)
		return;
	double budget = c->budget;
	/* G4; an uncapped tenant's u is its share of the whole GPU. */
	c->u = c->acc_busy_s / ((budget > 0.0 ? budget : 1.0) * c->acc_time_s);
	c->fps = c->acc_frames / c->acc_time_s;
	/* G5 normalised (defect (g)): e_i in FPS would dwarf u_i. */
	c->e = (t->sla_fps - c->fps) / t->sla_fps;
	/* A period's frame count may miss one frame by phase alone: at SLA
	 * 30 one frame is 3.3 % of the count, more than cap_sla_tol, so a
	 * game paced at SLA x 1.01 read 29 in some periods and was called
	 * overloaded. One frame of slack, beside the tolerance. */
	double one_frame = 1.0 / (c->acc_time_s * t->sla_fps);
	/* A tenant's first period holds its start-up (shader compiles, the
	 * first scene's load): not judged on its rate (the u-signal, three
	 * periods long, still is). */
	bool judged = c->sampled;
	c->sampled = true;
	/* Baton's QoS condition on G3's signal: gOver's VMs run free, so a
	 * u near 1 there is hunger that will soon break QoS. A Baton tenant
	 * paced or capped well above its SLA (ESA's common rate, a cap that
	 * binds at 60 FPS for an SLA of 30) also shows u near 1, yet loses
	 * only frames above its SLA: counting it would call every pair of
	 * saturated caps severe and stop admission on an idle SLA. */
	bool near_sla = c->fps < t->sla_fps * (1.0 + p->cap_qos_margin);
	if (budget > 0.0 && c->u > p->cap_u_over && near_sla) {
		if (c->over_run < UINT32_MAX)
			c->over_run++;
	} else {
		c->over_run = 0;
	}
	/* A tenant that never presented has no rate to judge: a tenant
	 * that registers and never draws must not block admission. */
	bool presented = t->k > 0.0;
	c->below_sla = presented && judged && c->e > p->cap_sla_tol + one_frame;
	c->below_run = c->below_sla ? c->below_run + 1 : 0;
	c->overloaded =
	    (budget > 0.0 && c->over_run >= p->cap_run) || sla_broken(c);
	c->acc_busy_s = 0.0;
	c->acc_time_s = 0.0;
	c->acc_frames = 0.0;
}

/* The donor factor (G7). (b) it is a double, not the printed int that
 * truncates u in [0, 1] to 0; e is bounded below at -1 so that a game far
 * above its SLA (glxgears at 30x) does not drown u. */
static double donor_factor(const struct core_params *p,
                           const struct core_tenant *t)
{
	double e = t->caps.e < -1.0 ? -1.0 : t->caps.e;
	return p->cap_w_u * t->caps.u + p->cap_w_e * e;
}

/* (a) the argmin over the candidates, not the last tenant scanned; (c)
 * never the recipient itself; only a capped, sampled tenant with unused
 * cap, not overloaded. (h) SIZE_MAX when there is none. Ties go to the
 * lower index, so the choice is deterministic. */
static size_t pick_donor(const struct core_params *p,
                         const struct core_tenant *t, size_t n, size_t r)
{
	size_t best = SIZE_MAX;
	double best_f = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (i == r || !capped(&t[i]) || !t[i].caps.joined ||
		    !t[i].caps.sampled || t[i].caps.overloaded ||
		    !(unused_cap(&t[i]) > 0.0))
			continue;
		double f = donor_factor(p, &t[i]);
		if (best == SIZE_MAX || f < best_f) {
			best = i;
			best_f = f;
		}
	}
	return best;
}

/* The overloaded tenants take from the pool first, each at most up to its
 * published cap, the pool split evenly among them (Baton's rule: the pool
 * is cap nobody uses). Returns what recipient r still lacks. */
static void give_from_pool(struct core_gpu *gpu, struct core_tenant *t,
                           size_t n, uint32_t n_over)
{
	uint32_t left = n_over;
	for (size_t i = 0; i < n && left > 0; i++) {
		if (!t[i].caps.overloaded)
			continue;
		double share = gpu->caps.pool / (double)left--;
		if (!capped(&t[i]) || !t[i].caps.joined)
			continue;
		double deficit = t[i].cap_initial - t[i].caps.cap;
		double s = deficit < share ? deficit : share;
		if (s > 1e-9) { /* not a rounding error's worth */
			t[i].caps.cap += s;
			gpu->caps.pool -= s;
			gpu->caps.last_recipient = i;
			gpu->caps.last_donor = SIZE_MAX;
			gpu->caps.last_moved = s;
			gpu->caps.moves++;
		}
	}
}

/* The corrected Algorithm 1 for the one overloaded tenant r. Returns false
 * when it needs cap and no donor has any: escalated as severe. */
static bool mitigate_one(const struct core_params *p, struct core_gpu *gpu,
                         struct core_tenant *t, size_t n, size_t r)
{
	if (!capped(&t[r]) || !t[r].caps.joined)
		return true; /* not capped: no cap to move to it */
	/* (f) the recipient never goes above its published cap. */
	double deficit = t[r].cap_initial - t[r].caps.cap;
	if (!(deficit > 1e-12))
		return true; /* it has all it bought: nothing to give */
	size_t d = pick_donor(p, t, n, r);
	if (d == SIZE_MAX)
		return false;
	double s = p->cap_steal * unused_cap(&t[d]);
	if (s > deficit)
		s = deficit;
	/* (f) the donor never goes below zero: s <= steal x cap <= cap. */
	if (s > t[d].caps.cap)
		s = t[d].caps.cap;
	t[d].caps.cap -= s; /* zero-sum: the sum of caps is unchanged */
	t[r].caps.cap += s;
	gpu->caps.last_recipient = r;
	gpu->caps.last_donor = d;
	gpu->caps.last_moved = s;
	gpu->caps.moves++;
	return true;
}

static void end_period(const struct core_params *p, struct core_gpu *gpu,
                       struct core_tenant *t, size_t n)
{
	struct core_caps_gpu *g = &gpu->caps;
	uint32_t n_over = 0;
	size_t r = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		sample_tenant(p, &t[i]);
		if (t[i].caps.overloaded) {
			n_over++;
			r = i;
		}
	}
	/* G6: sum u_i cap_i; in user space contexts may overlap and load
	 * may come from elsewhere, so the larger of that (with the load no
	 * tenant reports) and the measured utilization (notes, Sec. 5.2). */
	double busy = g->acc_busy_s / g->acc_time_s;
	double measured = g->acc_util_s / g->acc_time_s;
	double other = gpu->other_util > 0.0 ? gpu->other_util : 0.0;
	g->total_load = busy + other > measured ? busy + other : measured;
	/* Work the tenants cause that their own reports miss: on a software
	 * rasterizer the X server's copies of every frame, on a GPU the
	 * driver's and compositor's. A newcomer brings its share of it too,
	 * so admission scales its cost x SLA by what the tenants' load is
	 * over their reported busy time (on real clients here 1.2-1.4: the
	 * reported cost alone admitted a sixth glmark2 that took the load
	 * from 0.62 to 0.85 against U_l 0.7). Bounded at 4, a noisy period
	 * must not close admission for good. */
	double caused = measured - other;
	g->overhead = busy > 0.01 && caused > busy ? caused / busy : 1.0;
	if (g->overhead > 4.0)
		g->overhead = 4.0;
	/* A work-conserving tenant's use beyond its strict budget is idle
	 * time it soaks up and gives back as others need it (caps_wc.c):
	 * counted, one such tenant would make an idle GPU look full and
	 * stop admission. */
	g->total_load -= g->acc_beyond_s / g->acc_time_s;
	if (g->total_load < 0.0)
		g->total_load = 0.0;
	g->recent_load[g->periods % CORE_CAPS_RECENT] = g->total_load;
	g->n_overloaded = n_over;
	g->sampled = true;
	g->periods++;
	g->acc_time_s = 0.0;
	g->acc_util_s = 0.0;
	g->acc_busy_s = 0.0;
	g->acc_beyond_s = 0.0;

	if (n_over == 0) {
		/* (d) no admission here: admission is asked for
		 * (core_caps_admit) and needs cap_quiet quiet periods and
		 * the load under U_l, not merely an empty signal set. */
		if (g->quiet < UINT32_MAX)
			g->quiet++;
		g->severe = false;
		return;
	}
	g->quiet = 0;
	give_from_pool(gpu, t, n, n_over);
	if (n_over >= 2) {
		/* gOver's severe warning: it migrates a VM; Baton stops
		 * advertising capacity and the quality lever will act. */
		g->severe = true;
		return;
	}
	g->severe = !mitigate_one(p, gpu, t, n, r);
}

/* Each tenant's budget: its dynamic cap, scaled down with the others of its
 * owner so that together they fit the owner's cap. */
static void set_budgets(struct core_gpu *gpu, struct core_tenant *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t[i].caps.budget =
		    capped(&t[i]) && t[i].caps.joined ? t[i].caps.cap : 0.0;
	const struct core_owner_cap *oc = gpu->caps.owner_caps;
	for (size_t k = 0; oc && k < gpu->caps.n_owner_caps; k++) {
		double cap = oc[k].cap;
		if (!(cap > 0.0 && cap <= 1.0))
			continue;
		double sum = 0.0;
		for (size_t i = 0; i < n; i++)
			if (t[i].owner == oc[k].owner)
				sum += t[i].caps.budget;
		if (!(sum > cap))
			continue;
		for (size_t i = 0; i < n; i++)
			if (t[i].owner == oc[k].owner)
				t[i].caps.budget *= cap / sum;
	}
}

void core_caps_tick(const struct core_params *p, struct core_gpu *gpu,
                    struct core_tenant *t, size_t n)
{
	struct core_caps_gpu *g = &gpu->caps;
	if (!g->init) {
		g->init = true;
		g->last_recipient = SIZE_MAX;
		g->last_donor = SIZE_MAX;
	}
	/* The pool is what the tenants present do not hold: a tenant the
	 * driver dropped from its array (a departure it did not report with
	 * core_caps_depart) returns its cap all the same, and fewer joined
	 * tenants than last tick restarts the quiet count. */
	double held = 0.0;
	uint32_t joined = 0;
	for (size_t i = 0; i < n; i++) {
		if (!t[i].caps.joined)
			continue;
		held += t[i].caps.cap;
		joined++;
	}
	g->pool = p->cap_total > held ? p->cap_total - held : 0.0;
	if (joined < g->joined)
		g->quiet = 0;
	for (size_t i = 0; i < n; i++) {
		follow_published(gpu, &t[i]);
		if (capped(&t[i]) && !t[i].caps.joined)
			join(p, gpu, t, n, i);
	}

	double dt = p->epoch_s;
	g->acc_time_s += dt;
	if (gpu->util > 0.0 && isfinite(gpu->util))
		g->acc_util_s += gpu->util * dt;
	for (size_t i = 0; i < n; i++) {
		struct core_cap_state *c = &t[i].caps;
		c->acc_time_s += dt;
		if (t[i].gpu_busy_s > 0.0 && isfinite(t[i].gpu_busy_s)) {
			c->acc_busy_s += t[i].gpu_busy_s;
			g->acc_busy_s += t[i].gpu_busy_s;
			/* the budget in force: last tick's, its extra apart */
			double strict = (c->budget - c->wc_extra) * dt;
			if (core_caps_conserving(&t[i]) &&
			    t[i].gpu_busy_s > strict)
				g->acc_beyond_s += t[i].gpu_busy_s - strict;
		}
		c->acc_frames += t[i].frames;
	}
	/* Half an epoch of slack: summed epochs drift from the period. */
	if (g->acc_time_s >= p->cap_period_s - 0.5 * dt)
		end_period(p, gpu, t, n);
	set_budgets(gpu, t, n);
	core_caps_work_conserve(p, gpu, t, n);
	g->joined = 0;
	for (size_t i = 0; i < n; i++)
		g->joined += t[i].caps.joined ? 1u : 0u;
}

void core_caps_depart(struct core_gpu *gpu, struct core_tenant *t)
{
	if (t->caps.joined) {
		gpu->caps.pool += t->caps.cap;
		if (gpu->caps.joined > 0)
			gpu->caps.joined--;
	}
	t->caps = (struct core_cap_state){0};
	gpu->caps.quiet = 0;
}

double core_caps_admit_load(const struct core_params *p,
                            const struct core_caps_gpu *g)
{
	/* gOver's G6 asks for the load under U_l over the quiet periods,
	 * not in the last one: a period's load here moved by 0.1 from one
	 * second to the next (0.55 to 0.67 with 4 glmark2), and the low
	 * one admitted a fifth that held the load at 0.76. */
	uint32_t m = p->cap_quiet < g->periods ? p->cap_quiet : g->periods;
	if (m > CORE_CAPS_RECENT)
		m = CORE_CAPS_RECENT;
	double load = g->total_load;
	for (uint32_t i = 1; i <= m; i++) {
		double l = g->recent_load[(g->periods - i) % CORE_CAPS_RECENT];
		if (l > load)
			load = l;
	}
	return load;
}

struct core_admit core_caps_admit(const struct core_params *p,
                                  const struct core_gpu *gpu, double cost_s,
                                  double sla_fps)
{
	const struct core_caps_gpu *g = &gpu->caps;
	double overhead = g->overhead >= 1.0 ? g->overhead : 1.0;
	double load = core_caps_admit_load(p, g);
	struct core_admit a = {.load = load,
	                       .newcomer = cost_s * sla_fps * overhead,
	                       .overhead = overhead,
	                       .limit = p->cap_u_limit,
	                       .more_encoder = UINT32_MAX,
	                       .more_vram = UINT32_MAX};
	if (!(cost_s > 0.0) || !(sla_fps > 0.0) || !isfinite(a.newcomer) ||
	    !(a.newcomer > 0.0))
		a.why = CORE_ADMIT_BAD_PROFILE;
	else if (!g->sampled)
		a.why = CORE_ADMIT_NO_SAMPLE;
	else if (g->severe || g->n_overloaded >= 2)
		a.why = CORE_ADMIT_SEVERE;
	else if (g->quiet < p->cap_quiet)
		a.why = CORE_ADMIT_NOT_QUIET;
	else if (!(load + a.newcomer < p->cap_u_limit))
		a.why = CORE_ADMIT_LOAD;
	else
		a.why = CORE_ADMIT_FITS;
	if (a.why != CORE_ADMIT_FITS)
		return a;
	a.fits = true;
	/* k more fit while load + k x < U_l (strictly, as for one). */
	double k = floor((p->cap_u_limit - load) / a.newcomer);
	if (k > (double)UINT32_MAX)
		k = (double)UINT32_MAX;
	while (k > 1.0 && !(load + k * a.newcomer < p->cap_u_limit))
		k -= 1.0;
	a.more = k >= 1.0 ? (uint32_t)k : 1u;
	a.more_3d = a.more;
	return a;
}
