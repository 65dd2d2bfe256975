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
#include "sim/scenario_be.h"
#include "sim/scenario_fields.h"

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

static bool parse_gpu(struct sim_cfg_ctx *c, const config_setting_t *root,
                      struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "model", "quantum_ms", "switch_us", "slot_ms", "period_ms", NULL};
	static const char *const models[] = {"timeslice", "fcfs", "budget",
	                                     NULL};
	config_setting_t *g;

	sc->gpu.model = SIM_GPU_TIMESLICE;
	sc->gpu.quantum_ms = 1.0;
	sc->gpu.switch_us = 50.0;
	sc->gpu.slot_ms = 100.0;    /* gOver Sec. 3.4 */
	sc->gpu.period_ms = 1000.0; /* gOver Sec. 3.2 */
	if (!sim_cfg_group(c, root, "gpu", &g))
		return false;
	if (!g)
		return true;
	int model = (int)sc->gpu.model;
	if (!sim_cfg_check_known(c, g, known) ||
	    !sim_cfg_enum(c, g, "model", models, &model) ||
	    !sim_cfg_num(c, g, "quantum_ms", &sc->gpu.quantum_ms, 0, 1000,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "switch_us", &sc->gpu.switch_us, 0, 1e6, 0) ||
	    !sim_cfg_num(c, g, "slot_ms", &sc->gpu.slot_ms, 0, 60000,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "period_ms", &sc->gpu.period_ms, 0, 600000,
	                 NUM_LO_OPEN))
		return false;
	if (sc->gpu.period_ms < sc->gpu.slot_ms)
		return sim_cfg_fail(c, g, "period_ms",
		                    "%g must be at least slot_ms (%g)",
		                    sc->gpu.period_ms, sc->gpu.slot_ms);
	sc->gpu.model = (enum sim_gpu_model)model;
	return true;
}

static bool parse_policy(struct sim_cfg_ctx *c, const config_setting_t *root,
                         struct sim_scenario *sc)
{
	static const char *const known[] = {"name",
	                                    "kp",
	                                    "ki",
	                                    "max_ratio",
	                                    "epoch_ms",
	                                    "sla_margin",
	                                    "util_target",
	                                    "fsa_guard",
	                                    "fsa_relax",
	                                    "fsa_hold_s",
	                                    "k_alpha",
	                                    "reach_tol",
	                                    "reach_hold_s",
	                                    "esa_climb",
	                                    "caps",
	                                    "u_over",
	                                    "u_limit",
	                                    "w_u",
	                                    "w_e",
	                                    "steal",
	                                    "run",
	                                    "quiet",
	                                    "sla_tol",
	                                    "cap_total",
	                                    NULL};
	static const char *const cap_modes[] = {"static", "dynamic", NULL};
	struct core_params *p = &sc->params;
	config_setting_t *g, *s;
	const char *name;

	*p = core_params_default();
	sim_cfg_copy_str(sc->policy, sizeof(sc->policy), "sa");
	if (!sim_cfg_group(c, root, "policy", &g))
		return false;
	if (!g)
		return true;
	if (!sim_cfg_check_known(c, g, known) ||
	    !sim_cfg_str(c, g, "name", false, &name, &s))
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
			return sim_cfg_fail(
			    c, s, NULL,
			    "unknown policy \"%s\" (expected one of %s)", name,
			    choices);
		}
		sim_cfg_copy_str(sc->policy, sizeof(sc->policy), name);
	}
	double epoch_ms = p->epoch_s * 1000.0;
	if (!sim_cfg_num(c, g, "kp", &p->pi.kp, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "ki", &p->pi.ki, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "max_ratio", &p->pi.max_ratio, 1, 1000,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "epoch_ms", &epoch_ms, 0, 60000, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "sla_margin", &p->sla_margin, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "util_target", &p->util_target, 0, 1,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "fsa_guard", &p->fsa_guard, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "fsa_relax", &p->fsa_relax, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "fsa_hold_s", &p->fsa_hold_s, 0, 60, 0) ||
	    !sim_cfg_num(c, g, "k_alpha", &p->k_alpha, 0, 1, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "reach_tol", &p->reach_tol, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "reach_hold_s", &p->reach_hold_s, 0, 60, 0) ||
	    !sim_cfg_num(c, g, "esa_climb", &p->esa_climb, 0, 1, 0))
		return false;
	int caps = (int)sc->caps;
	long long run = p->cap_run, quiet = p->cap_quiet;
	if (!sim_cfg_enum(c, g, "caps", cap_modes, &caps) ||
	    !sim_cfg_num(c, g, "u_over", &p->cap_u_over, 0, 10, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "u_limit", &p->cap_u_limit, 0, 10,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "w_u", &p->cap_w_u, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "w_e", &p->cap_w_e, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "steal", &p->cap_steal, 0, 1, NUM_LO_OPEN) ||
	    !sim_cfg_int(c, g, "run", &run, 1, 1000) ||
	    !sim_cfg_int(c, g, "quiet", &quiet, 1, 1000) ||
	    !sim_cfg_num(c, g, "sla_tol", &p->cap_sla_tol, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "qos_margin", &p->cap_qos_margin, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "cap_total", &p->cap_total, 0, 64, NUM_LO_OPEN))
		return false;
	sc->caps = (enum sim_caps_mode)caps;
	p->cap_run = (uint32_t)run;
	p->cap_quiet = (uint32_t)quiet;
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
			return sim_cfg_fail_plain(
			    err, file, lineno, field,
			    "expected \"cpu_ms,gpu_ms\" with two "
			    "non-negative numbers");
		if (r == 0 && t->n_trace == MAX_TRACE_FRAMES)
			return sim_cfg_fail_plain(err, file, lineno, field,
			                          "more than %u frames",
			                          MAX_TRACE_FRAMES);
		if (r == 0 && !trace_push(t, &alloc, cpu, gpu))
			return sim_cfg_fail_plain(err, file, lineno, field,
			                          "out of memory");
		line = nl ? nl + 1 : NULL;
	}
	if (t->n_trace == 0)
		return sim_cfg_fail_plain(err, file, 0, field,
		                          "trace has no frames");
	for (size_t i = 0; i < t->n_trace; i++) {
		if (t->trace_cpu_ms[i] + t->trace_gpu_ms[i] > 0)
			return true;
	}
	/* Replayed in a loop, such a trace would never advance the clock. */
	return sim_cfg_fail_plain(err, file, 0, field,
	                          "every frame costs 0 ms");
}

static char *read_file(const char *path, size_t max, struct sim_error *err);

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/* The fuzzer feeds arbitrary text, and a path in it must not make it read
 * (or block on) whatever file the path names. The string itself stands in
 * for the trace's contents instead, so the CSV reader is fuzzed as well. */
static bool read_trace(struct sim_cfg_ctx *c, const config_setting_t *s,
                       const char *rel, struct sim_tenant_spec *t)
{
	char field[sizeof(c->err->field)];

	sim_cfg_setting_path(s, field, sizeof(field));
	char *text = strdup(rel);
	if (!text)
		return sim_cfg_fail(c, s, NULL, "out of memory");
	bool ok = parse_trace(c->err, "<trace>", field, text, t);
	free(text);
	return ok;
}
#else
static bool read_trace(struct sim_cfg_ctx *c, const config_setting_t *s,
                       const char *rel, struct sim_tenant_spec *t)
{
	char path[4096], field[sizeof(c->err->field)];

	sim_cfg_setting_path(s, field, sizeof(field));
	if (rel[0] == '/' || !c->base_dir || !c->base_dir[0])
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", c->base_dir, rel);
	char *text = read_file(path, MAX_TRACE_BYTES, c->err);
	if (!text) {
		/* read_file named the file; say which setting wanted it. */
		sim_cfg_copy_str(c->err->field, sizeof(c->err->field), field);
		return false;
	}
	bool ok = parse_trace(c->err, path, field, text, t);
	free(text);
	return ok;
}
#endif

static bool parse_scenes(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t)
{
	static const char *const known[] = {"at_s", "cpu_ms", "gpu_ms", NULL};
	config_setting_t *list;

	if (!sim_cfg_list(c, tg, "scenes", false, 0, MAX_SCENES, &list))
		return false;
	if (!list || config_setting_length(list) == 0)
		return true;
	size_t n = (size_t)config_setting_length(list);
	t->scenes = calloc(n, sizeof(*t->scenes));
	if (!t->scenes)
		return sim_cfg_fail(c, list, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		struct sim_scene *sn = &t->scenes[i];
		t->n_scenes = i + 1;
		if (!sim_cfg_check_known(c, e, known) ||
		    !sim_cfg_num(c, e, "at_s", &sn->at_s, 0, MAX_DURATION_S,
		                 NUM_REQUIRED) ||
		    !sim_cfg_num(c, e, "cpu_ms", &sn->cpu_ms, 0, 10000, 0) ||
		    !sim_cfg_num(c, e, "gpu_ms", &sn->gpu_ms, 0, 10000, 0))
			return false;
		if (i > 0 && sn->at_s <= t->scenes[i - 1].at_s)
			return sim_cfg_fail(
			    c, config_setting_get_member(e, "at_s"), NULL,
			    "%g must be after the previous scene's %g",
			    sn->at_s, t->scenes[i - 1].at_s);
	}
	return true;
}

static bool parse_tenant(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t,
                         const struct sim_scenario *sc)
{
	static const char *const known[] = {"name",
	                                    "sla_fps",
	                                    "cpu_ms",
	                                    "gpu_ms",
	                                    "jitter",
	                                    "cpu_stretch",
	                                    "fixed_fps",
	                                    "start_s",
	                                    "stop_s",
	                                    "max_in_flight",
	                                    "pacer",
	                                    "sleep_granularity_ms",
	                                    "trace",
	                                    "scenes",
	                                    "owner",
	                                    "cap",
	                                    "admit",
	                                    "profile_ms",
	                                    "work_conserving",
	                                    NULL};
	static const char *const pacers[] = {"grid", "relative", NULL};
	config_setting_t *name_s, *trace_s;
	const char *trace;

	if (sim_be_is_tenant(tg)) /* a best-effort tenant: scenario_be.c */
		return sim_be_parse_tenant(c, tg, t, sc);
	t->max_in_flight = 2;
	t->pacer = SIM_PACER_GRID;
	if (!sim_cfg_check_known(c, tg, known) ||
	    !sim_cfg_str_copy(c, tg, "name", true, t->name, sizeof(t->name)))
		return false;
	name_s = config_setting_get_member(tg, "name");
	if (!t->name[0])
		return sim_cfg_fail(c, name_s, NULL, "must not be empty");
	if (!sim_cfg_str(c, tg, "trace", false, &trace, &trace_s))
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
				return sim_cfg_fail(
				    c, p, NULL,
				    "cannot be combined with trace");
		}
		if (!trace[0])
			return sim_cfg_fail(c, trace_s, NULL,
			                    "must not be empty");
	}
	long long mif = t->max_in_flight, owner = 0;
	int pacer = (int)t->pacer;
	unsigned cost_flags = trace ? 0 : NUM_REQUIRED;
	if (!sim_cfg_num(c, tg, "sla_fps", &t->sla_fps, 0, 10000,
	                 NUM_REQUIRED | NUM_LO_OPEN) ||
	    !sim_cfg_num(c, tg, "cpu_ms", &t->cpu_ms, 0, 10000, cost_flags) ||
	    !sim_cfg_num(c, tg, "gpu_ms", &t->gpu_ms, 0, 10000, cost_flags) ||
	    !sim_cfg_num(c, tg, "jitter", &t->jitter, 0, 2, 0) ||
	    !sim_cfg_num(c, tg, "cpu_stretch", &t->cpu_stretch, 0, 100, 0) ||
	    !sim_cfg_num(c, tg, "fixed_fps", &t->fixed_fps, 0, 10000, 0) ||
	    !sim_cfg_num(c, tg, "start_s", &t->start_s, 0, sc->duration_s,
	                 NUM_HI_OPEN) ||
	    !sim_cfg_num(c, tg, "stop_s", &t->stop_s, 0, MAX_DURATION_S, 0) ||
	    !sim_cfg_int(c, tg, "max_in_flight", &mif, 0, MAX_IN_FLIGHT) ||
	    !sim_cfg_int(c, tg, "owner", &owner, 0, 4294967295LL) ||
	    !sim_cfg_enum(c, tg, "pacer", pacers, &pacer) ||
	    !sim_cfg_num(c, tg, "sleep_granularity_ms",
	                 &t->sleep_granularity_ms, 0, 1000, 0) ||
	    !sim_cfg_num(c, tg, "cap", &t->cap, 0, 1, NUM_LO_OPEN) ||
	    !sim_cfg_bool(c, tg, "admit", &t->admit) ||
	    !sim_cfg_bool(c, tg, "work_conserving", &t->work_conserving) ||
	    !sim_cfg_num(c, tg, "profile_ms", &t->profile_ms, 0, 10000,
	                 NUM_LO_OPEN))
		return false;
	/* A cap only the budget model enforces would silently do nothing. */
	if (t->cap > 0.0 && sc->gpu.model != SIM_GPU_BUDGET)
		return sim_cfg_fail(c, config_setting_get_member(tg, "cap"),
		                    NULL,
		                    "needs gpu.model = \"budget\" (the only "
		                    "model that enforces caps)");
	if (t->work_conserving && !(t->cap > 0.0))
		return sim_cfg_fail(
		    c, config_setting_get_member(tg, "work_conserving"), NULL,
		    "needs a cap");
	if (t->admit && !(t->profile_ms > 0.0) && !(t->gpu_ms > 0.0))
		return sim_cfg_fail(c, config_setting_get_member(tg, "admit"),
		                    NULL,
		                    "needs profile_ms or gpu_ms: admission "
		                    "asks whether its expected load fits");
	t->max_in_flight = (int)mif;
	t->owner = (uint64_t)owner;
	t->pacer = (enum sim_pacer_kind)pacer;
	if (t->stop_s > 0 && t->stop_s <= t->start_s)
		return sim_cfg_fail(
		    c, config_setting_get_member(tg, "stop_s"), NULL,
		    "%g must be after start_s (%g), or 0 for the end",
		    t->stop_s, t->start_s);
	/* A frame that costs nothing would repeat forever at one instant of
	 * virtual time. */
	if (!trace && !(t->cpu_ms + t->gpu_ms > 0))
		return sim_cfg_fail(c, config_setting_get_member(tg, "gpu_ms"),
		                    NULL, "cpu_ms + gpu_ms must be > 0");
	if (!parse_scenes(c, tg, t))
		return false;
	if (trace && !read_trace(c, trace_s, trace, t))
		return false;
	return true;
}

static bool parse_tenants(struct sim_cfg_ctx *c, const config_setting_t *root,
                          struct sim_scenario *sc)
{
	config_setting_t *list;

	if (!sim_cfg_list(c, root, "tenants", true, 1, MAX_TENANTS, &list))
		return false;
	size_t n = (size_t)config_setting_length(list);
	sc->tenants = calloc(n, sizeof(*sc->tenants));
	if (!sc->tenants)
		return sim_cfg_fail(c, list, NULL, "out of memory");
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
			return sim_cfg_fail(
			    c, config_setting_get_member(e, "name"), NULL,
			    "duplicate tenant name \"%s\"",
			    sc->tenants[i].name);
		}
	}
	return true;
}

static bool parse_sweep(struct sim_cfg_ctx *c, const config_setting_t *root,
                        struct sim_scenario *sc)
{
	static const char *const known[] = {"kp", "ki", NULL};
	config_setting_t *list;

	if (!sim_cfg_list(c, root, "sweep", false, 0, MAX_SWEEP, &list))
		return false;
	if (!list || config_setting_length(list) == 0)
		return true;
	size_t n = (size_t)config_setting_length(list);
	sc->sweep = calloc(n, sizeof(*sc->sweep));
	if (!sc->sweep)
		return sim_cfg_fail(c, list, NULL, "out of memory");
	sc->n_sweep = n;
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		if (!sim_cfg_check_known(c, e, known) ||
		    !sim_cfg_num(c, e, "kp", &sc->sweep[i].kp, 0, 100,
		                 NUM_REQUIRED) ||
		    !sim_cfg_num(c, e, "ki", &sc->sweep[i].ki, 0, 100,
		                 NUM_REQUIRED))
			return false;
	}
	return true;
}

static bool parse_root(struct sim_cfg_ctx *c, const config_setting_t *root,
                       struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "name",   "description", "duration_s", "warmup_s", "seed", "gpu",
	    "policy", "tenants",     "sweep",      "harvest",  NULL};
	long long seed = 1;

	sc->duration_s = 60.0;
	sc->warmup_s = 5.0;
	if (!sim_cfg_check_known(c, root, known) ||
	    !sim_cfg_str_copy(c, root, "name", true, sc->name,
	                      sizeof(sc->name)) ||
	    !sim_cfg_str_copy(c, root, "description", false, sc->description,
	                      sizeof(sc->description)) ||
	    !sim_cfg_num(c, root, "duration_s", &sc->duration_s, 0,
	                 MAX_DURATION_S, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, root, "warmup_s", &sc->warmup_s, 0, MAX_DURATION_S,
	                 0) ||
	    !sim_cfg_int(c, root, "seed", &seed, 0, LLONG_MAX))
		return false;
	if (!sc->name[0])
		return sim_cfg_fail(c, config_setting_get_member(root, "name"),
		                    NULL, "must not be empty");
	if (sc->warmup_s >= sc->duration_s) {
		config_setting_t *w =
		    config_setting_get_member(root, "warmup_s");
		return sim_cfg_fail(
		    c, w ? w : config_setting_get_member(root, "duration_s"),
		    NULL,
		    "warm-up (%g s) must be shorter than the duration "
		    "(%g s)",
		    sc->warmup_s, sc->duration_s);
	}
	sc->seed = (uint64_t)seed;
	return parse_gpu(c, root, sc) && parse_policy(c, root, sc) &&
	       sim_be_parse_harvest(c, root, sc) &&
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
	struct sim_cfg_ctx c = {.origin = origin ? origin : "<string>",
	                        .base_dir = base_dir,
	                        .err = err};
	config_t cfg;
	bool ok;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	int inc = find_include(text);
	if (inc)
		return sim_cfg_fail_plain(
		    err, c.origin, inc, "",
		    "@include is not allowed: a scenario must be "
		    "self-contained");
	config_init(&cfg);
	if (!config_read_string(&cfg, text)) {
		ok = sim_cfg_fail_plain(err, c.origin, config_error_line(&cfg),
		                        "", "%s", config_error_text(&cfg));
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
		sim_cfg_fail_plain(err, path, 0, "", "cannot open: %s",
		                   strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		sim_cfg_fail_plain(err, path, 0, "", "not a regular file");
		return NULL;
	}
	if ((uintmax_t)st.st_size > max) {
		fclose(f);
		sim_cfg_fail_plain(err, path, 0, "", "larger than %zu bytes",
		                   max);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	char *buf = malloc(size + 1);
	if (!buf) {
		fclose(f);
		sim_cfg_fail_plain(err, path, 0, "", "out of memory");
		return NULL;
	}
	size_t got = fread(buf, 1, size, f);
	if (ferror(f)) {
		sim_cfg_fail_plain(err, path, 0, "", "cannot read: %s",
		                   strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[got] = '\0';
	/* The parsers stop at a NUL; what follows would be silently lost. */
	if (strlen(buf) != got) {
		sim_cfg_fail_plain(err, path, 0, "", "contains a NUL byte");
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
		return sim_cfg_fail_plain(err, path, 0, "", "out of memory");
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
