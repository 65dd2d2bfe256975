/* The sweep's report (sim_combo_sweep.h): a row per group, then each
 * figure's summary beside the paper's number. */
#include "sim/combo/sim_combo_sweep.h"

void sim_combo_sweep_text(FILE *out, const struct sim_combo_sweep *s)
{
	fprintf(out, "%-14s %-7s %-10s %9s %9s %9s %9s %8s %8s %6s %6s\n",
	        "game", "parboil", "dnn", "temporal", "fig13", "fig16", "fig17",
	        "meanFPS", "p99FPS", "int%S", "int%D");
	for (size_t i = 0; i < s->n; i++) {
		const struct sim_combo_group *g = &s->g[i];
		fprintf(out,
		        "%-14s %-7s %-10s %8.1fms %+8.1f%% %+8.1f%% %+8.1f%% "
		        "%8.2f %8.2f %5.0f%% %5.0f%%\n",
		        sim_combo_game_def(g->game)->name,
		        sim_combo_parboil(g->parboil)->name,
		        sim_combo_dnn(g->dnn)->name,
		        1e3 * g->work_s[SIM_COMBO_V_TEMPORAL],
		        100.0 * g->gain13, 100.0 * g->gain16, 100.0 * g->gain17,
		        g->fps_mean, g->fps_p99, g->integrated_pct[0],
		        g->integrated_pct[1]);
	}
	fprintf(out,
	        "\n%zu groups, %.1f s a trace and variant (BE work: Eq. 6, "
	        "both traces)\n",
	        s->n, s->duration_s);
	fprintf(out,
	        "Fig. 13 combo vs temporal: mean %+.1f%% median %+.1f%% max "
	        "%+.1f%% min "
	        "%+.1f%% (paper +14.0%% / +38.2%%, all gain)\n",
	        100 * s->fig13.mean, 100 * s->fig13.median, 100 * s->fig13.max,
	        100 * s->fig13.min);
	fprintf(out, "  per game:");
	for (unsigned i = 0; i < SIM_COMBO_N_GAMES; i++)
		fprintf(out, " %s %+.1f%%", sim_combo_game_def(i)->name,
		        100 * s->fig13_game[i]);
	fprintf(out, " (paper Quake 2 16.8%%, others 12.9, 8.55, 12.6%%)\n");
	fprintf(out,
	        "  compute-bound %+.1f%%, memory-bound %+.1f%% (paper: "
	        "compute-bound gains more)\n",
	        100 * s->fig13_compute, 100 * s->fig13_memory);
	fprintf(out,
	        "Fig. 14 combo FPS at 120: mean %.2f (min %.2f), p99 mean "
	        "%.2f (min %.2f), late frames <= %.2f%% (paper > 119, p99 > "
	        "117)\n",
	        s->fps_mean, s->fps_mean_min, s->fps_p99_mean, s->fps_p99_min,
	        s->late_max);
	fprintf(out,
	        "Fig. 16 combo vs combo-nm: mean %+.1f%% median %+.1f%% max "
	        "%+.1f%% min "
	        "%+.1f%% (paper +6.74%% / +19.8%%)\n",
	        100 * s->fig16.mean, 100 * s->fig16.median, 100 * s->fig16.max,
	        100 * s->fig16.min);
	fprintf(out,
	        "Fig. 17 combo vs relaxed: mean %+.1f%% median %+.1f%% max "
	        "%+.1f%% min "
	        "%+.1f%% (paper +8.43%% / +23.3%%, most for VGG16)\n",
	        100 * s->fig17.mean, 100 * s->fig17.median, 100 * s->fig17.max,
	        100 * s->fig17.min);
	fprintf(out, "  per DNN:");
	for (unsigned i = 0; i < SIM_COMBO_N_DNNS; i++)
		fprintf(out, " %s %+.1f%%", sim_combo_dnn(i)->name,
		        100 * s->fig17_dnn[i]);
	fprintf(out, "\n");
}

static json_t *stat_json(const struct sim_combo_stat *s, double paper_mean,
                         double paper_max)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "mean", s->mean,
	                 "median", s->median, "max", s->max, "min", s->min,
	                 "paper_mean", paper_mean, "paper_max", paper_max);
}

static json_t *groups_json(const struct sim_combo_sweep *s)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < s->n; i++) {
		const struct sim_combo_group *g = &s->g[i];
		json_t *w = json_object();
		for (int k = 0; w && k < SIM_COMBO_N_VARIANTS; k++)
			json_object_set_new(
			    w,
			    sim_combo_variant_name((enum sim_combo_variant)k),
			    json_real(g->work_s[k]));
		json_t *o = json_pack(
		    "{s:s, s:s, s:s, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
		    "s:f, s:f}",
		    "game", sim_combo_game_def(g->game)->name, "parboil",
		    sim_combo_parboil(g->parboil)->name, "dnn",
		    sim_combo_dnn(g->dnn)->name, "work_s", w, "fig13",
		    g->gain13, "fig16", g->gain16, "fig17", g->gain17,
		    "fps_mean", g->fps_mean, "fps_p99", g->fps_p99, "late_pct",
		    g->late_pct, "integrated_pct_stable", g->integrated_pct[0],
		    "integrated_pct_dynamic", g->integrated_pct[1],
		    "forbidden_s", g->forbidden_s);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *sim_combo_sweep_json(const struct sim_combo_sweep *s)
{
	json_t *game = json_object(), *dnn = json_object();
	for (unsigned i = 0; game && i < SIM_COMBO_N_GAMES; i++)
		json_object_set_new(game, sim_combo_game_def(i)->name,
		                    json_real(s->fig13_game[i]));
	for (unsigned i = 0; dnn && i < SIM_COMBO_N_DNNS; i++)
		json_object_set_new(dnn, sim_combo_dnn(i)->name,
		                    json_real(s->fig17_dnn[i]));
	return json_pack(
	    "{s:I, s:f, s:o, s:o, s:f, s:f, s:o, s:{s:f, s:f, s:f, s:f, s:f, "
	    "s:f, s:f}, s:o, s:o, s:o}",
	    "groups", (json_int_t)s->n, "duration_s", s->duration_s, "fig13",
	    stat_json(&s->fig13, 0.140, 0.382), "fig13_per_game", game,
	    "fig13_compute_bound", s->fig13_compute, "fig13_memory_bound",
	    s->fig13_memory, "fig17_per_dnn", dnn, "fig14", "fps_mean",
	    s->fps_mean, "fps_mean_min", s->fps_mean_min, "fps_p99_mean",
	    s->fps_p99_mean, "fps_p99_min", s->fps_p99_min, "late_pct_max",
	    s->late_max, "paper_fps_mean", 119.0, "paper_fps_p99", 117.0,
	    "fig16", stat_json(&s->fig16, 0.0674, 0.198), "fig17",
	    stat_json(&s->fig17, 0.0843, 0.233), "groups_detail",
	    groups_json(s));
}
