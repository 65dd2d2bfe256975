/* The history file's reader (history.h). */
#include "cli/history.h"

#include "ipc/shm.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool fail(char *why, size_t whylen, const char *msg)
{
	snprintf(why, whylen, "%s", msg);
	return false;
}

/* A number, or NAN for null, absent or anything else. */
static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool wanted(const struct hist_filter *f, uint64_t id, const char *name)
{
	if (!f || !f->tenant)
		return true;
	if (strcmp(f->tenant, name) == 0)
		return true;
	char buf[24];
	snprintf(buf, sizeof(buf), "%" PRIu64, id);
	return strcmp(f->tenant, buf) == 0;
}

static struct hist_series *series_of(struct hist *h, uint64_t id, int64_t pid,
                                     const char *name, bool be)
{
	for (size_t i = 0; i < h->n; i++) {
		struct hist_series *s = &h->s[i];
		if (s->id == id && s->pid == pid && s->be == be &&
		    strcmp(s->name, name) == 0)
			return s;
	}
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 8;
		struct hist_series *s = realloc(h->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		h->s = s;
		h->cap = cap;
	}
	struct hist_series *s = &h->s[h->n++];
	*s = (struct hist_series){.id = id, .pid = pid, .be = be};
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static bool add_point(struct hist_series *s, const struct hist_point *p)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct hist_point *q = realloc(s->p, cap * sizeof(*q));
		if (!q)
			return false;
		s->p = q;
		s->cap = cap;
	}
	s->p[s->n++] = *p;
	return true;
}

/* Checks a tenant object's identity: id, name, pid. */
static bool identity(const json_t *o, uint64_t *id, const char **name,
                     int64_t *pid)
{
	const json_t *i = json_object_get(o, "id");
	const json_t *n = json_object_get(o, "name");
	const json_t *p = json_object_get(o, "pid");
	if (!json_is_integer(i) || json_integer_value(i) < 0 ||
	    !json_is_string(n) || (p && !json_is_integer(p)))
		return false;
	*id = (uint64_t)json_integer_value(i);
	*name = json_string_value(n);
	*pid = p ? (int64_t)json_integer_value(p) : 0;
	return true;
}

static struct hist_point point(const json_t *o, int64_t t, bool be)
{
	struct hist_point p = {
	    .t = t,
	    .fps = num(o, "fps"),
	    .sla = num(o, "sla"),
	    .target_fps = num(o, "target_fps"),
	    .cap = num(o, "cap"),
	    .level = num(o, "level"),
	    .p99_ms = num(o, "p99_ms"),
	    .units_s = num(o, "units_s"),
	    .gpu_share = num(o, "gpu_share"),
	    .wait = num(o, "wait"),
	};
	if (be)
		p.fps = p.sla = p.target_fps = p.level = p.p99_ms = NAN;
	return p;
}

/* A figure's bounds (history.h); whole: a whole number. */
struct bound {
	const char *key;
	double lo, hi;
	bool whole;
};

static const struct bound bounds[] = {
    {"fps", 0.0, HIST_FPS_MAX, false},
    {"sla", 0.0, HIST_FPS_MAX, false},
    {"target_fps", 0.0, HIST_FPS_MAX, false},
    {"cap", 0.0, 1.0, false},
    {"level", 0.0, BATON_QUALITY_LEVELS_MAX - 1.0, true},
    {"units_s", 0.0, HIST_UNITS_MAX, false},
};

/* Every figure of tenant o (id) a number within its bounds; null and
 * absent figures are no figure. false with why naming the tenant, the
 * figure and its value. */
static bool in_bounds(const json_t *o, uint64_t id, char *why, size_t whylen)
{
	for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
		const struct bound *b = &bounds[i];
		const json_t *v = json_object_get(o, b->key);
		if (!json_is_number(v))
			continue;
		double x = json_number_value(v);
		bool in = isfinite(x) && x >= b->lo && x <= b->hi;
		if (in && (!b->whole || x == floor(x)))
			continue;
		snprintf(why, whylen,
		         "tenant #%" PRIu64 ": \"%s\" %g is not %s [%g, %g]",
		         id, b->key, x, in ? "a whole number in" : "in", b->lo,
		         b->hi);
		return false;
	}
	return true;
}

/* Every element of arr is a tenant object with its identity and figures
 * in bounds; false with why. */
static bool valid_array(const json_t *arr, char *why, size_t whylen)
{
	if (!arr)
		return true;
	if (!json_is_array(arr))
		return fail(why, whylen, "a tenant list that is not an array");
	size_t i;
	const json_t *o;
	json_array_foreach(arr, i, o)
	{
		uint64_t id = 0;
		const char *name = "";
		int64_t pid = 0;
		if (!json_is_object(o) || !identity(o, &id, &name, &pid))
			return fail(why, whylen,
			            "a tenant without id and name");
		if (!in_bounds(o, id, why, whylen))
			return false;
	}
	return true;
}

static bool add_array(struct hist *h, const json_t *arr, int64_t t, bool be,
                      const struct hist_filter *f)
{
	size_t i;
	const json_t *o;
	json_array_foreach(arr, i, o)
	{
		uint64_t id = 0;
		const char *name = "";
		int64_t pid = 0;
		/* valid_array checked every element before */
		if (!identity(o, &id, &name, &pid) || !wanted(f, id, name))
			continue;
		struct hist_series *s = series_of(h, id, pid, name, be);
		struct hist_point p = point(o, t, be);
		if (!s || !add_point(s, &p))
			return false;
	}
	return true;
}

/* o is a record this reader reads: version 1, a time, tenant lists with
 * every tenant's identity and figures in bounds. false with why. */
static bool record_ok(const json_t *o, char *why, size_t whylen)
{
	const json_t *v = json_object_get(o, "v");
	const json_t *t = json_object_get(o, "t");
	if (!json_is_object(o) || !json_is_integer(v))
		return fail(why, whylen, "not a record (no \"v\")");
	if (json_integer_value(v) != 1) {
		snprintf(why, whylen,
		         "format version %" JSON_INTEGER_FORMAT
		         " (this baton reads 1)",
		         json_integer_value(v));
		return false;
	}
	if (!json_is_integer(t))
		return fail(why, whylen, "no time (\"t\")");
	if (json_integer_value(t) < 0 || json_integer_value(t) > HIST_T_MAX) {
		snprintf(why, whylen,
		         "time \"t\" %" JSON_INTEGER_FORMAT
		         " is not in [0, %lld]",
		         json_integer_value(t), HIST_T_MAX);
		return false;
	}
	return valid_array(json_object_get(o, "tenants"), why, whylen) &&
	       valid_array(json_object_get(o, "be"), why, whylen);
}

bool hist_parse_line(struct hist *h, const char *line, size_t len,
                     const struct hist_filter *f, char *why, size_t whylen)
{
	json_error_t e;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &e);
	if (!o)
		return fail(why, whylen, e.text[0] ? e.text : "not JSON");
	if (!record_ok(o, why, whylen)) {
		json_decref(o);
		return false;
	}
	bool ok = true;
	int64_t ts = (int64_t)json_integer_value(json_object_get(o, "t"));
	const json_t *dr = json_object_get(o, "dropped");
	h->lines++;
	if (json_is_integer(dr) && json_integer_value(dr) > 0 &&
	    (uint64_t)json_integer_value(dr) > h->dropped)
		h->dropped = (uint64_t)json_integer_value(dr);
	if (!f || (ts >= f->from && ts <= f->to)) {
		if (h->kept == 0 || ts < h->t_min)
			h->t_min = ts;
		if (h->kept == 0 || ts > h->t_max)
			h->t_max = ts;
		h->kept++;
		if (!add_array(h, json_object_get(o, "tenants"), ts, false,
		               f) ||
		    !add_array(h, json_object_get(o, "be"), ts, true, f))
			ok = fail(why, whylen, "out of memory");
	}
	json_decref(o);
	return ok;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

bool hist_read(struct hist *h, FILE *in, const struct hist_filter *f)
{
	char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t n;
	bool ok = true;
	errno = 0;
	while ((n = getline(&line, &cap, in)) >= 0) {
		no++;
		bool newline = n > 0 && line[n - 1] == '\n';
		size_t len = (size_t)n - (newline ? 1 : 0);
		if (blank(line, len))
			continue;
		char why[96];
		if (hist_parse_line(h, line, len, f, why, sizeof(why)))
			continue;
		if (strcmp(why, "out of memory") == 0) {
			errno = ENOMEM;
			ok = false;
			break;
		}
		/* A crash or a full disk cuts the last line short. */
		if (!newline) {
			h->torn = true;
			continue;
		}
		if (h->bad++ == 0) {
			h->first_bad = no;
			snprintf(h->bad_why, sizeof(h->bad_why), "%s", why);
		}
	}
	if (ok && ferror(in))
		ok = false;
	free(line);
	return ok;
}

void hist_free(struct hist *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->s[i].p);
	free(h->s);
	*h = (struct hist){0};
}
