/* Space harvesting's per-frame decisions (COMBO; see combo.h). */
#include "core/combo.h"

#include <math.h>

struct core_combo_params core_combo_params_default(void)
{
	return (struct core_combo_params){
	    .sm_total = 82,
	    .granularity = 1,
	    .stable_spread = 0.10,
	    .window = 8,
	    .hold_s = 0.1,
	    .eps = 0.0516,
	    .margin_s = 0.0002,
	};
}

static bool positive(double x)
{
	return x > 0.0 && isfinite(x);
}

double core_combo_spread(const double *rt, size_t n, double next)
{
	double lo = INFINITY, hi = -INFINITY, sum = 0.0;
	size_t m = 0;
	for (size_t i = 0; i <= n; i++) {
		double x = i < n ? rt[i] : next;
		if (i == n && !(next >= 0.0))
			break;
		if (!isfinite(x))
			continue;
		lo = fmin(lo, x);
		hi = fmax(hi, x);
		sum += x;
		m++;
	}
	if (m < 2 || !(sum > 0.0))
		return 0.0;
	return (hi - lo) / (sum / (double)m);
}

uint32_t core_combo_split(const struct core_combo_params *p, double fps,
                          double rt_full)
{
	uint32_t total = p->sm_total;
	if (total == 0 || !positive(fps) || !positive(rt_full))
		return total;
	double eps = p->eps > 0.0 ? p->eps : 0.0;
	/* Eq. 5 (corrected): rt(s) = rt_full x total / s <= 1/fps. */
	double need = ceil((double)total * fps * rt_full * (1.0 + eps));
	if (!(need < (double)total))
		return total;
	uint32_t s = need < 1.0 ? 1u : (uint32_t)need;
	uint32_t g = p->granularity > 0 ? p->granularity : 1u;
	s = (s + g - 1) / g * g;
	return s < total ? s : total;
}

void core_combo_record(const struct core_combo_params *p,
                       struct core_combo_game *g, double rt_s)
{
	if (!positive(rt_s))
		return;
	uint32_t w = p->window;
	if (w == 0 || w > CORE_COMBO_MAX_WINDOW)
		w = CORE_COMBO_MAX_WINDOW;
	if (g->next >= w)
		g->next = 0;
	g->rt[g->next] = rt_s;
	g->next = (g->next + 1) % w;
	if (g->n_rt < w)
		g->n_rt++;
}

struct core_combo_frame core_combo_decide(const struct core_combo_params *p,
                                          struct core_combo_game *g, double fps,
                                          double rt_pred, double dt_s)
{
	struct core_combo_frame f = {0};
	uint32_t w = p->window;
	if (w == 0 || w > CORE_COMBO_MAX_WINDOW)
		w = CORE_COMBO_MAX_WINDOW;
	/* Eqs. 2-3 over a full window and the prediction ("perceived by
	 * predicting", §6.6): with less history nothing says stable. */
	f.spread = core_combo_spread(g->rt, g->n_rt,
	                             positive(rt_pred) ? rt_pred : -1.0);
	bool stable =
	    g->n_rt >= w && positive(rt_pred) && f.spread < p->stable_spread;
	/* The hold, asymmetric as GPU grid's hysteresis (the paper switches
	 * on every frame's state, erratum 2): the split is entered only
	 * after hold_s of stable frames, and left at the first dynamic one.
	 * A split kept through a swinging load costs frames (a growing
	 * group waits, or its kernels must end within the frame); relaxed
	 * kept too long costs only BE throughput. */
	if (!stable)
		g->stable_s = 0.0;
	else if (g->started && positive(dt_s))
		g->stable_s += dt_s;
	enum core_combo_scheme want =
	    stable && ((g->started && g->scheme == CORE_COMBO_INTEGRATED) ||
	               g->stable_s >= p->hold_s)
	        ? CORE_COMBO_INTEGRATED
	        : CORE_COMBO_RELAXED;
	f.scheme = want;
	f.switched = g->started && want != g->scheme;

	if (want == CORE_COMBO_INTEGRATED) {
		f.split = core_combo_split(p, fps, rt_pred);
		/* Fig. 11: a growing render group would wait for the
		 * best-effort kernels on the SMs it takes; the frame runs
		 * unbound, and no new one starts. */
		f.hold_be = f.switched || !g->started || f.split > g->split;
		f.be_sms = f.hold_be ? 0u : p->sm_total - f.split;
	} else {
		f.split = p->sm_total;
		/* §5.3: leaving the split, the frame's kernels run unbound
		 * while the bound best-effort kernels drain. */
		f.hold_be = f.switched;
		f.be_sms = f.hold_be ? 0u : p->sm_total;
	}
	g->scheme = want;
	g->split = want == CORE_COMBO_INTEGRATED ? f.split : 0u;
	g->started = true;
	return f;
}

bool core_combo_may_span(const struct core_combo_params *p,
                         const struct core_combo_game *g, double fps,
                         uint32_t split)
{
	double hi = 0.0;
	for (uint32_t i = 0; i < g->n_rt && i < CORE_COMBO_MAX_WINDOW; i++)
		hi = fmax(hi, g->rt[i]);
	return positive(hi) && core_combo_split(p, fps, hi) <= split;
}

bool core_combo_fits(const struct core_combo_params *p, double now_s,
                     double be_s, double render_end_s, double deadline_s)
{
	if (!isfinite(now_s) || !positive(be_s) || !isfinite(render_end_s) ||
	    !isfinite(deadline_s))
		return false;
	double last = deadline_s - (p->margin_s > 0.0 ? p->margin_s : 0.0);
	return now_s + be_s <= last && render_end_s <= last;
}

uint32_t core_combo_merge_gain(double h1_s, double h2_s, double kernel_s)
{
	if (!positive(kernel_s) || !(h1_s >= 0.0) || !(h2_s >= 0.0) ||
	    !isfinite(h1_s) || !isfinite(h2_s))
		return 0;
	double apart = floor(h1_s / kernel_s) + floor(h2_s / kernel_s);
	double joined = floor((h1_s + h2_s) / kernel_s);
	return joined > apart ? (uint32_t)(joined - apart) : 0u;
}

double core_combo_merge_delay(const struct core_combo_params *p, double fps,
                              double rt_s, double delta_s)
{
	if (!positive(fps) || !positive(rt_s))
		return 0.0;
	double eps = p->eps > 0.0 ? p->eps : 0.0;
	double d = 1.0 / fps - rt_s * (1.0 + eps) - (delta_s > 0 ? delta_s : 0);
	return d > 0.0 ? d : 0.0;
}

bool core_combo_may_corun(struct core_combo_kernel a,
                          struct core_combo_kernel b)
{
	if (a.game && b.game)
		return false;
	/* RT with TC: shared memory (TC > 40 KB, RT >= 8 KB, 48 KB). */
	if ((a.cls == CORE_COMBO_RT && b.cls == CORE_COMBO_TC) ||
	    (a.cls == CORE_COMBO_TC && b.cls == CORE_COMBO_RT))
		return false;
	/* The game's CD kernels run alone (§5.1.2, erratum 6). */
	if ((a.game && a.cls == CORE_COMBO_CD) ||
	    (b.game && b.cls == CORE_COMBO_CD))
		return false;
	/* Only the game has RT kernels (BE applications use CD and TC). */
	return (a.cls != CORE_COMBO_RT || a.game) &&
	       (b.cls != CORE_COMBO_RT || b.game);
}

double core_combo_corun_speed(double m)
{
	if (!(m > 0.0))
		m = 0.0;
	if (!(m < 0.5))
		m = 0.4999;
	return 1.0 / (2.0 * (1.0 - m));
}

void core_combo_corun_ends(double a_s, double b_s, double m, double *a_end,
                           double *b_end)
{
	if (!(a_s >= 0.0) || !(b_s >= 0.0) || !isfinite(a_s) ||
	    !isfinite(b_s)) {
		*a_end = *b_end = INFINITY;
		return;
	}
	double c = core_combo_corun_speed(m);
	double lo = fmin(a_s, b_s), t = lo / c;
	*a_end = a_s <= b_s ? t : t + (a_s - lo);
	*b_end = b_s < a_s ? t : t + (b_s - lo);
}
