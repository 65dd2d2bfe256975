/* Scenario files: libconfig text checked field by field against a fixed
 * schema. Every error names the origin, the line and the field path, because
 * scenario files are written by hand and a typo must not silently become a
 * default.
 *
 * This file holds the entry point (sim_scenario_parse), the top level of the
 * schema (name, duration, seed, the sweep list) and sim_scenario_finish. The
 * sections are read in scenario_gpu.c, scenario_policy.c and
 * scenario_tenants.c (traces in scenario_trace.c), files and built-ins found
 * in scenario_load.c; the limits are in scenario_parse.h. */
#include "sim/scenario/scenario.h"

#include <libconfig.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/scenario_be.h"
#include "sim/scenario/scenario_parse.h"
#include "sim/scenario/scenario_combo.h"
#include "sim/scenario/scenario_fleet.h"
#include "sim/scenario/scenario_quality.h"

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

/* The combo and fleet groups each replace the tenants' model. */
static bool only_one_model(struct sim_cfg_ctx *c, const config_setting_t *root,
                           const struct sim_scenario *sc)
{
	if (sc->combo.on && sc->fleet.on)
		return sim_cfg_fail(c, config_setting_get_member(root, "fleet"),
		                    NULL,
		                    "a scenario has a combo group or a fleet "
		                    "group, not both");
	return true;
}

static bool parse_root(struct sim_cfg_ctx *c, const config_setting_t *root,
                       struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "name",    "description", "duration_s", "warmup_s", "seed",
	    "gpu",     "policy",      "tenants",    "sweep",    "harvest",
	    "quality", "combo",       "fleet",      NULL};
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
	return sim_scenario_parse_gpu(c, root, sc) &&
	       sim_scenario_parse_policy(c, root, sc) &&
	       sim_be_parse_harvest(c, root, sc) &&
	       sim_scenario_parse_combo(c, root, sc) &&
	       sim_scenario_parse_fleet(c, root, sc) &&
	       only_one_model(c, root, sc) &&
	       sim_scenario_parse_tenants(c, root, sc) &&
	       sim_scenario_parse_quality(c, root, sc) &&
	       parse_sweep(c, root, sc);
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

void sim_scenario_finish(struct sim_scenario *sc)
{
	for (size_t i = 0; i < sc->n_tenants; i++) {
		free(sc->tenants[i].scenes);
		free(sc->tenants[i].trace_cpu_ms);
		free(sc->tenants[i].trace_gpu_ms);
		sim_quality_spec_free(sc->tenants[i].quality);
	}
	free(sc->tenants);
	free(sc->sweep);
	memset(sc, 0, sizeof(*sc));
}
