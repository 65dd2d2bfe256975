/* Scenario files: libconfig text checked field by field against a fixed
 * schema. Every error names the origin, the line and the field path, because
 * scenario files are written by hand and a typo must not silently become a
 * default. */
#include "sim/scenario.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/builtin.h"

/* Limits that keep a scenario within what the simulator can hold in memory
 * and what a person can mean; documented in docs/scenarios.md. */
#define MAX_TENANTS      1024
#define MAX_SCENES       4096
#define MAX_SWEEP        256
#define MAX_DURATION_S   86400.0
#define MAX_IN_FLIGHT    16
#define MAX_TRACE_FRAMES (16u * 1024u * 1024u)
#define MAX_FILE_BYTES   ((size_t)16 * 1024 * 1024)
#define MAX_TRACE_BYTES  ((size_t)512 * 1024 * 1024)

struct parse_ctx {
	const char *origin;
	const char *base_dir;
	struct sim_error *err;
};

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* "tenants.[1].gpu_ms": member names joined by dots, list elements as
 * [index]. The root setting has no name and contributes nothing. */
static void setting_path(const config_setting_t *s, char *buf, size_t len)
{
	const config_setting_t *parent = config_setting_parent(s);

	buf[0] = '\0';
	if (!parent)
		return;
	setting_path(parent, buf, len);
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
	copy_str(err->file, sizeof(err->file), file);
	err->line = line;
	copy_str(err->field, sizeof(err->field), field);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

/* Records an error about setting s (or, with member, about s's member of that
 * name, which usually does not exist) and returns false. */
static bool fail(struct parse_ctx *c, const config_setting_t *s,
                 const char *member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail(struct parse_ctx *c, const config_setting_t *s,
                 const char *member, const char *fmt, ...)
{
	char path[sizeof(c->err->field)];
	int line = 0;

	path[0] = '\0';
	if (s) {
		setting_path(s, path, sizeof(path));
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

static bool fail_plain(struct sim_error *err, const char *file, int line,
                       const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static bool fail_plain(struct sim_error *err, const char *file, int line,
                       const char *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_set(err, file, line, field, fmt, ap);
	va_end(ap);
	return false;
}

void sim_error_format(const struct sim_error *err, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
#define APPEND(...)                                                            \
	do {                                                                   \
		if (used < len) {                                              \
			int n = snprintf(buf + used, len - used, __VA_ARGS__); \
			if (n > 0)                                             \
				used += (size_t)n;                             \
		}                                                              \
	} while (0)
	if (err->file[0]) {
		APPEND("%s", err->file);
		if (err->line > 0)
			APPEND(":%d", err->line);
		APPEND(": ");
	}
	if (err->field[0])
		APPEND("%s: ", err->field);
	APPEND("%s", err->msg[0] ? err->msg : "invalid scenario");
#undef APPEND
}

/* Rejects members of group g that are not in the NULL-terminated list, so
 * that "gpu_msec = 3" is an error rather than a silently ignored line. */
static bool check_known(struct parse_ctx *c, const config_setting_t *g,
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
			return fail(c, m, NULL, "unknown field");
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
static bool member(struct parse_ctx *c, const config_setting_t *g,
                   const char *key, bool required, config_setting_t **out)
{
	*out = config_setting_get_member(g, key);
	if (!*out && required)
		return fail(c, g, key, "missing required field");
	return true;
}

enum num_flags {
	NUM_REQUIRED = 1 << 0,
	NUM_LO_OPEN = 1 << 1, /* value must be > lo, not >= lo */
	NUM_HI_OPEN = 1 << 2, /* value must be < hi, not <= hi */
};

/* Reads a number written as an integer or a float into *out when present
 * and checks it lies in the range [lo, hi] (ends opened by flags, hi may be
 * INFINITY). Absent optional members leave *out (the default) alone. */
static bool num_field(struct parse_ctx *c, const config_setting_t *g,
                      const char *key, double *out, double lo, double hi,
                      unsigned flags)
{
	config_setting_t *s;
	double v;

	if (!member(c, g, key, flags & NUM_REQUIRED, &s))
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
		return fail(c, s, NULL, "expected a number, got %s",
		            type_name(config_setting_type(s)));
	}
	if (!isfinite(v))
		return fail(c, s, NULL, "must be a finite number");
	bool lo_ok = (flags & NUM_LO_OPEN) ? v > lo : v >= lo;
	bool hi_ok = (flags & NUM_HI_OPEN) ? v < hi : v <= hi;
	if (!lo_ok || !hi_ok) {
		if (isinf(hi))
			return fail(c, s, NULL,
			            "%g is out of range: must be %s %g", v,
			            (flags & NUM_LO_OPEN) ? ">" : ">=", lo);
		return fail(c, s, NULL,
		            "%g is out of range: must be in %c%g, %g%c", v,
		            (flags & NUM_LO_OPEN) ? '(' : '[', lo, hi,
		            (flags & NUM_HI_OPEN) ? ')' : ']');
	}
	*out = v;
	return true;
}

static bool int_field(struct parse_ctx *c, const config_setting_t *g,
                      const char *key, long long *out, long long lo,
                      long long hi)
{
	config_setting_t *s;

	if (!member(c, g, key, false, &s))
		return false;
	if (!s)
		return true;
	int type = config_setting_type(s);
	if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
		return fail(c, s, NULL, "expected an integer, got %s",
		            type_name(type));
	long long v = config_setting_get_int64(s);
	if (v < lo || v > hi)
		return fail(c, s, NULL,
		            "%lld is out of range: must be in [%lld, %lld]", v,
		            lo, hi);
	*out = v;
	return true;
}

/* Reads a string member into *out (NULL when absent and optional). */
static bool str_field(struct parse_ctx *c, const config_setting_t *g,
                      const char *key, bool required, const char **out,
                      config_setting_t **where)
{
	config_setting_t *s;

	*out = NULL;
	if (!member(c, g, key, required, &s))
		return false;
	if (where)
		*where = s;
	if (!s)
		return true;
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(c, s, NULL, "expected a string, got %s",
		            type_name(config_setting_type(s)));
	*out = config_setting_get_string(s);
	return true;
}

/* A string copied into a fixed buffer; too long is an error, not a cut. */
static bool str_copy_field(struct parse_ctx *c, const config_setting_t *g,
                           const char *key, bool required, char *dst,
                           size_t len)
{
	config_setting_t *s;
	const char *v;

	if (!str_field(c, g, key, required, &v, &s))
		return false;
	if (!v)
		return true;
	if (strlen(v) >= len)
		return fail(c, s, NULL, "too long (at most %zu characters)",
		            len - 1);
	copy_str(dst, len, v);
	return true;
}

/* One of a fixed set of words; *out is the index into words. */
static bool enum_field(struct parse_ctx *c, const config_setting_t *g,
                       const char *key, const char *const *words, int *out)
{
	config_setting_t *s;
	const char *v;

	if (!str_field(c, g, key, false, &v, &s))
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
	return fail(c, s, NULL, "unknown value \"%s\" (expected one of %s)", v,
	            choices);
}

/* A member that must be a group; NULL in *out when absent. */
static bool group_field(struct parse_ctx *c, const config_setting_t *g,
                        const char *key, config_setting_t **out)
{
	if (!member(c, g, key, false, out))
		return false;
	if (*out && !config_setting_is_group(*out))
		return fail(c, *out, NULL, "expected a group { ... }, got %s",
		            type_name(config_setting_type(*out)));
	return true;
}

/* A member that must be a list of groups: ( { ... }, { ... } ). */
static bool list_field(struct parse_ctx *c, const config_setting_t *g,
                       const char *key, bool required, int min, int max,
                       config_setting_t **out)
{
	if (!member(c, g, key, required, out))
		return false;
	if (!*out)
		return true;
	/* An empty () parses as a list, an empty [] as an array: both are
	 * just "no entries" to a person writing the file. */
	bool empty_array =
	    config_setting_is_array(*out) && config_setting_length(*out) == 0;
	if (!config_setting_is_list(*out) && !empty_array)
		return fail(c, *out, NULL,
		            "expected a list ( { ... }, ... ), got %s",
		            type_name(config_setting_type(*out)));
	int n = config_setting_length(*out);
	if (n < min || n > max)
		return fail(c, *out, NULL,
		            "has %d entries: must have between %d and %d", n,
		            min, max);
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(*out, i);
		if (!config_setting_is_group(e))
			return fail(c, e, NULL,
			            "expected a group { ... }, got %s",
			            type_name(config_setting_type(e)));
	}
	return true;
}

static bool parse_gpu(struct parse_ctx *c, const config_setting_t *root,
                      struct sim_scenario *sc)
{
	static const char *const known[] = {"model", "quantum_ms", "switch_us",
	                                    NULL};
	static const char *const models[] = {"timeslice", "fcfs", NULL};
	config_setting_t *g;

	sc->gpu.model = SIM_GPU_TIMESLICE;
	sc->gpu.quantum_ms = 1.0;
	sc->gpu.switch_us = 50.0;
	if (!group_field(c, root, "gpu", &g))
		return false;
	if (!g)
		return true;
	int model = (int)sc->gpu.model;
	if (!check_known(c, g, known) ||
	    !enum_field(c, g, "model", models, &model) ||
	    !num_field(c, g, "quantum_ms", &sc->gpu.quantum_ms, 0, 1000,
	               NUM_LO_OPEN) ||
	    !num_field(c, g, "switch_us", &sc->gpu.switch_us, 0, 1e6, 0))
		return false;
	sc->gpu.model = (enum sim_gpu_model)model;
	return true;
}

static bool parse_policy(struct parse_ctx *c, const config_setting_t *root,
                         struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "name",      "kp",         "ki",          "max_ratio",
	    "epoch_ms",  "sla_margin", "util_target", "fsa_guard",
	    "fsa_relax", "fsa_hold_s", "k_alpha",     NULL};
	struct core_params *p = &sc->params;
	config_setting_t *g, *s;
	const char *name;

	*p = core_params_default();
	copy_str(sc->policy, sizeof(sc->policy), "sa");
	if (!group_field(c, root, "policy", &g))
		return false;
	if (!g)
		return true;
	if (!check_known(c, g, known) ||
	    !str_field(c, g, "name", false, &name, &s))
		return false;
	if (name) {
		/* The policy core owns the list, so a new policy needs no
		 * change here. */
		if (!core_policy_find(name) ||
		    strlen(name) >= sizeof(sc->policy)) {
			char choices[128] = "";
			const struct core_policy *const *all =
			    core_policy_all();
			for (size_t i = 0; all && all[i]; i++) {
				size_t used = strlen(choices);
				snprintf(choices + used, sizeof(choices) - used,
				         "%s\"%s\"", i ? ", " : "",
				         all[i]->name);
			}
			return fail(
			    c, s, NULL,
			    "unknown policy \"%s\" (expected one of %s)", name,
			    choices);
		}
		copy_str(sc->policy, sizeof(sc->policy), name);
	}
	double epoch_ms = p->epoch_s * 1000.0;
	if (!num_field(c, g, "kp", &p->pi.kp, 0, 100, 0) ||
	    !num_field(c, g, "ki", &p->pi.ki, 0, 100, 0) ||
	    !num_field(c, g, "max_ratio", &p->pi.max_ratio, 1, 1000,
	               NUM_LO_OPEN) ||
	    !num_field(c, g, "epoch_ms", &epoch_ms, 0, 60000, NUM_LO_OPEN) ||
	    !num_field(c, g, "sla_margin", &p->sla_margin, 0, 1, 0) ||
	    !num_field(c, g, "util_target", &p->util_target, 0, 1,
	               NUM_LO_OPEN) ||
	    !num_field(c, g, "fsa_guard", &p->fsa_guard, 0, 1, 0) ||
	    !num_field(c, g, "fsa_relax", &p->fsa_relax, 0, 1, 0) ||
	    !num_field(c, g, "fsa_hold_s", &p->fsa_hold_s, 0, 60, 0) ||
	    !num_field(c, g, "k_alpha", &p->k_alpha, 0, 1, NUM_LO_OPEN))
		return false;
	p->epoch_s = epoch_ms / 1000.0;
	return true;
}

/* Parses one trace line "cpu_ms,gpu_ms" (blanks around the numbers allowed,
 * '#' starts a comment). Returns 0 for a frame, 1 for nothing, -1 if bad. */
static int trace_line(char *line, double *cpu, double *gpu)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char *p = line;
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (!*p)
		return 1;
	char *end;
	errno = 0;
	*cpu = strtod(p, &end);
	if (end == p || errno)
		return -1;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != ',')
		return -1;
	*gpu = strtod(p, &end);
	if (end == p || errno)
		return -1;
	p = end;
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (*p)
		return -1;
	if (!isfinite(*cpu) || !isfinite(*gpu) || *cpu < 0 || *gpu < 0)
		return -1;
	return 0;
}

static bool trace_push(struct sim_tenant_spec *t, size_t *alloc, double cpu,
                       double gpu)
{
	if (t->n_trace == *alloc) {
		size_t n = *alloc ? *alloc * 2 : 256;
		double *a = realloc(t->trace_cpu_ms, n * sizeof(*a));
		if (!a)
			return false;
		t->trace_cpu_ms = a;
		double *b = realloc(t->trace_gpu_ms, n * sizeof(*b));
		if (!b)
			return false;
		t->trace_gpu_ms = b;
		*alloc = n;
	}
	t->trace_cpu_ms[t->n_trace] = cpu;
	t->trace_gpu_ms[t->n_trace] = gpu;
	t->n_trace++;
	return true;
}

/* Splits text (modified in place) into lines and appends their frames.
 * Errors name the trace (file) and its line, and the setting (field). */
static bool parse_trace(struct sim_error *err, const char *file,
                        const char *field, char *text,
                        struct sim_tenant_spec *t)
{
	size_t alloc = 0;
	int lineno = 0;

	for (char *line = text; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		double cpu, gpu;
		int r = trace_line(line, &cpu, &gpu);
		if (r < 0)
			return fail_plain(err, file, lineno, field,
			                  "expected \"cpu_ms,gpu_ms\" with two "
			                  "non-negative numbers");
		if (r == 0 && t->n_trace == MAX_TRACE_FRAMES)
			return fail_plain(err, file, lineno, field,
			                  "more than %u frames",
			                  MAX_TRACE_FRAMES);
		if (r == 0 && !trace_push(t, &alloc, cpu, gpu))
			return fail_plain(err, file, lineno, field,
			                  "out of memory");
		line = nl ? nl + 1 : NULL;
	}
	if (t->n_trace == 0)
		return fail_plain(err, file, 0, field, "trace has no frames");
	for (size_t i = 0; i < t->n_trace; i++) {
		if (t->trace_cpu_ms[i] + t->trace_gpu_ms[i] > 0)
			return true;
	}
	/* Replayed in a loop, such a trace would never advance the clock. */
	return fail_plain(err, file, 0, field, "every frame costs 0 ms");
}

static char *read_file(const char *path, size_t max, struct sim_error *err);

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/* The fuzzer feeds arbitrary text, and a path in it must not make it read
 * (or block on) whatever file the path names. The string itself stands in
 * for the trace's contents instead, so the CSV reader is fuzzed as well. */
static bool read_trace(struct parse_ctx *c, const config_setting_t *s,
                       const char *rel, struct sim_tenant_spec *t)
{
	char field[sizeof(c->err->field)];

	setting_path(s, field, sizeof(field));
	char *text = strdup(rel);
	if (!text)
		return fail(c, s, NULL, "out of memory");
	bool ok = parse_trace(c->err, "<trace>", field, text, t);
	free(text);
	return ok;
}
#else
static bool read_trace(struct parse_ctx *c, const config_setting_t *s,
                       const char *rel, struct sim_tenant_spec *t)
{
	char path[4096], field[sizeof(c->err->field)];

	setting_path(s, field, sizeof(field));
	if (rel[0] == '/' || !c->base_dir || !c->base_dir[0])
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", c->base_dir, rel);
	char *text = read_file(path, MAX_TRACE_BYTES, c->err);
	if (!text) {
		/* read_file named the file; say which setting wanted it. */
		copy_str(c->err->field, sizeof(c->err->field), field);
		return false;
	}
	bool ok = parse_trace(c->err, path, field, text, t);
	free(text);
	return ok;
}
#endif

static bool parse_scenes(struct parse_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t)
{
	static const char *const known[] = {"at_s", "cpu_ms", "gpu_ms", NULL};
	config_setting_t *list;

	if (!list_field(c, tg, "scenes", false, 0, MAX_SCENES, &list))
		return false;
	if (!list || config_setting_length(list) == 0)
		return true;
	size_t n = (size_t)config_setting_length(list);
	t->scenes = calloc(n, sizeof(*t->scenes));
	if (!t->scenes)
		return fail(c, list, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		struct sim_scene *sn = &t->scenes[i];
		t->n_scenes = i + 1;
		if (!check_known(c, e, known) ||
		    !num_field(c, e, "at_s", &sn->at_s, 0, MAX_DURATION_S,
		               NUM_REQUIRED) ||
		    !num_field(c, e, "cpu_ms", &sn->cpu_ms, 0, 10000, 0) ||
		    !num_field(c, e, "gpu_ms", &sn->gpu_ms, 0, 10000, 0))
			return false;
		if (i > 0 && sn->at_s <= t->scenes[i - 1].at_s)
			return fail(c, config_setting_get_member(e, "at_s"),
			            NULL,
			            "%g must be after the previous scene's %g",
			            sn->at_s, t->scenes[i - 1].at_s);
	}
	return true;
}

static bool parse_tenant(struct parse_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t,
                         const struct sim_scenario *sc)
{
	static const char *const known[] = {"name",
	                                    "sla_fps",
	                                    "cpu_ms",
	                                    "gpu_ms",
	                                    "jitter",
	                                    "fixed_fps",
	                                    "start_s",
	                                    "stop_s",
	                                    "max_in_flight",
	                                    "pacer",
	                                    "sleep_granularity_ms",
	                                    "trace",
	                                    "scenes",
	                                    NULL};
	static const char *const pacers[] = {"grid", "relative", NULL};
	config_setting_t *name_s, *trace_s;
	const char *trace;

	t->max_in_flight = 2;
	t->pacer = SIM_PACER_GRID;
	if (!check_known(c, tg, known) ||
	    !str_copy_field(c, tg, "name", true, t->name, sizeof(t->name)))
		return false;
	name_s = config_setting_get_member(tg, "name");
	if (!t->name[0])
		return fail(c, name_s, NULL, "must not be empty");
	if (!str_field(c, tg, "trace", false, &trace, &trace_s))
		return false;
	/* A trace gives the costs frame by frame; parametric costs or scenes
	 * next to it would be ignored, which is worth an error. */
	if (trace) {
		static const char *const parametric[] = {
		    "cpu_ms", "gpu_ms", "jitter", "scenes", NULL};
		for (int i = 0; parametric[i]; i++) {
			config_setting_t *p =
			    config_setting_get_member(tg, parametric[i]);
			if (p)
				return fail(c, p, NULL,
				            "cannot be combined with trace");
		}
		if (!trace[0])
			return fail(c, trace_s, NULL, "must not be empty");
	}
	long long mif = t->max_in_flight;
	int pacer = (int)t->pacer;
	unsigned cost_flags = trace ? 0 : NUM_REQUIRED;
	if (!num_field(c, tg, "sla_fps", &t->sla_fps, 0, 10000,
	               NUM_REQUIRED | NUM_LO_OPEN) ||
	    !num_field(c, tg, "cpu_ms", &t->cpu_ms, 0, 10000, cost_flags) ||
	    !num_field(c, tg, "gpu_ms", &t->gpu_ms, 0, 10000, cost_flags) ||
	    !num_field(c, tg, "jitter", &t->jitter, 0, 2, 0) ||
	    !num_field(c, tg, "fixed_fps", &t->fixed_fps, 0, 10000, 0) ||
	    !num_field(c, tg, "start_s", &t->start_s, 0, sc->duration_s,
	               NUM_HI_OPEN) ||
	    !num_field(c, tg, "stop_s", &t->stop_s, 0, MAX_DURATION_S, 0) ||
	    !int_field(c, tg, "max_in_flight", &mif, 0, MAX_IN_FLIGHT) ||
	    !enum_field(c, tg, "pacer", pacers, &pacer) ||
	    !num_field(c, tg, "sleep_granularity_ms", &t->sleep_granularity_ms,
	               0, 1000, 0))
		return false;
	t->max_in_flight = (int)mif;
	t->pacer = (enum sim_pacer_kind)pacer;
	if (t->stop_s > 0 && t->stop_s <= t->start_s)
		return fail(c, config_setting_get_member(tg, "stop_s"), NULL,
		            "%g must be after start_s (%g), or 0 for the end",
		            t->stop_s, t->start_s);
	/* A frame that costs nothing would repeat forever at one instant of
	 * virtual time. */
	if (!trace && !(t->cpu_ms + t->gpu_ms > 0))
		return fail(c, config_setting_get_member(tg, "gpu_ms"), NULL,
		            "cpu_ms + gpu_ms must be > 0");
	if (!parse_scenes(c, tg, t))
		return false;
	if (trace && !read_trace(c, trace_s, trace, t))
		return false;
	return true;
}

static bool parse_tenants(struct parse_ctx *c, const config_setting_t *root,
                          struct sim_scenario *sc)
{
	config_setting_t *list;

	if (!list_field(c, root, "tenants", true, 1, MAX_TENANTS, &list))
		return false;
	size_t n = (size_t)config_setting_length(list);
	sc->tenants = calloc(n, sizeof(*sc->tenants));
	if (!sc->tenants)
		return fail(c, list, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		/* Counted before parsing so that finish frees a half-parsed
		 * tenant's scenes and trace. */
		sc->n_tenants = i + 1;
		if (!parse_tenant(c, e, &sc->tenants[i], sc))
			return false;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(sc->tenants[j].name, sc->tenants[i].name))
				continue;
			return fail(c, config_setting_get_member(e, "name"),
			            NULL, "duplicate tenant name \"%s\"",
			            sc->tenants[i].name);
		}
	}
	return true;
}

static bool parse_sweep(struct parse_ctx *c, const config_setting_t *root,
                        struct sim_scenario *sc)
{
	static const char *const known[] = {"kp", "ki", NULL};
	config_setting_t *list;

	if (!list_field(c, root, "sweep", false, 0, MAX_SWEEP, &list))
		return false;
	if (!list || config_setting_length(list) == 0)
		return true;
	size_t n = (size_t)config_setting_length(list);
	sc->sweep = calloc(n, sizeof(*sc->sweep));
	if (!sc->sweep)
		return fail(c, list, NULL, "out of memory");
	sc->n_sweep = n;
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		if (!check_known(c, e, known) ||
		    !num_field(c, e, "kp", &sc->sweep[i].kp, 0, 100,
		               NUM_REQUIRED) ||
		    !num_field(c, e, "ki", &sc->sweep[i].ki, 0, 100,
		               NUM_REQUIRED))
			return false;
	}
	return true;
}

static bool parse_root(struct parse_ctx *c, const config_setting_t *root,
                       struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "name", "description", "duration_s", "warmup_s", "seed",
	    "gpu",  "policy",      "tenants",    "sweep",    NULL};
	long long seed = 1;

	sc->duration_s = 60.0;
	sc->warmup_s = 5.0;
	if (!check_known(c, root, known) ||
	    !str_copy_field(c, root, "name", true, sc->name,
	                    sizeof(sc->name)) ||
	    !str_copy_field(c, root, "description", false, sc->description,
	                    sizeof(sc->description)) ||
	    !num_field(c, root, "duration_s", &sc->duration_s, 0,
	               MAX_DURATION_S, NUM_LO_OPEN) ||
	    !num_field(c, root, "warmup_s", &sc->warmup_s, 0, MAX_DURATION_S,
	               0) ||
	    !int_field(c, root, "seed", &seed, 0, LLONG_MAX))
		return false;
	if (!sc->name[0])
		return fail(c, config_setting_get_member(root, "name"), NULL,
		            "must not be empty");
	if (sc->warmup_s >= sc->duration_s) {
		config_setting_t *w =
		    config_setting_get_member(root, "warmup_s");
		return fail(
		    c, w ? w : config_setting_get_member(root, "duration_s"),
		    NULL,
		    "warm-up (%g s) must be shorter than the duration "
		    "(%g s)",
		    sc->warmup_s, sc->duration_s);
	}
	sc->seed = (uint64_t)seed;
	return parse_gpu(c, root, sc) && parse_policy(c, root, sc) &&
	       parse_tenants(c, root, sc) && parse_sweep(c, root, sc);
}

/* libconfig would open the named file relative to the working directory.
 * Scenarios must be self-contained, and a parser fed untrusted text (the
 * fuzzer, a scenario from someone else) must not read arbitrary files. The
 * scanner only honours @include after blanks at the start of a line; any
 * such line is refused, even inside a string or a comment, to stay on the
 * safe side. Returns the 1-based line, or 0 if there is none. */
static int find_include(const char *text)
{
	int line = 1;
	const char *p = text;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "@include", 8) == 0)
			return line;
		p = strchr(p, '\n');
		if (!p)
			return 0;
		p++;
		line++;
	}
}

bool sim_scenario_parse(const char *text, const char *origin,
                        const char *base_dir, struct sim_scenario *out,
                        struct sim_error *err)
{
	struct parse_ctx c = {.origin = origin ? origin : "<string>",
	                      .base_dir = base_dir,
	                      .err = err};
	config_t cfg;
	bool ok;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	int inc = find_include(text);
	if (inc)
		return fail_plain(err, c.origin, inc, "",
		                  "@include is not allowed: a scenario must be "
		                  "self-contained");
	config_init(&cfg);
	if (!config_read_string(&cfg, text)) {
		ok = fail_plain(err, c.origin, config_error_line(&cfg), "",
		                "%s", config_error_text(&cfg));
	} else {
		ok = parse_root(&c, config_root_setting(&cfg), out);
	}
	config_destroy(&cfg);
	if (!ok) {
		sim_scenario_finish(out);
		return false;
	}
	return true;
}

/* The whole of a regular file (a FIFO or a device could block or never
 * end) of at most max bytes, NUL-terminated; NULL with err set. */
static char *read_file(const char *path, size_t max, struct sim_error *err)
{
	struct stat st;

	FILE *f = fopen(path, "r");
	if (!f) {
		fail_plain(err, path, 0, "", "cannot open: %s",
		           strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		fail_plain(err, path, 0, "", "not a regular file");
		return NULL;
	}
	if ((uintmax_t)st.st_size > max) {
		fclose(f);
		fail_plain(err, path, 0, "", "larger than %zu bytes", max);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	char *buf = malloc(size + 1);
	if (!buf) {
		fclose(f);
		fail_plain(err, path, 0, "", "out of memory");
		return NULL;
	}
	size_t got = fread(buf, 1, size, f);
	if (ferror(f)) {
		fail_plain(err, path, 0, "", "cannot read: %s",
		           strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[got] = '\0';
	/* The parsers stop at a NUL; what follows would be silently lost. */
	if (strlen(buf) != got) {
		fail_plain(err, path, 0, "", "contains a NUL byte");
		free(buf);
		return NULL;
	}
	return buf;
}

bool sim_scenario_load_file(const char *path, struct sim_scenario *out,
                            struct sim_error *err)
{
	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	char *text = read_file(path, MAX_FILE_BYTES, err);
	if (!text)
		return false;
	char *dir = strdup(path);
	if (!dir) {
		free(text);
		return fail_plain(err, path, 0, "", "out of memory");
	}
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
	bool ok = sim_scenario_parse(text, path, dir[0] ? dir : NULL, out, err);
	free(dir);
	free(text);
	return ok;
}

bool sim_scenario_load(const char *name_or_path, struct sim_scenario *out,
                       struct sim_error *err)
{
	const struct sim_builtin *b = sim_builtin_find(name_or_path);

	if (b) {
		char origin[sizeof(err->file)];
		snprintf(origin, sizeof(origin), "<builtin %s>", b->name);
		return sim_scenario_parse(b->text, origin, NULL, out, err);
	}
	/* A bare word that is neither a built-in nor a file is most likely a
	 * mistyped built-in name. */
	struct stat st;
	bool missing = !strchr(name_or_path, '/') &&
	               stat(name_or_path, &st) != 0 && errno == ENOENT;
	if (sim_scenario_load_file(name_or_path, out, err))
		return true;
	if (missing) {
		size_t used = strlen(err->msg);
		snprintf(err->msg + used, sizeof(err->msg) - used,
		         " (and no built-in scenario has that name)");
	}
	return false;
}

void sim_scenario_finish(struct sim_scenario *sc)
{
	for (size_t i = 0; i < sc->n_tenants; i++) {
		free(sc->tenants[i].scenes);
		free(sc->tenants[i].trace_cpu_ms);
		free(sc->tenants[i].trace_gpu_ms);
	}
	free(sc->tenants);
	free(sc->sweep);
	memset(sc, 0, sizeof(*sc));
}
