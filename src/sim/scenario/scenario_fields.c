/* Reading a libconfig tree field by field: typed, range-checked readers that
 * name the origin, the line and the field path in every error, and reject
 * unknown members (a typo must not silently become a default). The
 * scenario schema itself is in scenario*.c (scenario.c says which part
 * where). */
#include "sim/scenario/scenario_fields.h"

#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sim_cfg_copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* "tenants.[1].gpu_ms": member names joined by dots, list elements as
 * [index]. The root setting has no name and contributes nothing. */
void sim_cfg_setting_path(const config_setting_t *s, char *buf, size_t len)
{
	const config_setting_t *parent = config_setting_parent(s);

	buf[0] = '\0';
	if (!parent)
		return;
	sim_cfg_setting_path(parent, buf, len);
	size_t used = strlen(buf);
	const char *sep = used ? "." : "";
	const char *name = config_setting_name(s);
	if (name)
		snprintf(buf + used, len - used, "%s%s", sep, name);
	else
		snprintf(buf + used, len - used, "%s[%d]", sep,
		         config_setting_index(s));
}

static void error_set(struct sim_error *err, const char *file, int line,
                      const char *field, const char *fmt, va_list ap)
{
	sim_cfg_copy_str(err->file, sizeof(err->file), file);
	err->line = line;
	sim_cfg_copy_str(err->field, sizeof(err->field), field);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

/* Records an error about setting s (or, with member, about s's member of that
 * name, which usually does not exist) and returns false. */
bool sim_cfg_fail(struct sim_cfg_ctx *c, const config_setting_t *s,
                  const char *member, const char *fmt, ...)
{
	char path[sizeof(c->err->field)];
	int line = 0;

	path[0] = '\0';
	if (s) {
		sim_cfg_setting_path(s, path, sizeof(path));
		line = config_setting_source_line(s);
	}
	if (member) {
		size_t used = strlen(path);
		snprintf(path + used, sizeof(path) - used, "%s%s",
		         used ? "." : "", member);
	}
	va_list ap;
	va_start(ap, fmt);
	error_set(c->err, c->origin, line, path, fmt, ap);
	va_end(ap);
	return false;
}

bool sim_cfg_fail_plain(struct sim_error *err, const char *file, int line,
                        const char *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_set(err, file, line, field, fmt, ap);
	va_end(ap);
	return false;
}

/* Rejects members of group g that are not in the NULL-terminated list, so
 * that "gpu_msec = 3" is an error rather than a silently ignored line. */
bool sim_cfg_check_known(struct sim_cfg_ctx *c, const config_setting_t *g,
                         const char *const *known)
{
	int n = config_setting_length(g);

	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(g, i);
		const char *name = config_setting_name(m);
		bool ok = false;
		for (const char *const *k = known; *k && !ok; k++)
			ok = name && strcmp(name, *k) == 0;
		if (!ok)
			return sim_cfg_fail(c, m, NULL, "unknown field");
	}
	return true;
}

static const char *type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a number";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	default:
		return "an unknown type";
	}
}

/* Looks up an optional member; a missing one is fine unless required. */
static bool sim_cfg_member(struct sim_cfg_ctx *c, const config_setting_t *g,
                           const char *key, bool required,
                           config_setting_t **out)
{
	*out = config_setting_get_member(g, key);
	if (!*out && required)
		return sim_cfg_fail(c, g, key, "missing required field");
	return true;
}

/* Reads a number written as an integer or a float into *out when present
 * and checks it lies in the range [lo, hi] (ends opened by flags, hi may be
 * INFINITY). Absent optional members leave *out (the default) alone. */
bool sim_cfg_num(struct sim_cfg_ctx *c, const config_setting_t *g,
                 const char *key, double *out, double lo, double hi,
                 unsigned flags)
{
	config_setting_t *s;
	double v;

	if (!sim_cfg_member(c, g, key, flags & NUM_REQUIRED, &s))
		return false;
	if (!s)
		return true;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v = (double)config_setting_get_int64(s);
		break;
	case CONFIG_TYPE_FLOAT:
		v = config_setting_get_float(s);
		break;
	default:
		return sim_cfg_fail(c, s, NULL, "expected a number, got %s",
		                    type_name(config_setting_type(s)));
	}
	if (!isfinite(v))
		return sim_cfg_fail(c, s, NULL, "must be a finite number");
	bool lo_ok = (flags & NUM_LO_OPEN) ? v > lo : v >= lo;
	bool hi_ok = (flags & NUM_HI_OPEN) ? v < hi : v <= hi;
	if (!lo_ok || !hi_ok) {
		if (isinf(hi))
			return sim_cfg_fail(
			    c, s, NULL, "%g is out of range: must be %s %g", v,
			    (flags & NUM_LO_OPEN) ? ">" : ">=", lo);
		return sim_cfg_fail(c, s, NULL,
		                    "%g is out of range: must be in %c%g, %g%c",
		                    v, (flags & NUM_LO_OPEN) ? '(' : '[', lo,
		                    hi, (flags & NUM_HI_OPEN) ? ')' : ']');
	}
	*out = v;
	return true;
}

bool sim_cfg_int(struct sim_cfg_ctx *c, const config_setting_t *g,
                 const char *key, long long *out, long long lo, long long hi)
{
	config_setting_t *s;

	if (!sim_cfg_member(c, g, key, false, &s))
		return false;
	if (!s)
		return true;
	int type = config_setting_type(s);
	if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
		return sim_cfg_fail(c, s, NULL, "expected an integer, got %s",
		                    type_name(type));
	long long v = config_setting_get_int64(s);
	if (v < lo || v > hi)
		return sim_cfg_fail(
		    c, s, NULL, "%lld is out of range: must be in [%lld, %lld]",
		    v, lo, hi);
	*out = v;
	return true;
}

bool sim_cfg_bool(struct sim_cfg_ctx *c, const config_setting_t *g,
                  const char *key, bool *out)
{
	config_setting_t *s;

	if (!sim_cfg_member(c, g, key, false, &s))
		return false;
	if (!s)
		return true;
	int type = config_setting_type(s);
	if (type != CONFIG_TYPE_BOOL)
		return sim_cfg_fail(c, s, NULL,
		                    "expected true or false, got %s",
		                    type_name(type));
	*out = config_setting_get_bool(s) != 0;
	return true;
}

/* Reads a string member into *out (NULL when absent and optional). */
bool sim_cfg_str(struct sim_cfg_ctx *c, const config_setting_t *g,
                 const char *key, bool required, const char **out,
                 config_setting_t **where)
{
	config_setting_t *s;

	*out = NULL;
	if (!sim_cfg_member(c, g, key, required, &s))
		return false;
	if (where)
		*where = s;
	if (!s)
		return true;
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return sim_cfg_fail(c, s, NULL, "expected a string, got %s",
		                    type_name(config_setting_type(s)));
	*out = config_setting_get_string(s);
	return true;
}

/* A string copied into a fixed buffer; too long is an error, not a cut. */
bool sim_cfg_str_copy(struct sim_cfg_ctx *c, const config_setting_t *g,
                      const char *key, bool required, char *dst, size_t len)
{
	config_setting_t *s;
	const char *v;

	if (!sim_cfg_str(c, g, key, required, &v, &s))
		return false;
	if (!v)
		return true;
	if (strlen(v) >= len)
		return sim_cfg_fail(
		    c, s, NULL, "too long (at most %zu characters)", len - 1);
	sim_cfg_copy_str(dst, len, v);
	return true;
}

/* One of a fixed set of words; *out is the index into words. */
bool sim_cfg_enum(struct sim_cfg_ctx *c, const config_setting_t *g,
                  const char *key, const char *const *words, int *out)
{
	config_setting_t *s;
	const char *v;

	if (!sim_cfg_str(c, g, key, false, &v, &s))
		return false;
	if (!v)
		return true;
	for (int i = 0; words[i]; i++) {
		if (strcmp(v, words[i]) == 0) {
			*out = i;
			return true;
		}
	}
	char choices[128] = "";
	for (int i = 0; words[i]; i++) {
		size_t used = strlen(choices);
		snprintf(choices + used, sizeof(choices) - used, "%s\"%s\"",
		         i ? ", " : "", words[i]);
	}
	return sim_cfg_fail(c, s, NULL,
	                    "unknown value \"%s\" (expected one of %s)", v,
	                    choices);
}

/* A member that must be a group; NULL in *out when absent. */
bool sim_cfg_group(struct sim_cfg_ctx *c, const config_setting_t *g,
                   const char *key, config_setting_t **out)
{
	if (!sim_cfg_member(c, g, key, false, out))
		return false;
	if (*out && !config_setting_is_group(*out))
		return sim_cfg_fail(c, *out, NULL,
		                    "expected a group { ... }, got %s",
		                    type_name(config_setting_type(*out)));
	return true;
}

/* A member that must be a list of groups: ( { ... }, { ... } ). */
bool sim_cfg_list(struct sim_cfg_ctx *c, const config_setting_t *g,
                  const char *key, bool required, int min, int max,
                  config_setting_t **out)
{
	if (!sim_cfg_member(c, g, key, required, out))
		return false;
	if (!*out)
		return true;
	/* An empty () parses as a list, an empty [] as an array: both are
	 * just "no entries" to a person writing the file. */
	bool empty_array =
	    config_setting_is_array(*out) && config_setting_length(*out) == 0;
	if (!config_setting_is_list(*out) && !empty_array)
		return sim_cfg_fail(c, *out, NULL,
		                    "expected a list ( { ... }, ... ), got %s",
		                    type_name(config_setting_type(*out)));
	int n = config_setting_length(*out);
	if (n < min || n > max)
		return sim_cfg_fail(
		    c, *out, NULL,
		    "has %d entries: must have between %d and %d", n, min, max);
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(*out, i);
		if (!config_setting_is_group(e))
			return sim_cfg_fail(c, e, NULL,
			                    "expected a group { ... }, got %s",
			                    type_name(config_setting_type(e)));
	}
	return true;
}

/* One element of a number array: an integer or a float in [lo, hi]. */
static bool num_elem(struct sim_cfg_ctx *c, const config_setting_t *e,
                     double lo, double hi, double *out)
{
	int t = config_setting_type(e);
	double v;
	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
		v = (double)config_setting_get_int64(e);
	else if (t == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(e);
	else
		return sim_cfg_fail(c, e, NULL, "expected a number");
	if (!(v >= lo && v <= hi))
		return sim_cfg_fail(c, e, NULL,
		                    "%g is out of range: must be in [%g, %g]",
		                    v, lo, hi);
	*out = v;
	return true;
}

bool sim_cfg_num_array(struct sim_cfg_ctx *c, const config_setting_t *g,
                       const char *key, double *out, size_t *n, size_t max,
                       double lo, double hi, const char *each)
{
	config_setting_t *a = config_setting_get_member(g, key);
	if (!a)
		return sim_cfg_fail(c, g, key, "missing required field");
	if (!config_setting_is_array(a) && !config_setting_is_list(a))
		return sim_cfg_fail(c, a, NULL, "expected an array of numbers");
	size_t len = (size_t)config_setting_length(a);
	if (*n == 0 && (len == 0 || len > max))
		return sim_cfg_fail(
		    c, a, NULL, "needs 1 to %zu numbers, not %zu", max, len);
	if (*n != 0 && len != *n)
		return sim_cfg_fail(
		    c, a, NULL, "needs %zu numbers%s%s%s, not %zu", *n,
		    each ? " (" : "", each ? each : "", each ? ")" : "", len);
	for (size_t j = 0; j < len; j++)
		if (!num_elem(c, config_setting_get_elem(a, (unsigned)j), lo,
		              hi, &out[j]))
			return false;
	*n = len;
	return true;
}

bool sim_cfg_none_of(struct sim_cfg_ctx *c, const config_setting_t *g,
                     const char *const *keys, const char *why)
{
	for (int i = 0; keys[i]; i++) {
		config_setting_t *s = config_setting_get_member(g, keys[i]);
		if (s)
			return sim_cfg_fail(c, s, NULL, "%s", why);
	}
	return true;
}
