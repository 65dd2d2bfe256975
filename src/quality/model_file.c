/* Reading and writing a game's dJay models (see model_file.h). */
#include "quality/model_file.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool fail(char *err, size_t err_len, const char *name, const char *fmt,
                 ...)
{
	if (err && err_len) {
		int n = snprintf(err, err_len, "%s: ", name);
		if (n >= 0 && (size_t)n < err_len) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return false;
}

/* Rejects keys outside allowed (NULL-terminated). */
static const char *unknown_key(json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v)
	{
		bool ok = false;
		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = strcmp(key, allowed[i]) == 0;
		if (!ok)
			return key;
	}
	return NULL;
}

/* The checks shared by the loader and the writer, on the struct itself. */
static bool check_linear(const struct core_qm_linear *lin, size_t n_types,
                         enum core_qm_mode mode, const char *name,
                         const char *field, char *err, size_t err_len)
{
	if (!isfinite(lin->intercept))
		return fail(err, err_len, name, "%s.intercept: not finite",
		            field);
	if (mode == CORE_QM_PAPER && lin->intercept != 0.0)
		return fail(err, err_len, name,
		            "%s.intercept: must be 0 in paper mode", field);
	for (size_t j = 0; j < n_types; j++) {
		double w = lin->weight[j];
		bool kept = lin->kept >> j & 1u;
		if (!isfinite(w))
			return fail(err, err_len, name,
			            "%s.weights[%zu]: not finite", field, j);
		if (mode == CORE_QM_BATON && w < 0.0)
			return fail(err, err_len, name,
			            "%s.weights[%zu]: negative in Baton mode",
			            field, j);
		if (!kept && w != 0.0)
			return fail(
			    err, err_len, name,
			    "%s.weights[%zu]: nonzero for a dropped type",
			    field, j);
	}
	if (n_types < CORE_QM_MAX_TYPES && lin->kept >> n_types)
		return fail(err, err_len, name, "%s.kept: beyond n_types",
		            field);
	return true;
}

static bool check_set(const struct quality_model_set *s, const char *name,
                      char *err, size_t err_len)
{
	if (s->n_types == 0 || s->n_types > CORE_QM_MAX_TYPES)
		return fail(err, err_len, name, "n_types: %zu not in 1..%d",
		            s->n_types, CORE_QM_MAX_TYPES);
	if (s->n_levels == 0 || s->n_levels > QUALITY_MODEL_MAX_LEVELS)
		return fail(err, err_len, name, "levels: %zu not in 1..%d",
		            s->n_levels, QUALITY_MODEL_MAX_LEVELS);
	for (size_t l = 0; l < s->n_levels; l++) {
		const struct core_qm_level *lv = &s->level[l];
		char field[48];
		if (lv->mode != s->mode || lv->n_types != s->n_types)
			return fail(err, err_len, name,
			            "levels[%zu]: mode or n_types differs", l);
		snprintf(field, sizeof(field), "levels[%zu].cost", l);
		if (!check_linear(&lv->cost, s->n_types, s->mode, name, field,
		                  err, err_len))
			return false;
		snprintf(field, sizeof(field), "levels[%zu].benefit", l);
		if (!check_linear(&lv->benefit, s->n_types, s->mode, name,
		                  field, err, err_len))
			return false;
	}
	return true;
}

static bool read_linear(json_t *obj, size_t n_types, const char *name,
                        const char *field, struct core_qm_linear *out,
                        char *err, size_t err_len)
{
	static const char *const keys[] = {"intercept", "weights", "kept",
	                                   NULL};
	if (!json_is_object(obj))
		return fail(err, err_len, name, "%s: not an object", field);
	const char *bad = unknown_key(obj, keys);
	if (bad)
		return fail(err, err_len, name, "%s.%s: unknown key", field,
		            bad);
	json_t *c0 = json_object_get(obj, "intercept");
	json_t *w = json_object_get(obj, "weights");
	json_t *k = json_object_get(obj, "kept");
	if (!json_is_number(c0))
		return fail(err, err_len, name, "%s.intercept: not a number",
		            field);
	if (!json_is_array(w) || json_array_size(w) != n_types)
		return fail(err, err_len, name,
		            "%s.weights: not an array of n_types = %zu numbers",
		            field, n_types);
	if (!json_is_array(k) || json_array_size(k) != n_types)
		return fail(err, err_len, name,
		            "%s.kept: not an array of n_types = %zu booleans",
		            field, n_types);
	*out = (struct core_qm_linear){.intercept = json_number_value(c0)};
	for (size_t j = 0; j < n_types; j++) {
		json_t *wj = json_array_get(w, j), *kj = json_array_get(k, j);
		if (!json_is_number(wj))
			return fail(err, err_len, name,
			            "%s.weights[%zu]: not a number", field, j);
		if (!json_is_boolean(kj))
			return fail(err, err_len, name,
			            "%s.kept[%zu]: not a boolean", field, j);
		out->weight[j] = json_number_value(wj);
		if (json_is_true(kj))
			out->kept |= (uint64_t)1 << j;
	}
	return true;
}

static bool read_set(json_t *root, const char *name, size_t want_levels,
                     size_t want_types, struct quality_model_set *out,
                     char *err, size_t err_len)
{
	static const char *const keys[] = {"version", "game",   "mode",
	                                   "n_types", "levels", NULL};
	if (!json_is_object(root))
		return fail(err, err_len, name, "top level: not an object");
	const char *bad = unknown_key(root, keys);
	if (bad)
		return fail(err, err_len, name, "%s: unknown key", bad);
	json_t *v = json_object_get(root, "version");
	if (!json_is_integer(v) ||
	    json_integer_value(v) != QUALITY_MODEL_VERSION)
		return fail(err, err_len, name,
		            "version: not %d (unknown version)",
		            QUALITY_MODEL_VERSION);
	json_t *game = json_object_get(root, "game");
	if (!json_is_string(game) ||
	    json_string_length(game) >= QUALITY_GAME_MAX ||
	    strlen(json_string_value(game)) != json_string_length(game))
		return fail(err, err_len, name,
		            "game: not a string of under %d bytes",
		            QUALITY_GAME_MAX);
	*out = (struct quality_model_set){0};
	memcpy(out->game, json_string_value(game), json_string_length(game));
	const char *mode = json_string_value(json_object_get(root, "mode"));
	if (mode && strcmp(mode, "baton") == 0)
		out->mode = CORE_QM_BATON;
	else if (mode && strcmp(mode, "paper") == 0)
		out->mode = CORE_QM_PAPER;
	else
		return fail(err, err_len, name,
		            "mode: not \"baton\" or \"paper\"");
	json_t *nt = json_object_get(root, "n_types");
	if (!json_is_integer(nt) || json_integer_value(nt) < 1 ||
	    json_integer_value(nt) > CORE_QM_MAX_TYPES)
		return fail(err, err_len, name, "n_types: not in 1..%d",
		            CORE_QM_MAX_TYPES);
	out->n_types = (size_t)json_integer_value(nt);
	if (want_types && out->n_types != want_types)
		return fail(err, err_len, name,
		            "n_types: %zu, but the game declares %zu",
		            out->n_types, want_types);
	json_t *levels = json_object_get(root, "levels");
	if (!json_is_array(levels) || json_array_size(levels) == 0 ||
	    json_array_size(levels) > QUALITY_MODEL_MAX_LEVELS)
		return fail(err, err_len, name,
		            "levels: not an array of 1..%d levels",
		            QUALITY_MODEL_MAX_LEVELS);
	out->n_levels = json_array_size(levels);
	if (want_levels && out->n_levels != want_levels)
		return fail(err, err_len, name,
		            "levels: %zu, but the game declares %zu",
		            out->n_levels, want_levels);
	static const char *const level_keys[] = {"cost", "benefit", NULL};
	for (size_t l = 0; l < out->n_levels; l++) {
		json_t *lv = json_array_get(levels, l);
		char field[48];
		if (!json_is_object(lv))
			return fail(err, err_len, name,
			            "levels[%zu]: not an object", l);
		bad = unknown_key(lv, level_keys);
		if (bad)
			return fail(err, err_len, name,
			            "levels[%zu].%s: unknown key", l, bad);
		out->level[l].mode = out->mode;
		out->level[l].n_types = out->n_types;
		snprintf(field, sizeof(field), "levels[%zu].cost", l);
		if (!read_linear(json_object_get(lv, "cost"), out->n_types,
		                 name, field, &out->level[l].cost, err,
		                 err_len))
			return false;
		snprintf(field, sizeof(field), "levels[%zu].benefit", l);
		if (!read_linear(json_object_get(lv, "benefit"), out->n_types,
		                 name, field, &out->level[l].benefit, err,
		                 err_len))
			return false;
	}
	return check_set(out, name, err, err_len);
}

bool quality_model_parse(const char *text, size_t len, const char *name,
                         size_t want_levels, size_t want_types,
                         struct quality_model_set *out, char *err,
                         size_t err_len)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return fail(err, err_len, name, "line %d: %s", jerr.line,
		            jerr.text);
	bool ok =
	    read_set(root, name, want_levels, want_types, out, err, err_len);
	json_decref(root);
	return ok;
}

bool quality_model_load(const char *path, size_t want_levels, size_t want_types,
                        struct quality_model_set *out, char *err,
                        size_t err_len)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return fail(err, err_len, path, "line %d: %s", jerr.line,
		            jerr.text);
	bool ok =
	    read_set(root, path, want_levels, want_types, out, err, err_len);
	json_decref(root);
	return ok;
}

static json_t *write_linear(const struct core_qm_linear *lin, size_t n)
{
	json_t *w = json_array(), *k = json_array();
	for (size_t j = 0; j < n; j++) {
		json_array_append_new(w, json_real(lin->weight[j]));
		json_array_append_new(k, json_boolean(lin->kept >> j & 1u));
	}
	return json_pack("{s:f, s:o, s:o}", "intercept", lin->intercept,
	                 "weights", w, "kept", k);
}

bool quality_model_save(const char *path, const struct quality_model_set *set,
                        char *err, size_t err_len)
{
	if (!check_set(set, path, err, err_len))
		return false;
	json_t *levels = json_array();
	for (size_t l = 0; l < set->n_levels; l++)
		json_array_append_new(
		    levels,
		    json_pack(
		        "{s:o, s:o}", "cost",
		        write_linear(&set->level[l].cost, set->n_types),
		        "benefit",
		        write_linear(&set->level[l].benefit, set->n_types)));
	json_t *root =
	    json_pack("{s:i, s:s, s:s, s:I, s:o}", "version",
	              QUALITY_MODEL_VERSION, "game", set->game, "mode",
	              set->mode == CORE_QM_PAPER ? "paper" : "baton", "n_types",
	              (json_int_t)set->n_types, "levels", levels);
	if (!root)
		return fail(err, err_len, path, "cannot build the JSON");
	char tmp[4096];
	int n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	bool ok = n > 0 && (size_t)n < sizeof(tmp);
	if (ok &&
	    json_dump_file(root, tmp,
	                   JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) {
		ok = fail(err, err_len, path, "cannot write %s: %s", tmp,
		          strerror(errno));
		unlink(tmp);
	} else if (ok && rename(tmp, path) != 0) {
		ok = fail(err, err_len, path, "cannot rename %s: %s", tmp,
		          strerror(errno));
		unlink(tmp);
	} else if (!ok)
		fail(err, err_len, path, "path too long");
	json_decref(root);
	return ok;
}
