/* Controller tick cost: one core_controller_tick over n tenants, per policy.
 * vGASA spent 124 us per frame on scheduling (Table 1); Baton's target is
 * under 20 us for 64 tenants. Then the harvesting stage's decision (the
 * window, budgets, modes and stuck rule of core_harvest_tick, and
 * the slot, core_harvest_slot) over n games and 8 best-effort tenants.
 * With quality, the quality stage too (exact reassignments, epoch steps).
 * Prints the median of 21 batches. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_time.h"
#include "core/controller.h"
#include "core/harvest_slot.h"
#include "core/harvest_space.h"

/* Varying inputs so that every branch of the policies is taken. With caps,
 * every tenant has a published cap and the rates make some of them
 * overloaded, so the capacity stage samples, mitigates and scales owner
 * budgets (one period end every 10 ticks). */
static bool with_caps;
/* With quality: every tenant a game of three levels whose
 * estimates add up to about the budget at the middle level, so that the
 * stage joins everyone on the first tick and then steps and reassigns. */
static bool with_quality;

static void fill_inputs(struct core_tenant *t, size_t n, unsigned round)
{
	for (size_t i = 0; i < n; i++) {
		if (with_caps) {
			t[i].cap_initial = 0.5;
			t[i].owner = i % 4;
		}
		unsigned h = (unsigned)(i * 2654435761u) ^ (round * 40503u);
		t[i].sla_fps = 30.0;
		t[i].fps = 20.0 + (double)(h % 600) / 10.0;
		t[i].frames = 3 + h % 5;
		t[i].gpu_busy_s = t[i].frames * (0.002 + (h % 100) * 1e-4);
		if (with_quality) {
			static const double ratio[3] = {0.4, 1.0, 2.0};
			static const double ssim[3] = {0.88, 0.95, 1.0};
			double c = 0.95 / (30.3 * (double)n) *
			           (0.5 + (double)(h % 100) / 100.0);
			t[i].quality.n_levels = 3;
			for (int l = 0; l < 3; l++) {
				t[i].quality.cost[l] = c * ratio[l];
				t[i].quality.cost_active[l] = c * ratio[l];
				t[i].quality.benefit[l] = ssim[l];
			}
		}
	}
}

/* Space harvesting's decisions (COMBO reports 0.06 ms for
 * its prediction and 0.02 ms for the scheme choice; Baton's target is
 * <= 10 us): per frame, core_combo_decide and
 * core_combo_record on a trace that swings between stable and dynamic
 * stretches (W 8, Table 6's 82 SMs); per tick, core_space_tick. */
static void bench_combo(void)
{
	enum { BATCHES = 21, ITERS = 200000 };
	double frame[BATCHES], tick[BATCHES];
	struct core_combo_params p = core_combo_params_default();
	struct core_combo_game g = {0};
	struct core_harvest_params sp = core_harvest_params_default();
	sp.space.sm_total = 16;
	/* a best-effort process that keeps every unit busy: earned */
	struct core_space_in in = {.n_be = 1, .be_cpu = 16.0, .dt_s = 0.1};
	struct core_space_gpu s = {0};
	unsigned integrated = 0;
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now_s();
		for (unsigned i = 0; i < ITERS; i++) {
			/* 2000 stable frames near 14.8 ms, then 2000
			 * swinging ones */
			double rt = (i / 2000) % 2 ? 0.008 + 0.008 * (i % 3)
			                           : 0.0148 + 1e-5 * (i % 7);
			struct core_combo_frame f =
			    core_combo_decide(&p, &g, 60.0, rt, 1.0 / 60.0);
			core_combo_record(&p, &g, rt);
			integrated += f.scheme == CORE_COMBO_INTEGRATED;
		}
		frame[b] = (now_s() - t0) / ITERS;
		t0 = now_s();
		for (unsigned i = 0; i < ITERS; i++) {
			double u = (i / 200) % 2 ? 0.2 + 0.2 * (i % 2)
			                         : 0.3 + 1e-3 * (i % 5);
			in.games_util = u;
			core_space_tick(&sp, &s, &in);
		}
		tick[b] = (now_s() - t0) / ITERS;
	}
	qsort(frame, BATCHES, sizeof(double), cmp_double);
	qsort(tick, BATCHES, sizeof(double), cmp_double);
	printf("combo_decide+record window=8 median_us=%.4f (%.0f%% of "
	       "frames integrated)\n",
	       frame[BATCHES / 2] * 1e6,
	       100.0 * integrated / ((double)BATCHES * ITERS));
	printf("space_tick units=16 median_us=%.4f (%llu switches)\n",
	       tick[BATCHES / 2] * 1e6, (unsigned long long)s.switches);
}

int main(void)
{
	const size_t sizes[] = {8, 64, 1024};
	const char *policies[] = {"sa", "fsa", "esa", "sa", "sa"};
	const struct core_owner_cap owners[] = {{.owner = 0, .cap = 0.3},
	                                        {.owner = 1, .cap = 0.5}};
	struct core_params params = core_params_default();
	enum { BATCHES = 21 };
	double samples[BATCHES];

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		struct core_tenant *t = calloc(n, sizeof(*t));
		if (!t)
			return 1;
		size_t wsz = core_quality_workspace_size(n);
		void *ws = malloc(wsz);
		if (!ws)
			return 1;
		for (size_t p = 0; p < 5; p++) {
			const struct core_policy *pol =
			    core_policy_find(policies[p]);
			struct core_gpu gpu = {0};
			with_caps = p == 3;
			with_quality = p == 4;
			struct core_params pp = params;
			pp.quality_on = with_quality;
			gpu.quality.workspace = ws;
			gpu.quality.workspace_size = wsz;
			for (size_t i = 0; i < n; i++)
				t[i] = (struct core_tenant){0};
			if (with_caps) {
				gpu.caps.owner_caps = owners;
				gpu.caps.n_owner_caps = 2;
			}
			/* enough ticks per batch for ~2 ms of work */
			unsigned iters = (unsigned)(200000 / n) + 10;
			for (int b = 0; b < BATCHES; b++) {
				double busy = 0.0;
				for (unsigned it = 0; it < iters; it++) {
					fill_inputs(t, n, it);
					double t0 = now_s();
					core_controller_tick(pol, &pp, &gpu, t,
					                     n);
					busy += now_s() - t0;
				}
				samples[b] = busy / iters;
			}
			qsort(samples, BATCHES, sizeof(double), cmp_double);
			printf("controller_tick tenants=%zu policy=%s%s "
			       "median_us=%.3f\n",
			       n, policies[p],
			       with_caps      ? "+caps"
			       : with_quality ? "+quality"
			                      : "",
			       samples[BATCHES / 2] * 1e6);
		}
		/* The harvesting stage after an SA tick: every game paced at
		 * 30 FPS with a learned k, presenting within 1 ms of one
		 * phase, so the slot is found (the longest path). */
		const struct core_policy *sa = core_policy_find("sa");
		struct core_gpu gpu = {0};
		struct core_harvest_params hp = core_harvest_params_default();
		struct core_be_tenant be[8];
		struct core_harvest_gpu hg;
		for (size_t i = 0; i < n; i++)
			t[i] = (struct core_tenant){0};
		for (int w = 0; w < 20; w++) {
			fill_inputs(t, n, (unsigned)w);
			core_controller_tick(sa, &params, &gpu, t, n);
		}
		for (size_t i = 0; i < n; i++) {
			t[i].target_fps = 30.0;
			t[i].k = 0.02 / (double)n;
			t[i].present_s = 1000.0 + (double)(i % 10) * 1e-4;
			t[i].sleep_s = t[i].frames * 0.02;
		}
		unsigned iters = (unsigned)(200000 / n) + 10;
		int found = 0;
		for (int b = 0; b < BATCHES; b++) {
			double busy = 0.0;
			for (unsigned it = 0; it < iters; it++) {
				for (int j = 0; j < 8; j++)
					be[j] = (struct core_be_tenant){
					    .weight = 1.0 + j, .cap = 0.2};
				double t0 = now_s();
				core_harvest_tick(&hp, t, n, 0.02, &hg, be, 8);
				found += core_harvest_slot(&hp, t, n, 1000.01,
				                           &hg.slot);
				busy += now_s() - t0;
			}
			samples[b] = busy / iters;
		}
		qsort(samples, BATCHES, sizeof(double), cmp_double);
		printf("harvest_tick+slot tenants=%zu be=8 median_us=%.3f%s\n",
		       n, samples[BATCHES / 2] * 1e6,
		       found == BATCHES * (int)iters
		           ? ""
		           : " (slot not always found)");
		free(t);
		free(ws);
	}
	bench_combo();
	return 0;
}
