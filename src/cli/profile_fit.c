/* baton profile's analysis (profile.h): the determinism checks, SSIM
 * against the best level (dJay's b = SSIM_{f*}(f), §4.1) and the per-level
 * fits of src/core/quality_model.h with their held-out error (§8.2's L1
 * and L2, read as mean |relative error| and RMS relative error). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/profile.h"
#include "core/ssim.h"
#include "quality/pnm.h"

bool profile_check_same(const struct profile_csv *best, const char *best_path,
                        const struct profile_csv *lv, const char *path,
                        char *err, size_t err_len)
{
	if (lv->rows != best->rows) {
		snprintf(err, err_len, "%s has %zu frames but %s has %zu", path,
		         lv->rows, best_path, best->rows);
		return false;
	}
	if (lv->n_types != best->n_types) {
		snprintf(err, err_len, "%s has %zu types but %s has %zu", path,
		         lv->n_types, best_path, best->n_types);
		return false;
	}
	for (size_t j = 0; j < lv->n_types; j++)
		if (strcmp(lv->type[j], best->type[j]) != 0) {
			snprintf(err, err_len,
			         "%s: type %zu is '%s' but %s's is '%s'", path,
			         j, lv->type[j], best_path, best->type[j]);
			return false;
		}
	if (lv->has_area != best->has_area) {
		snprintf(err, err_len, "%s and %s differ in the area column",
		         path, best_path);
		return false;
	}
	for (size_t i = 0; i < lv->rows; i++) {
		if (lv->frame[i] != best->frame[i]) {
			snprintf(err, err_len,
			         "%s: row %zu is frame %llu but %s's is %llu",
			         path, i + 1, (unsigned long long)lv->frame[i],
			         best_path, (unsigned long long)best->frame[i]);
			return false;
		}
		const char *a = lv->area[lv->area_of[i]];
		const char *b = best->area[best->area_of[i]];
		if (lv->has_area && strcmp(a, b) != 0) {
			snprintf(err, err_len,
			         "%s: frame %llu is in area '%s' but in %s "
			         "in '%s'",
			         path, (unsigned long long)lv->frame[i], a,
			         best_path, b);
			return false;
		}
	}
	return true;
}

int profile_ssim(const char *best_dir, const char *dir,
                 struct profile_level *lv, char *err, size_t err_len)
{
	const struct profile_csv *csv = &lv->csv;
	lv->ssim = malloc(csv->rows * sizeof(double));
	if (!lv->ssim) {
		snprintf(err, err_len, "out of memory");
		return CLI_EXIT_FAILURE;
	}
	void *ws = NULL;
	size_t ws_bytes = 0;
	int rc = CLI_EXIT_OK;
	for (size_t i = 0; i < csv->rows && rc == CLI_EXIT_OK; i++) {
		char pa[4200], pb[4200];
		unsigned long long fr = (unsigned long long)csv->frame[i];
		snprintf(pa, sizeof(pa), "%s/frame_%06llu.ppm", dir, fr);
		snprintf(pb, sizeof(pb), "%s/frame_%06llu.ppm", best_dir, fr);
		struct pnm_image a, b;
		if (!pnm_read(pa, &a, err, err_len)) {
			rc = CLI_EXIT_INVALID;
			break;
		}
		if (!pnm_read(pb, &b, err, err_len)) {
			pnm_free(&a);
			rc = CLI_EXIT_INVALID;
			break;
		}
		size_t need = core_ssim_workspace_size(a.width, a.height);
		if (need > ws_bytes) {
			free(ws);
			ws = malloc(need);
			ws_bytes = ws ? need : 0;
		}
		struct core_ssim_image ia = pnm_as_ssim(&a),
		                       ib = pnm_as_ssim(&b);
		enum core_ssim_status st =
		    core_ssim(&ia, &ib, ws, ws_bytes, NULL, &lv->ssim[i]);
		if (st == CORE_SSIM_WORKSPACE) {
			rc = CLI_EXIT_FAILURE;
			snprintf(err, err_len, "out of memory");
		} else if (st != CORE_SSIM_OK) {
			rc = CLI_EXIT_INVALID;
			snprintf(err, err_len, "%s against %s: %s", pa, pb,
			         core_ssim_status_str(st));
		}
		pnm_free(&a);
		pnm_free(&b);
	}
	free(ws);
	return rc;
}

/* The fit's buffers, sized for the largest level. */
struct fit_buf {
	double *counts, *cost, *ssim, *work, *pred, *meas;
	double *epred, *emeas; /* epoch means: cost, then benefit */
	struct core_qm_gram gram;
	struct core_qm_work nnls;
};

/* Fits level l on its rows with (row % 2 == parity), or all rows when
 * parity < 0. */
static bool fit_rows(const struct profile_run *run, size_t l, int parity,
                     struct fit_buf *fb, struct core_qm_level *out)
{
	const struct profile_csv *c = &run->lv[l].csv;
	size_t n = 0, t = c->n_types;
	uint64_t seen = 0; /* the types counted in some fitted row */
	for (size_t i = run->warmup; i < c->rows; i++) {
		if (parity >= 0 && (int)(i % 2) != parity)
			continue;
		memcpy(fb->counts + n * t, c->counts + i * t,
		       t * sizeof(double));
		for (size_t j = 0; j < t; j++)
			if (c->counts[i * t + j] != 0.0)
				seen |= (uint64_t)1 << j;
		fb->cost[n] = c->cost_s[i];
		fb->ssim[n] = run->lv[l].ssim[i];
		n++;
	}
	struct core_qm_params p = core_qm_params_default(run->mode);
	/* The coarse filter (eps_v) is the game's (§7.1: done while building
	 * the AOL); the CSV carries no vertex counts, so every type is kept,
	 * but for those never counted in the fitted rows: they carry nothing
	 * to fit (weight 0), and paper mode's OLS fails on their all-zero
	 * columns (a game with many types, arena's 42, has some). */
	uint64_t coarse = core_qm_coarse_mask(NULL, t, p.eps_v) & seen;
	return n > 0 &&
	       core_qm_fit_samples(fb->counts, fb->cost, fb->ssim, n, t, coarse,
	                           &p, fb->work, &fb->gram, &fb->nnls, out);
}

/* One group of PROFILE_EPOCH_ROWS test rows: sums of the estimated and
 * measured cost and benefit. */
struct epoch_acc {
	double pc, mc, pb, mb;
	size_t k, n; /* rows in the group; groups done */
	size_t area; /* of the group's rows */
};

/* Adds test row (pred, meas) at offsets 0 (cost) and rows (benefit) to
 * the group; a group is closed at PROFILE_EPOCH_ROWS rows and dropped when
 * the area changes before that. */
static void epoch_add(struct epoch_acc *e, size_t area, const double *pred,
                      const double *meas, size_t rows, struct fit_buf *fb)
{
	if (e->k && e->area != area)
		e->k = 0;
	if (e->k == 0)
		e->pc = e->mc = e->pb = e->mb = 0.0;
	e->area = area;
	e->pc += pred[0];
	e->mc += meas[0];
	e->pb += pred[rows];
	e->mb += meas[rows];
	if (++e->k < PROFILE_EPOCH_ROWS)
		return;
	double k = (double)e->k;
	fb->epred[e->n] = e->pc / k;
	fb->emeas[e->n] = e->mc / k;
	fb->epred[rows + e->n] = e->pb / k;
	fb->emeas[rows + e->n] = e->mb / k;
	e->n++;
	e->k = 0;
}

/* The held-out error of fit on level l's odd rows in area a (or all). */
static void held_out(const struct profile_run *run, size_t l, size_t a,
                     const struct core_qm_level *fit, struct fit_buf *fb,
                     struct profile_stat *st)
{
	const struct profile_csv *c = &run->lv[l].csv;
	const struct profile_csv *best = &run->lv[run->n_levels - 1].csv;
	*st = (struct profile_stat){0};
	struct epoch_acc ep = {0};
	size_t n = 0;
	for (size_t i = run->warmup; i < c->rows; i++) {
		if (a != PROFILE_ALL_AREAS && best->area_of[i] != a)
			continue;
		st->frames++;
		st->cost_mean_s += c->cost_s[i];
		st->ssim_mean += run->lv[l].ssim[i];
		if (i % 2 == 0)
			continue;
		const double *g = c->counts + i * c->n_types;
		fb->pred[n] = core_qm_cost(fit, g);
		fb->meas[n] = c->cost_s[i];
		fb->pred[c->rows + n] = core_qm_benefit(fit, g);
		fb->meas[c->rows + n] = run->lv[l].ssim[i];
		epoch_add(&ep, best->area_of[i], fb->pred + n, fb->meas + n,
		          c->rows, fb);
		n++;
	}
	if (st->frames) {
		st->cost_mean_s /= (double)st->frames;
		st->ssim_mean /= (double)st->frames;
	}
	st->test_frames = n;
	core_qm_rel_error(fb->pred, fb->meas, n, &st->cost);
	core_qm_rel_error(fb->pred + c->rows, fb->meas + c->rows, n,
	                  &st->benefit);
	st->test_epochs = ep.n;
	core_qm_rel_error(fb->epred, fb->emeas, ep.n, &st->cost_epoch);
	core_qm_rel_error(fb->epred + c->rows, fb->emeas + c->rows, ep.n,
	                  &st->benefit_epoch);
}

bool profile_fit(const struct profile_run *run, struct quality_model_set *set,
                 struct profile_report *rep, char *err, size_t err_len)
{
	const struct profile_csv *best = &run->lv[run->n_levels - 1].csv;
	size_t rows = best->rows, t = best->n_types;
	struct fit_buf *fb = calloc(1, sizeof(*fb));
	bool ok = fb != NULL;
	if (ok) {
		fb->counts = malloc(rows * t * sizeof(double));
		fb->cost = malloc(rows * sizeof(double));
		fb->ssim = malloc(rows * sizeof(double));
		fb->work =
		    malloc(core_qm_fit_work_doubles(rows, t) * sizeof(double));
		fb->pred = malloc(2 * rows * sizeof(double));
		fb->meas = malloc(2 * rows * sizeof(double));
		fb->epred = malloc(2 * rows * sizeof(double));
		fb->emeas = malloc(2 * rows * sizeof(double));
		ok = fb->counts && fb->cost && fb->ssim && fb->work &&
		     fb->pred && fb->meas && fb->epred && fb->emeas;
	}
	if (!ok)
		snprintf(err, err_len, "out of memory");
	*rep = (struct profile_report){
	    .n_levels = run->n_levels, .n_areas = best->n_areas, .areas = best};
	if (!best->has_area)
		rep->n_areas = 0;
	set->mode = run->mode;
	set->n_types = t;
	set->n_levels = run->n_levels;
	for (size_t l = 0; ok && l < run->n_levels; l++) {
		struct core_qm_level half;
		if (!fit_rows(run, l, 0, fb, &half) ||
		    !fit_rows(run, l, -1, fb, &set->level[l])) {
			snprintf(err, err_len,
			         "level %zu: the fit failed (too few frames, "
			         "or NNLS did not converge)",
			         l);
			ok = false;
			break;
		}
		for (size_t a = 0; a < rep->n_areas; a++)
			held_out(run, l, a, &half, fb, &rep->stat[l][a]);
		held_out(run, l, PROFILE_ALL_AREAS, &half, fb,
		         &rep->stat[l][PROFILE_ALL_AREAS]);
	}
	if (fb) {
		free(fb->counts);
		free(fb->cost);
		free(fb->ssim);
		free(fb->work);
		free(fb->pred);
		free(fb->meas);
		free(fb->epred);
		free(fb->emeas);
	}
	free(fb);
	return ok;
}
