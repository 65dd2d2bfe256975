/* baton profile's table: per level and area, the mean measured cost and
 * SSIM and the held-out estimation error (profile.h), as text or JSON. */
#include <jansson.h>
#include <math.h>

#include "cli/profile.h"

static const char *area_name(const struct profile_report *rep, size_t a)
{
	return a == PROFILE_ALL_AREAS ? "all" : rep->areas->area[a];
}

/* A JSON number, or null where no test frame counted. */
static json_t *num(double v, size_t n)
{
	return n && isfinite(v) ? json_real(v) : json_null();
}

static void text_row(FILE *out, size_t l, const char *area,
                     const struct profile_stat *s)
{
	fprintf(out, "%5zu  %-12s %6zu %6zu %9.3f %7.4f", l, area, s->frames,
	        s->test_frames, s->cost_mean_s * 1e3, s->ssim_mean);
	if (s->test_frames)
		fprintf(out, " %7.1f%% %7.1f%% %8.2f%% %8.2f%%",
		        s->cost.l1 * 100.0, s->cost.l2 * 100.0,
		        s->benefit.l1 * 100.0, s->benefit.l2 * 100.0);
	else
		fprintf(out, " %8s %8s %9s %9s", "-", "-", "-", "-");
	if (s->test_epochs)
		fprintf(out, " %6zu %7.1f%% %7.1f%% %8.2f%% %8.2f%%\n",
		        s->test_epochs, s->cost_epoch.l1 * 100.0,
		        s->cost_epoch.l2 * 100.0, s->benefit_epoch.l1 * 100.0,
		        s->benefit_epoch.l2 * 100.0);
	else
		fprintf(out, " %6d %8s %8s %9s %9s\n", 0, "-", "-", "-", "-");
}

void profile_print_text(FILE *out, const struct profile_report *rep)
{
	fprintf(out,
	        "Held-out estimation error (fit on even rows, tested on "
	        "odd rows; relative), per frame, then (ep_*) on the "
	        "means of epochs of %d consecutive tested rows:\n",
	        PROFILE_EPOCH_ROWS);
	fprintf(out,
	        "%5s  %-12s %6s %6s %9s %7s %8s %8s %9s %9s %6s %8s %8s %9s "
	        "%9s\n",
	        "level", "area", "frames", "tested", "cost_ms", "ssim",
	        "cost_L1", "cost_L2", "benef_L1", "benef_L2", "epochs",
	        "ep_c_L1", "ep_c_L2", "ep_b_L1", "ep_b_L2");
	for (size_t l = rep->n_levels; l-- > 0;) {
		for (size_t a = 0; a < rep->n_areas; a++)
			text_row(out, l, area_name(rep, a), &rep->stat[l][a]);
		text_row(out, l, "all", &rep->stat[l][PROFILE_ALL_AREAS]);
	}
}

static json_t *stat_json(const struct profile_report *rep, size_t a,
                         const struct profile_stat *s)
{
	size_t n = s->test_frames, e = s->test_epochs;
	json_t *epoch = json_pack(
	    "{s:I, s:I, s:o, s:o, s:o, s:o}", "rows",
	    (json_int_t)PROFILE_EPOCH_ROWS, "epochs", (json_int_t)e, "cost_l1",
	    num(s->cost_epoch.l1, e), "cost_l2", num(s->cost_epoch.l2, e),
	    "benefit_l1", num(s->benefit_epoch.l1, e), "benefit_l2",
	    num(s->benefit_epoch.l2, e));
	return json_pack(
	    "{s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "area",
	    area_name(rep, a), "frames", (json_int_t)s->frames, "tested",
	    (json_int_t)n, "cost_mean_s", num(s->cost_mean_s, s->frames),
	    "ssim_mean", num(s->ssim_mean, s->frames), "cost_l1",
	    num(s->cost.l1, n), "cost_l2", num(s->cost.l2, n), "benefit_l1",
	    num(s->benefit.l1, n), "benefit_l2", num(s->benefit.l2, n), "epoch",
	    epoch ? epoch : json_null());
}

bool profile_print_json(FILE *out, const struct profile_report *rep,
                        const char *game, const char *model_path,
                        enum core_qm_mode mode, double wall_s)
{
	json_t *levels = json_array();
	for (size_t l = 0; levels && l < rep->n_levels; l++) {
		json_t *areas = json_array();
		for (size_t a = 0; areas && a < rep->n_areas; a++)
			json_array_append_new(
			    areas, stat_json(rep, a, &rep->stat[l][a]));
		if (areas)
			json_array_append_new(
			    areas, stat_json(rep, PROFILE_ALL_AREAS,
			                     &rep->stat[l][PROFILE_ALL_AREAS]));
		json_array_append_new(levels,
		                      json_pack("{s:I, s:o}", "level",
		                                (json_int_t)l, "areas", areas));
	}
	json_t *root = json_pack("{s:s, s:s, s:s, s:f, s:o}", "game", game,
	                         "model", model_path, "mode",
	                         mode == CORE_QM_PAPER ? "paper" : "baton",
	                         "wall_s", wall_s, "levels", levels);
	if (!root)
		return false;
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(9));
	json_decref(root);
	return rc == 0 && fputc('\n', out) != EOF;
}
