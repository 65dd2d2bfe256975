/* The scenario parser: every built-in parses, and every class of error
 * names the right line and field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/scenario/builtin.h"
#include "sim/scenario/scenario.h"
#include "util/log.h"

/* A valid scenario with one tenant, for tests that change one thing. */
#define MINIMAL                                                                \
	"name = \"t\";\n"                                                      \
	"tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "           \
	"gpu_ms = 2.0; } );\n"

static bool is_zeroed(const struct sim_scenario *sc)
{
	static const struct sim_scenario zero;
	return memcmp(sc, &zero, sizeof(zero)) == 0;
}

/* Parses text that must fail; checks the line and field and that the
 * message contains msg_part. */
static void expect_error(const char *text, int line, const char *field,
                         const char *msg_part)
{
	struct sim_scenario sc;
	struct sim_error err;

	bool ok = sim_scenario_parse(text, "test.cfg", NULL, &sc, &err);
	if (ok)
		sim_scenario_finish(&sc);
	assert_false(ok);
	assert_true(is_zeroed(&sc));
	assert_string_equal(err.file, "test.cfg");
	if (line != err.line || strcmp(field, err.field) != 0 ||
	    !strstr(err.msg, msg_part))
		print_error("got line %d field '%s' msg '%s'\n", err.line,
		            err.field, err.msg);
	assert_int_equal(err.line, line);
	assert_string_equal(err.field, field);
	assert_non_null(strstr(err.msg, msg_part));
}

static void parse_ok(const char *text, struct sim_scenario *sc)
{
	struct sim_error err;
	bool ok = sim_scenario_parse(text, "test.cfg", NULL, sc, &err);
	if (!ok) {
		char msg[512];
		sim_error_format(&err, msg, sizeof(msg));
		print_error("%s\n", msg);
	}
	assert_true(ok);
}

static void test_builtins_parse(void **state)
{
	size_t n;
	const struct sim_builtin *all = sim_builtin_all(&n);

	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		struct sim_scenario sc;
		struct sim_error err;
		assert_ptr_equal(sim_builtin_find(all[i].name), &all[i]);
		assert_true(sim_scenario_load(all[i].name, &sc, &err));
		assert_string_equal(sc.name, all[i].name);
		assert_true(sc.description[0] != '\0');
		/* a space-harvesting built-in has its game in combo, a
		 * fleet built-in its games in fleet */
		assert_true(sc.n_tenants >= 1 || sc.combo.on || sc.fleet.on);
		sim_scenario_finish(&sc);
	}
	assert_null(sim_builtin_find("no-such-builtin"));
}

/* Only what the papers fix: the costs in scenarios/ get tuned. */
static void test_vgasa_values(void **state)
{
	static const char *const names[] = {"dirt3", "starcraft2", "farcry2"};
	struct sim_scenario sc;
	struct sim_error err;

	assert_true(sim_scenario_load("vgasa", &sc, &err));
	assert_int_equal(sc.n_tenants, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(sc.tenants[i].name, names[i]);
		assert_true(sc.tenants[i].sla_fps == 30.0);
	}
	assert_int_equal(sc.n_sweep, 0);
	sim_scenario_finish(&sc);

	assert_true(sim_scenario_load("vgasa-gains", &sc, &err));
	assert_int_equal(sc.n_sweep, 6);
	assert_true(sc.sweep[5].kp == 0.1 && sc.sweep[5].ki == 0.05);
	assert_int_equal(sc.tenants[0].max_in_flight, 0);
	assert_int_equal(sc.tenants[0].pacer, SIM_PACER_RELATIVE);
	sim_scenario_finish(&sc);
}

static void test_scenes(void **state)
{
	struct sim_scenario sc;

	parse_ok("name = \"t\";\n"
	         "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 5.0;\n"
	         "  gpu_ms = 6.0; scenes = (\n"
	         "    { at_s = 10; gpu_ms = 7.0; },\n"
	         "    { at_s = 20.5; cpu_ms = 4; } ); } );\n",
	         &sc);
	const struct sim_tenant_spec *t = &sc.tenants[0];
	assert_int_equal(t->n_scenes, 2);
	assert_true(t->scenes[0].at_s == 10.0);
	assert_true(t->scenes[0].cpu_ms == 0.0); /* unchanged */
	assert_true(t->scenes[0].gpu_ms == 7.0);
	assert_true(t->scenes[1].at_s == 20.5);
	assert_true(t->scenes[1].cpu_ms == 4.0);
	assert_true(t->scenes[1].gpu_ms == 0.0);
	sim_scenario_finish(&sc);
}

/* Field by field from the quality ones on: they leave padding, which
 * memcmp would read. Before them the struct is doubles and pairs of
 * uint32_t. */
static void assert_params_equal(const struct core_params *a,
                                const struct core_params *b)
{
	assert_memory_equal(a, b, offsetof(struct core_params, quality_on));
	assert_int_equal(a->quality_on, b->quality_on);
	assert_int_equal(a->quality_paper, b->quality_paper);
	assert_true(a->quality.budget == b->quality.budget);
	assert_int_equal(a->quality.strict, b->quality.strict);
	assert_int_equal(a->quality.exact_reassign, b->quality.exact_reassign);
	assert_int_equal(a->quality.warn_epochs, b->quality.warn_epochs);
	assert_int_equal(a->quality.critical_epochs,
	                 b->quality.critical_epochs);
	assert_true(a->quality.critical_ratio == b->quality.critical_ratio);
}

static void test_defaults(void **state)
{
	struct sim_scenario sc;
	struct core_params def = core_params_default();

	parse_ok(MINIMAL, &sc);
	assert_true(sc.duration_s == 60.0);
	assert_true(sc.warmup_s == 5.0);
	assert_int_equal(sc.seed, 1);
	assert_int_equal(sc.gpu.model, SIM_GPU_TIMESLICE);
	assert_true(sc.gpu.quantum_ms == 1.0);
	assert_true(sc.gpu.switch_us == 50.0);
	assert_string_equal(sc.policy, "sa");
	assert_params_equal(&sc.params, &def);
	assert_int_equal(sc.tenants[0].max_in_flight, 2);
	assert_int_equal(sc.tenants[0].pacer, SIM_PACER_GRID);
	assert_true(sc.tenants[0].jitter == 0.0);
	assert_int_equal(sc.tenants[0].n_trace, 0);
	assert_true(sc.tenants[0].owner == 0);
	sim_scenario_finish(&sc);
	/* who runs it: ESA bounds each owner's share */
	parse_ok("name = \"t\";\n"
	         "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "
	         "gpu_ms = 2.0; owner = 65534; } );\n",
	         &sc);
	assert_true(sc.tenants[0].owner == 65534);
	sim_scenario_finish(&sc);
}

static void test_integers_for_floats(void **state)
{
	struct sim_scenario sc;

	parse_ok("name = \"t\"; duration_s = 30; warmup_s = 0; seed = 7L;\n"
	         "gpu = { model = \"fcfs\"; quantum_ms = 2; switch_us = 0; };\n"
	         "policy = { name = \"esa\"; kp = 1; ki = 0; epoch_ms = 50; "
	         "util_target = 1; max_ratio = 3; };\n"
	         "tenants = ( { name = \"a\"; sla_fps = 60; cpu_ms = 1; "
	         "gpu_ms = 3; jitter = 1; } );\n"
	         "sweep = ( { kp = 1; ki = 0; } );\n",
	         &sc);
	assert_true(sc.duration_s == 30.0);
	assert_true(sc.warmup_s == 0.0);
	assert_int_equal(sc.seed, 7);
	assert_int_equal(sc.gpu.model, SIM_GPU_FCFS);
	assert_true(sc.gpu.quantum_ms == 2.0);
	assert_string_equal(sc.policy, "esa");
	assert_true(sc.params.pi.kp == 1.0);
	assert_true(sc.params.epoch_s == 0.05);
	assert_true(sc.params.util_target == 1.0);
	assert_true(sc.tenants[0].sla_fps == 60.0);
	assert_int_equal(sc.n_sweep, 1);
	sim_scenario_finish(&sc);
}

static void test_syntax_error(void **state)
{
	expect_error("name = \"t\";\n"
	             "duration_s = 30.0;\n"
	             "warmup_s = = 2;\n",
	             3, "", "syntax error");
}

static void test_unknown_field(void **state)
{
	expect_error("name = \"t\";\n"
	             "durration_s = 30.0;\n",
	             2, "durration_s", "unknown field");
	expect_error("name = \"t\";\n"
	             "tenants = (\n"
	             "  { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0;\n"
	             "    gpu_msec = 2.0; }\n"
	             ");\n",
	             4, "tenants.[0].gpu_msec", "unknown field");
	expect_error(MINIMAL "gpu = { model = \"fcfs\";\n quantum = 2.0; };\n",
	             4, "gpu.quantum", "unknown field");
	expect_error(MINIMAL "sweep = ( { kp = 0.1; ki = 0.1; kd = 0.0; } );\n",
	             3, "sweep.[0].kd", "unknown field");
}

static void test_missing_field(void **state)
{
	expect_error(
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "
	    "gpu_ms = 2.0; } );\n",
	    0, "name", "missing required field");
	expect_error(
	    "name = \"t\";\n"
	    "tenants = (\n"
	    "  { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; gpu_ms = 2.0; },\n"
	    "  { name = \"b\"; sla_fps = 30.0;\n"
	    "    cpu_ms = 1.0; }\n"
	    ");\n",
	    4, "tenants.[1].gpu_ms", "missing required field");
	expect_error("name = \"t\";\n", 0, "tenants", "missing required field");
	expect_error(MINIMAL "sweep = ( { kp = 0.1; } );\n", 3, "sweep.[0].ki",
	             "missing required field");
}

static void test_wrong_type(void **state)
{
	expect_error("name = \"t\";\n"
	             "tenants = ( { name = \"a\";\n"
	             "  sla_fps = \"30\"; cpu_ms = 1.0; gpu_ms = 2.0; } );\n",
	             3, "tenants.[0].sla_fps", "expected a number");
	expect_error(MINIMAL "seed = 1.5;\n", 3, "seed", "expected an integer");
	expect_error(MINIMAL "gpu = 3;\n", 3, "gpu", "expected a group");
	expect_error("name = 5;\n", 1, "name", "expected a string");
	expect_error("name = \"t\";\ntenants = { name = \"a\"; };\n", 2,
	             "tenants", "expected a list");
	expect_error("name = \"t\";\ntenants = ( 1, 2 );\n", 2, "tenants.[0]",
	             "expected a group");
	expect_error(MINIMAL "policy = { name = \"fast\"; };\n", 3,
	             "policy.name", "unknown policy");
	expect_error(MINIMAL "gpu = { model = \"mps\"; };\n", 3, "gpu.model",
	             "unknown value");
}

static void test_out_of_range(void **state)
{
	expect_error(
	    "name = \"t\";\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0;\n"
	    "  gpu_ms = 2.0;\n"
	    "  jitter = 2.5; } );\n",
	    4, "tenants.[0].jitter", "out of range");
	expect_error(MINIMAL "duration_s = 10.0;\nwarmup_s = 10;\n", 4,
	             "warmup_s", "shorter than the duration");
	expect_error(MINIMAL "duration_s = 0;\n", 3, "duration_s",
	             "(0, 86400]");
	expect_error(MINIMAL "policy = { util_target = 0.0; };\n", 3,
	             "policy.util_target", "must be a number in");
	expect_error(MINIMAL "policy = { max_ratio = 1; };\n", 3,
	             "policy.max_ratio", "must be a number in");
	expect_error(MINIMAL "policy = { epoch_ms = 0.0; };\n", 3,
	             "policy.epoch_ms", "out of range");
	expect_error(MINIMAL "policy = { kp = -0.1; };\n", 3, "policy.kp",
	             "must be a number in [0, 100], not -0.1");
	expect_error(MINIMAL "seed = -1;\n", 3, "seed", "out of range");
	expect_error(
	    "name = \"t\";\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0;\n"
	    "  gpu_ms = 2.0; owner = -1; } );\n",
	    3, "tenants.[0].owner", "out of range");
	expect_error(
	    "name = \"t\";\ntenants = ( { name = \"a\"; sla_fps = 0.0; "
	    "cpu_ms = 1.0; gpu_ms = 2.0; } );\n",
	    2, "tenants.[0].sla_fps", "(0, 10000]");
	expect_error(
	    "name = \"t\";\ntenants = ( { name = \"a\"; sla_fps = 30.0; "
	    "cpu_ms = -1.0; gpu_ms = 2.0; } );\n",
	    2, "tenants.[0].cpu_ms", "out of range");
	expect_error(
	    "name = \"t\";\ntenants = ( { name = \"a\"; sla_fps = 30.0; "
	    "cpu_ms = 1.0; gpu_ms = 2.0; max_in_flight = 17; } );\n",
	    2, "tenants.[0].max_in_flight", "out of range");
	expect_error(
	    "name = \"t\";\ntenants = ( { name = \"a\"; sla_fps = 30.0; "
	    "cpu_ms = 1.0; gpu_ms = 2.0; start_s = 10.0;\n"
	    "stop_s = 5.0; } );\n",
	    3, "tenants.[0].stop_s", "after start_s");
	expect_error(
	    "name = \"t\";\ntenants = ( { name = \"a\"; sla_fps = 30.0; "
	    "cpu_ms = 0; gpu_ms = 0; } );\n",
	    2, "tenants.[0].gpu_ms", "must be > 0");
	expect_error("name = \"t\";\ntenants = ( );\n", 2, "tenants",
	             "between 1 and 1024");
	expect_error("name = \"t\";\ntenants = ( { name = "
	             "\"an-awfully-long-name-of-32-chars\"; sla_fps = 30.0; "
	             "cpu_ms = 1.0; gpu_ms = 2.0; } );\n",
	             2, "tenants.[0].name", "too long");
}

static void test_too_many_tenants(void **state)
{
	size_t cap = 1100 * 96 + 64, used = 0;
	char *text = malloc(cap);

	assert_non_null(text);
	used += (size_t)snprintf(text, cap, "name = \"t\";\ntenants = (\n");
	for (int i = 0; i < 1025; i++)
		used += (size_t)snprintf(text + used, cap - used,
		                         "%s{ name = \"t%d\"; sla_fps = 30.0; "
		                         "cpu_ms = 1.0; gpu_ms = 1.0; }\n",
		                         i ? "," : "", i);
	snprintf(text + used, cap - used, ");\n");
	expect_error(text, 2, "tenants", "between 1 and 1024");
	free(text);
}

static void test_duplicate_tenant(void **state)
{
	expect_error(
	    "name = \"t\";\n"
	    "tenants = (\n"
	    "  { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; gpu_ms = 2.0;\n"
	    "    scenes = ( { at_s = 1.0; gpu_ms = 3.0; } ); },\n"
	    "  { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; gpu_ms = 2.0; }\n"
	    ");\n",
	    5, "tenants.[1].name", "duplicate tenant name");
}

/* The capacity keys (docs/scenarios.md, docs/capacity.md). */
static void test_capacity_keys(void **state)
{
	struct sim_scenario sc;

	parse_ok(
	    "name = \"t\";\n"
	    "gpu = { model = \"budget\"; slot_ms = 50; period_ms = 500; };\n"
	    "policy = { caps = \"dynamic\"; cap_u_over = 0.8;\n"
	    "  cap_u_limit = 0.6; cap_w_u = 2; cap_w_e = 0.5; cap_steal = "
	    "0.25;\n"
	    "  cap_run = 4; cap_quiet = 5; cap_sla_tol = 0.05;\n"
	    "  cap_qos_margin = 0.3; cap_total = 2.5; };\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0;\n"
	    "  gpu_ms = 2.0; cap = 0.25; work_conserving = true;\n"
	    "  admit = true; profile_ms = 3.0; } );\n",
	    &sc);
	assert_int_equal(sc.gpu.model, SIM_GPU_BUDGET);
	assert_true(sc.gpu.slot_ms == 50.0 && sc.gpu.period_ms == 500.0);
	assert_int_equal(sc.caps, SIM_CAPS_DYNAMIC);
	assert_true(sc.params.cap_u_over == 0.8);
	assert_true(sc.params.cap_u_limit == 0.6);
	assert_true(sc.params.cap_w_u == 2.0 && sc.params.cap_w_e == 0.5);
	assert_true(sc.params.cap_steal == 0.25);
	assert_int_equal(sc.params.cap_run, 4);
	assert_int_equal(sc.params.cap_quiet, 5);
	assert_true(sc.params.cap_sla_tol == 0.05);
	assert_true(sc.params.cap_qos_margin == 0.3);
	assert_true(sc.params.cap_total == 2.5);
	assert_true(sc.tenants[0].cap == 0.25);
	assert_true(sc.tenants[0].work_conserving);
	assert_true(sc.tenants[0].admit);
	assert_true(sc.tenants[0].profile_ms == 3.0);
	sim_scenario_finish(&sc);

	expect_error(
	    "name = \"t\";\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "
	    "gpu_ms = 2.0; cap = 0.5; } );\n",
	    2, "tenants.[0].cap", "needs gpu.model = \"budget\"");
	expect_error(
	    "name = \"t\";\ngpu = { model = \"budget\"; };\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "
	    "gpu_ms = 2.0; cap = 1.5; } );\n",
	    3, "tenants.[0].cap", "out of range");
	expect_error(
	    "name = \"t\";\ngpu = { model = \"budget\"; };\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "
	    "gpu_ms = 2.0; work_conserving = true; } );\n",
	    3, "tenants.[0].work_conserving", "needs a cap");
	expect_error(
	    "name = \"t\";\ngpu = { model = \"budget\"; };\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "
	    "gpu_ms = 2.0; admit = 1; } );\n",
	    3, "tenants.[0].admit", "expected true or false");
	expect_error(MINIMAL "policy = { caps = \"elastic\"; };\n", 3,
	             "policy.caps", "elastic");
	expect_error(MINIMAL "policy = { cap_u_limit = 0; };\n", 3,
	             "policy.cap_u_limit", "must be a number in");
}

/* Parses text that must parse; what it wrote to stderr (the log's
 * warnings) into out. */
static void parse_capturing_stderr(const char *text, struct sim_scenario *sc,
                                   char *out, size_t len)
{
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	assert_true(saved >= 0 && dup2(fileno(tmp), 2) >= 0);
	parse_ok(text, sc);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

/* The names the parameters had before the table (core/params_table.h)
 * still work, with a warning naming the new key. */
static void test_old_parameter_names_warn(void **state)
{
	struct sim_scenario sc;
	char log[2048];

	log_set_level(LOG_WARN);
	parse_capturing_stderr(
	    MINIMAL "policy = { u_over = 0.8; quiet = 5; };\n"
	            "quality = { mode = \"off\"; critical_epochs = 2; };\n",
	    &sc, log, sizeof(log));
	assert_true(sc.params.cap_u_over == 0.8);
	assert_int_equal(sc.params.cap_quiet, 5);
	assert_int_equal(sc.params.quality.critical_epochs, 2);
	sim_scenario_finish(&sc);
	assert_non_null(strstr(log, "policy.u_over is deprecated: use "
	                            "cap_u_over"));
	assert_non_null(strstr(log, "policy.quiet is deprecated: use "
	                            "cap_quiet"));
	assert_non_null(strstr(log, "quality.critical_epochs is deprecated: "
	                            "use quality_critical_epochs"));

	parse_capturing_stderr(MINIMAL "policy = { cap_u_over = 0.8; "
	                               "quality_critical_epochs = 2; };\n",
	                       &sc, log, sizeof(log));
	assert_int_equal(sc.params.quality.critical_epochs, 2);
	sim_scenario_finish(&sc);
	assert_null(strstr(log, "deprecated"));
}

/* A range error names the key, the value and the range. */
static void test_parameter_range_error(void **state)
{
	expect_error(MINIMAL "policy = { max_ratio = 1001; };\n", 3,
	             "policy.max_ratio",
	             "must be a number in (1, 1000], not 1001");
	expect_error(MINIMAL "policy = { cap_run = 2.5; };\n", 3,
	             "policy.cap_run", "expected an integer");
	expect_error(MINIMAL "harvest = { space_window = 65; };\n", 3,
	             "harvest.space_window",
	             "must be an integer in [1, 64], not 65");
	expect_error(MINIMAL "harvest = { steer = 1; };\n", 3, "harvest.steer",
	             "expected true or false");
}

static void test_scenes_increasing(void **state)
{
	expect_error(
	    "name = \"t\";\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0;\n"
	    "  gpu_ms = 2.0; scenes = (\n"
	    "    { at_s = 20.0; gpu_ms = 3.0; },\n"
	    "    { at_s = 20.0; gpu_ms = 4.0; } ); } );\n",
	    5, "tenants.[0].scenes.[1].at_s", "after the previous");
	expect_error(
	    "name = \"t\";\n"
	    "tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0;\n"
	    "  gpu_ms = 2.0; scenes = (\n"
	    "    { gpu_ms = 3.0; } ); } );\n",
	    4, "tenants.[0].scenes.[0].at_s", "missing required field");
}

static void test_include_rejected(void **state)
{
	expect_error("name = \"t\";\n"
	             "  @include \"/etc/passwd\"\n",
	             2, "", "@include");
}

/* A scratch folder with a trace and a scenario that refers to it by a
 * relative path. */
struct scratch {
	char dir[64];
	char trace[128];
	char cfg[128];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void scratch_make(struct scratch *s, const char *trace, const char *cfg)
{
	snprintf(s->dir, sizeof(s->dir), "/tmp/baton-test-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->trace, sizeof(s->trace), "%s/frames.csv", s->dir);
	snprintf(s->cfg, sizeof(s->cfg), "%s/scenario.cfg", s->dir);
	write_file(s->trace, trace);
	write_file(s->cfg, cfg);
}

static void scratch_remove(struct scratch *s)
{
	unlink(s->trace);
	unlink(s->cfg);
	rmdir(s->dir);
}

#define TRACE_SCENARIO                                                         \
	"name = \"trace\";\n"                                                  \
	"tenants = ( { name = \"a\"; sla_fps = 30.0;\n"                        \
	"  trace = \"frames.csv\"; } );\n"

static void test_trace_read(void **state)
{
	struct scratch s;
	struct sim_scenario sc;
	struct sim_error err;

	scratch_make(&s,
	             "# cpu_ms,gpu_ms\n"
	             "\n"
	             "1.5,2.5\n"
	             "  2 , 3   # a comment\n"
	             "0.5,4e0\r\n",
	             TRACE_SCENARIO);
	bool ok = sim_scenario_load_file(s.cfg, &sc, &err);
	if (!ok)
		print_error("%s:%d: %s: %s\n", err.file, err.line, err.field,
		            err.msg);
	assert_true(ok);
	assert_int_equal(sc.tenants[0].n_trace, 3);
	assert_true(sc.tenants[0].trace_cpu_ms[0] == 1.5);
	assert_true(sc.tenants[0].trace_gpu_ms[0] == 2.5);
	assert_true(sc.tenants[0].trace_cpu_ms[1] == 2.0);
	assert_true(sc.tenants[0].trace_gpu_ms[2] == 4.0);
	sim_scenario_finish(&sc);
	/* The same text parsed with the folder as base_dir. */
	assert_true(sim_scenario_parse(TRACE_SCENARIO, "x", s.dir, &sc, &err));
	assert_int_equal(sc.tenants[0].n_trace, 3);
	sim_scenario_finish(&sc);
	scratch_remove(&s);
}

static void test_trace_bad_line(void **state)
{
	struct scratch s;
	struct sim_scenario sc;
	struct sim_error err;

	scratch_make(&s, "1.0,2.0\n# fine\n1.0;2.0\n", TRACE_SCENARIO);
	assert_false(sim_scenario_load_file(s.cfg, &sc, &err));
	assert_true(is_zeroed(&sc));
	assert_string_equal(err.file, s.trace);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.field, "tenants.[0].trace");
	scratch_remove(&s);

	scratch_make(&s, "1.0,-2.0\n", TRACE_SCENARIO);
	assert_false(sim_scenario_load_file(s.cfg, &sc, &err));
	assert_int_equal(err.line, 1);
	scratch_remove(&s);

	scratch_make(&s, "0,0\n0.0,0\n", TRACE_SCENARIO);
	assert_false(sim_scenario_load_file(s.cfg, &sc, &err));
	assert_non_null(strstr(err.msg, "costs 0 ms"));
	scratch_remove(&s);

	scratch_make(&s, "# nothing\n\n", TRACE_SCENARIO);
	assert_false(sim_scenario_load_file(s.cfg, &sc, &err));
	assert_non_null(strstr(err.msg, "no frames"));
	scratch_remove(&s);

	/* A missing trace names the path it looked for. */
	scratch_make(
	    &s, "1,2\n",
	    "name = \"t\";\ntenants = ( { name = \"a\"; sla_fps = 30.0; "
	    "trace = \"missing.csv\"; } );\n");
	assert_false(sim_scenario_load_file(s.cfg, &sc, &err));
	assert_non_null(strstr(err.file, "missing.csv"));
	assert_non_null(strstr(err.msg, "No such file"));
	assert_string_equal(err.field, "tenants.[0].trace");
	scratch_remove(&s);
}

static void test_trace_exclusive(void **state)
{
	expect_error("name = \"t\";\n"
	             "tenants = ( { name = \"a\"; sla_fps = 30.0;\n"
	             "  trace = \"x.csv\"; gpu_ms = 2.0; } );\n",
	             3, "tenants.[0].gpu_ms", "cannot be combined with trace");
}

static void test_load_errors(void **state)
{
	struct sim_scenario sc;
	struct sim_error err;
	char msg[512];

	assert_false(sim_scenario_load("/nonexistent/x.cfg", &sc, &err));
	assert_true(is_zeroed(&sc));
	sim_error_format(&err, msg, sizeof(msg));
	assert_string_equal(msg, "/nonexistent/x.cfg: cannot open: No such "
	                         "file or directory");
	assert_false(sim_scenario_load("vgasaa", &sc, &err));
	assert_non_null(strstr(err.msg, "built-in"));

	struct scratch s;
	scratch_make(&s, "", "name = \"t\";\nbogus = 1;\n");
	assert_false(sim_scenario_load(s.cfg, &sc, &err));
	assert_string_equal(err.file, s.cfg);
	assert_int_equal(err.line, 2);
	scratch_remove(&s);
}

static void test_error_format(void **state)
{
	struct sim_error err = {.file = "a.cfg",
	                        .line = 3,
	                        .field = "tenants.[1].gpu_ms",
	                        .msg = "missing required field"};
	char buf[512];

	sim_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "a.cfg:3: tenants.[1].gpu_ms: missing "
	                         "required field");
	err.line = 0;
	err.field[0] = '\0';
	sim_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "a.cfg: missing required field");
	/* A short buffer is cut, never overrun. */
	sim_error_format(&err, buf, 4);
	assert_string_equal(buf, "a.c");
}

static void test_finish_zeroed(void **state)
{
	struct sim_scenario sc;

	memset(&sc, 0, sizeof(sc));
	sim_scenario_finish(&sc);
	assert_true(is_zeroed(&sc));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_builtins_parse),
	    cmocka_unit_test(test_vgasa_values),
	    cmocka_unit_test(test_scenes),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_integers_for_floats),
	    cmocka_unit_test(test_syntax_error),
	    cmocka_unit_test(test_unknown_field),
	    cmocka_unit_test(test_missing_field),
	    cmocka_unit_test(test_wrong_type),
	    cmocka_unit_test(test_out_of_range),
	    cmocka_unit_test(test_too_many_tenants),
	    cmocka_unit_test(test_duplicate_tenant),
	    cmocka_unit_test(test_capacity_keys),
	    cmocka_unit_test(test_scenes_increasing),
	    cmocka_unit_test(test_include_rejected),
	    cmocka_unit_test(test_trace_read),
	    cmocka_unit_test(test_trace_bad_line),
	    cmocka_unit_test(test_trace_exclusive),
	    cmocka_unit_test(test_load_errors),
	    cmocka_unit_test(test_error_format),
	    cmocka_unit_test(test_finish_zeroed),
	    cmocka_unit_test(test_old_parameter_names_warn),
	    cmocka_unit_test(test_parameter_range_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
