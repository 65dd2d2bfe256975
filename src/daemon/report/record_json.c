/* One line of the history file (record.h); the format is documented in
 * docs/runtime.md, "Recording", and read back by src/cli/history.c.
 *
 * Names and pids are written: the file is batond's own, created 0600, so
 * only batond's user (root, as packaged) and root read it, the same people
 * `baton status` shows names to (admins). /metrics leaves them out unless
 * metrics_names is set because every local user can read it. */
#include "daemon/report/res_json.h"
#include "daemon/report/record.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* JSON has no NaN or infinity: a value that is not finite is null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Sets key to v; false when out of memory. */
static bool put(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0;
}

static json_t *tenant_json(const struct metrics_tenant *m)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	bool ok =
	    put(o, "id", json_integer((json_int_t)m->id)) &&
	    put(o, "name", json_string(m->name)) &&
	    put(o, "pid", json_integer(m->pid)) &&
	    put(o, "uid", json_integer(m->uid)) && put(o, "fps", num(m->fps)) &&
	    put(o, "sla", num(m->sla_fps)) &&
	    put(o, "target_fps", num(m->target_fps)) &&
	    put(o, "cap", num(m->cap)) && put(o, "budget", num(m->budget)) &&
	    put(o, "level",
	        m->has_quality ? num(m->quality_level) : json_null()) &&
	    put(o, "p99_ms", num(m->frame_s[2] * 1e3)) &&
	    put(o, "below_sla_s", num(m->below_sla_s)) &&
	    put(o, "gpu_share", num(m->gpu_share)) &&
	    put(o, "gpu_source",
	        json_string(m->gpu_source ? m->gpu_source : "shim")) &&
	    put(o, "limited", json_boolean(m->limited > 0.5)) &&
	    put(o, "overloaded", json_boolean(m->overloaded > 0.5)) &&
	    put(o, "gpu", json_integer((json_int_t)m->gpu)) &&
	    json_object_update_new(o, res_json_tenant(&m->res)) == 0;
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *be_json(const struct metrics_be *m)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	bool ok = put(o, "id", json_integer((json_int_t)m->id)) &&
	          put(o, "name", json_string(m->name)) &&
	          put(o, "pid", json_integer(m->pid)) &&
	          put(o, "uid", json_integer(m->uid)) &&
	          put(o, "units_s", num(m->units_s)) &&
	          put(o, "gpu_share", num(m->gpu_share)) &&
	          put(o, "wait", num(m->wait_ratio)) &&
	          put(o, "budget", num(m->budget)) &&
	          put(o, "stuck", json_boolean(m->stuck > 0.5)) &&
	          put(o, "gpu", json_integer((json_int_t)m->gpu));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* One GPU's figures (daemon/gpus.h). */
static json_t *gpu_json(const struct metrics_gpu *g)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	bool ok =
	    put(o, "name", json_string(g->name)) &&
	    put(o, "util", num(g->util)) &&
	    put(o, "other_util", num(g->other_util)) &&
	    put(o, "overload", json_boolean(g->overload > 0.5)) &&
	    put(o, "slot_s", num(g->slot_s)) &&
	    put(o, "total_load", num(g->total_load)) &&
	    put(o, "common_fps", num(g->common_fps)) &&
	    /* space harvesting (core/harvest_space.h): the games'
	     * units (0 = the whole device) and best-effort's */
	    put(o, "space_split", json_integer((json_int_t)g->space_split)) &&
	    put(o, "space_be_units",
	        json_integer((json_int_t)g->space_be_units)) &&
	    json_object_update_new(o, res_json_gpu(&g->res)) == 0;
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *line_json(const struct metrics_snapshot *s, int64_t time_s,
                         uint64_t dropped)
{
	json_t *o = json_object(), *t = json_array(), *b = json_array();
	json_t *g = json_array();
	bool ok = o && t && b && g;
	for (size_t i = 0; ok && i < s->n_gpus; i++)
		ok = json_array_append_new(g, gpu_json(&s->gpus[i])) == 0;
	for (size_t i = 0; ok && i < s->n; i++)
		ok = json_array_append_new(t, tenant_json(&s->tenants[i])) == 0;
	for (size_t i = 0; ok && i < s->n_be; i++)
		ok = json_array_append_new(b, be_json(&s->be[i])) == 0;
	ok = ok && put(o, "v", json_integer(RECORD_VERSION)) &&
	     put(o, "t", json_integer((json_int_t)time_s)) &&
	     put(o, "policy", json_string(s->policy ? s->policy : "none")) &&
	     put(o, "tick_ms", num(s->tick_s * 1e3)) &&
	     put(o, "dropped", json_integer((json_int_t)dropped));
	if (ok) {
		ok = json_object_set(o, "gpus", g) == 0 &&
		     json_object_set(o, "tenants", t) == 0 &&
		     json_object_set(o, "be", b) == 0;
	}
	json_decref(g);
	json_decref(t);
	json_decref(b);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *record_format(const struct metrics_snapshot *s, int64_t time_s,
                    uint64_t dropped, size_t *len)
{
	json_t *o = line_json(s, time_s, dropped);
	if (!o)
		return NULL;
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
	                               JSON_REAL_PRECISION(6));
	json_decref(o);
	if (!text)
		return NULL;
	/* One line: compact JSON has no newline inside (strings escape
	 * theirs). */
	size_t n = strlen(text);
	char *line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	*len = n + 1;
	return line;
}
