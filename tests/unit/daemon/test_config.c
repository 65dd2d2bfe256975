/* batond's command line and config file (config.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/config/config.h"
#include "daemon/server/server.h"

static char path[64];

static void write_config(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/batond-cfg-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Runs the parser on argv; what it printed lands in out. */
static enum daemon_args_result run(struct daemon_config *cfg, char *out,
                                   size_t len, int argc, char **argv)
{
	FILE *f = fmemopen(out, len, "w");
	enum daemon_args_result r = daemon_config_args(cfg, argc, argv, f);
	fclose(f);
	return r;
}

static void test_defaults(void **state)
{
	(void)state;
	setenv("BATON_SOCKET", "/tmp/d.sock", 1);
	struct daemon_config cfg;
	char out[512];
	char *argv[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, argv), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.socket_path, "/tmp/d.sock");
	assert_string_equal(cfg.policy->name, "sa");
	assert_float_equal(cfg.default_sla, 30, 0);
	assert_int_equal(cfg.epoch_ms, 100);
	assert_true(cfg.metrics_on);
	assert_string_equal(cfg.metrics_host, "127.0.0.1");
	assert_int_equal(cfg.metrics_port, 9477);
	assert_false(cfg.metrics_names);
	assert_float_equal(cfg.params.sla_margin, 0.01, 0);
}

static void test_command_line(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512];
	char *argv[] = {"batond", "--socket",  "/tmp/x.sock", "--policy",
	                "esa",    "--sla",     "45.5",        "--epoch-ms",
	                "50",     "--metrics", "[::1]:0",     NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 11, argv),
	                 DAEMON_ARGS_RUN);
	assert_string_equal(cfg.socket_path, "/tmp/x.sock");
	assert_string_equal(cfg.policy->name, "esa");
	assert_float_equal(cfg.default_sla, 45.5, 0);
	assert_int_equal(cfg.epoch_ms, 50);
	assert_float_equal(cfg.params.epoch_s, 0.05, 1e-12);
	assert_string_equal(cfg.metrics_host, "::1");
	assert_int_equal(cfg.metrics_port, 0);

	char *off[] = {"batond", "--metrics", "off", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, off), DAEMON_ARGS_RUN);
	assert_false(cfg.metrics_on);
}

static void test_usage_errors(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512];
	struct {
		int argc;
		char *argv[4];
		const char *says;
	} cases[] = {
	    {2, {"batond", "--bogus"}, "unknown option"},
	    {2, {"batond", "--sla"}, "needs a value"},
	    {3, {"batond", "--policy", "fastest"}, "--policy"},
	    {3, {"batond", "--sla", "0"}, "--sla"},
	    {3, {"batond", "--sla", "30x"}, "--sla"},
	    {3, {"batond", "--epoch-ms", "0"}, "--epoch-ms"},
	    {3, {"batond", "--metrics", "localhost"}, "--metrics"},
	    {3, {"batond", "--metrics", "h:70000"}, "--metrics"},
	    {2, {"batond", "extra"}, "unexpected"},
	    {3, {"batond", "--quality", "best"}, "--quality: \"best\""},
	    {3, {"batond", "--models", "relative/dir"}, "--models"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(out, 0, sizeof(out));
		assert_int_equal(
		    run(&cfg, out, sizeof(out), cases[i].argc, cases[i].argv),
		    DAEMON_ARGS_USAGE);
		if (!strstr(out, cases[i].says))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, out,
			         cases[i].says);
	}
}

static void test_config_file_and_override(void **state)
{
	(void)state;
	write_config("socket = \"/tmp/cfg.sock\";\n"
	             "policy = \"fsa\";\n"
	             "sla = 60;\n"
	             "epoch_ms = 200;\n"
	             "metrics = \"off\";\n"
	             "metrics_names = true;\n"
	             "params = { kp = 0.2; ki = 0.1; sla_margin = 0.05;\n"
	             "           util_target = 0.9; k_alpha = 1; };\n");
	struct daemon_config cfg;
	char out[512];
	char *argv[] = {"batond", "--config", path, "--policy", "sa", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 5, argv), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.socket_path, "/tmp/cfg.sock");
	assert_string_equal(cfg.policy->name, "sa"); /* the command line */
	assert_float_equal(cfg.default_sla, 60, 0);
	assert_int_equal(cfg.epoch_ms, 200);
	assert_false(cfg.metrics_on);
	assert_true(cfg.metrics_names);
	assert_float_equal(cfg.params.pi.kp, 0.2, 0);
	assert_float_equal(cfg.params.pi.ki, 0.1, 0);
	assert_float_equal(cfg.params.sla_margin, 0.05, 0);
	assert_float_equal(cfg.params.util_target, 0.9, 0);
	assert_float_equal(cfg.params.k_alpha, 1.0, 0);
	assert_float_equal(cfg.params.epoch_s, 0.2, 1e-12);
	unlink(path);
}

/* The history file (record.h): off by default, the file's key, the
 * command line over it, "off", and what is refused. */
static void test_record(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512];
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	assert_string_equal(cfg.record_path, "");
	write_config("record = \"/var/lib/baton/history.jsonl\";\n");
	char *file[] = {"batond", "--config", path, NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.record_path, "/var/lib/baton/history.jsonl");
	char *over[] = {"batond",   "--config", path,
	                "--record", "h.jsonl",  NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 5, over), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.record_path, "h.jsonl");
	char *off[] = {"batond", "--config", path, "--record", "off", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 5, off), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.record_path, "");
	unlink(path);
	char *empty[] = {"batond", "--record", "", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, empty),
	                 DAEMON_ARGS_USAGE);
	assert_non_null(strstr(out, "--record"));
	write_config("record = 5;\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file),
	                 DAEMON_ARGS_USAGE);
	assert_non_null(strstr(out, "record: must be a file path"));
	unlink(path);
}

/* The subordinate-uid file (owners.h): /etc/subuid by default, the
 * file's key, "off", and what is refused, named. */
static void test_subuid_file(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512] = "";
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	assert_string_equal(cfg.subuid_path, "/etc/subuid");
	char *file[] = {"batond", "--config", path, NULL};
	write_config("subuid_file = \"/srv/subuid\";\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.subuid_path, "/srv/subuid");
	unlink(path);
	write_config("subuid_file = \"off\";\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.subuid_path, "");
	unlink(path);
	const char *bad[] = {"subuid_file = \"subuid\";\n",
	                     "subuid_file = \"\";\n", "subuid_file = 1;\n"};
	for (size_t i = 0; i < 3; i++) {
		write_config(bad[i]);
		out[0] = '\0';
		assert_int_equal(run(&cfg, out, sizeof(out), 3, file),
		                 DAEMON_ARGS_USAGE);
		if (!strstr(out, ":1: subuid_file: must be an absolute file "
		                 "path"))
			fail_msg("case %zu: \"%s\"", i, out);
		unlink(path);
	}
}

/* The MPS control tool space harvesting drives on an NVIDIA GPU
 * (space_mps.h): none by default, the file's key, "off", and what is
 * refused, named. */
static void test_mps_control(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512] = "";
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	assert_string_equal(cfg.mps_control, "");
	char *file[] = {"batond", "--config", path, NULL};
	write_config("mps_control = \"/usr/bin/nvidia-cuda-mps-control\";\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.mps_control,
	                    "/usr/bin/nvidia-cuda-mps-control");
	unlink(path);
	write_config("mps_control = \"off\";\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.mps_control, "");
	unlink(path);
	const char *bad[] = {"mps_control = \"nvidia-cuda-mps-control\";\n",
	                     "mps_control = \"\";\n", "mps_control = 1;\n"};
	for (size_t i = 0; i < 3; i++) {
		write_config(bad[i]);
		out[0] = '\0';
		assert_int_equal(run(&cfg, out, sizeof(out), 3, file),
		                 DAEMON_ARGS_USAGE);
		if (!strstr(out, ":1: mps_control: must be the absolute path"))
			fail_msg("case %zu: \"%s\"", i, out);
		unlink(path);
	}
}

/* Where tenants' DRM fdinfo is read (gpu_account.h): /proc by default
 * (""), the file's key, and what is refused, named. */
static void test_fdinfo_root(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512] = "";
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	assert_string_equal(cfg.fdinfo_root, "");
	char *file[] = {"batond", "--config", path, NULL};
	write_config("fdinfo_root = \"/srv/fake-proc\";\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file), DAEMON_ARGS_RUN);
	assert_string_equal(cfg.fdinfo_root, "/srv/fake-proc");
	unlink(path);
	const char *bad[] = {"fdinfo_root = \"proc\";\n",
	                     "fdinfo_root = \"\";\n", "fdinfo_root = 1;\n"};
	for (size_t i = 0; i < 3; i++) {
		write_config(bad[i]);
		out[0] = '\0';
		assert_int_equal(run(&cfg, out, sizeof(out), 3, file),
		                 DAEMON_ARGS_USAGE);
		if (!strstr(out, ":1: fdinfo_root: must be an absolute "
		                 "directory path"))
			fail_msg("case %zu: \"%s\"", i, out);
		unlink(path);
	}
}

/* Where baton run without --gpu puts a session (core/place.h): spread
 * by default, the file's "pack", and what is refused, named. */
static void test_placement(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512] = "";
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	assert_int_equal(cfg.placement, CORE_PLACE_SPREAD);
	char *file[] = {"batond", "--config", path, NULL};
	write_config("placement = \"pack\";\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, file), DAEMON_ARGS_RUN);
	assert_int_equal(cfg.placement, CORE_PLACE_PACK);
	unlink(path);
	const char *bad[] = {"placement = \"fill\";\n", "placement = \"\";\n",
	                     "placement = 1;\n"};
	for (size_t i = 0; i < 3; i++) {
		write_config(bad[i]);
		out[0] = '\0';
		assert_int_equal(run(&cfg, out, sizeof(out), 3, file),
		                 DAEMON_ARGS_USAGE);
		if (!strstr(out, ":1: placement: must be \"spread\" or "
		                 "\"pack\""))
			fail_msg("case %zu: \"%s\"", i, out);
		unlink(path);
	}
}

/* The quality lever (docs/quality.md): off by default, the model
 * directory's default, the file's keys, and the command line over them. */
static void test_quality(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512];
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	assert_false(cfg.params.quality_on);
	assert_string_equal(cfg.models_dir, DAEMON_DEFAULT_MODELS);
	write_config("quality = \"paper\";\nmodels = \"/srv/models\";\n"
	             "params = { quality_headroom = 0.1; quality_hold_s = 5; "
	             "quality_reach_headroom = 0.4; quality_warn_epochs = 50; "
	             "quality_critical_epochs = 3; "
	             "quality_critical_ratio = 1.5; };\n");
	char *argv[] = {"batond", "--config", path, NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, argv), DAEMON_ARGS_RUN);
	assert_true(cfg.params.quality_on);
	assert_true(cfg.params.quality_paper);
	assert_float_equal(cfg.params.quality.budget, 33.0, 0);
	assert_string_equal(cfg.models_dir, "/srv/models");
	assert_float_equal(cfg.params.quality_headroom, 0.1, 0);
	assert_float_equal(cfg.params.quality_hold_s, 5.0, 0);
	assert_float_equal(cfg.params.quality_reach_headroom, 0.4, 0);
	assert_int_equal(cfg.params.quality.warn_epochs, 50);
	assert_int_equal(cfg.params.quality.critical_epochs, 3);
	assert_float_equal(cfg.params.quality.critical_ratio, 1.5, 0);
	char *over[] = {"batond", "--config", path,     "--quality",
	                "baton",  "--models", "/var/m", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 7, over), DAEMON_ARGS_RUN);
	assert_true(cfg.params.quality_on);
	assert_false(cfg.params.quality_paper);
	assert_float_equal(cfg.params.quality.budget, 1.0, 0);
	/* --quality sets the mode's budget, not the file's thresholds */
	assert_int_equal(cfg.params.quality.warn_epochs, 50);
	assert_float_equal(cfg.params.quality.critical_ratio, 1.5, 0);
	assert_string_equal(cfg.models_dir, "/var/m");
	unlink(path);
}

static void test_config_file_errors(void **state)
{
	(void)state;
	struct {
		const char *text;
		const char *says; /* after "path:" */
	} cases[] = {
	    {"policy = \"sa\";\nsla = \"fast\";\n", ":2: sla: "},
	    {"\n\nepoch_ms = 2.5;\n", ":3: epoch_ms: "},
	    {"sockett = \"/x\";\n", ":1: sockett: unknown setting"},
	    {"params = { kp = -1; };\n",
	     ":1: kp: must be a number in [0, 100], not -1"},
	    {"params = {\n util_target = 0; };\n", ":2: util_target: "},
	    {"params = { speed = 1; };\n", ":1: speed: unknown parameter"},
	    {"params = 3;\n", ":1: params: must be a group"},
	    {"params = { cap_u_limit = 0; };\n",
	     ":1: cap_u_limit: must be a number in (0, 10], not 0"},
	    {"params = { cap_run = 0; };\n",
	     ":1: cap_run: must be an integer in [1, 1000]"},
	    {"params = { cap_quiet = 2.5; };\n", ":1: cap_quiet: must be"},
	    {"metrics = \"nowhere\";\n", ":1: metrics: "},
	    {"metrics_names = 1;\n",
	     ":1: metrics_names: must be true or false"},
	    {"policy = \"sa\"\nsla = ;\n", ":2: "}, /* a syntax error */
	    {"quality = \"on\";\n", ":1: quality: must be"},
	    {"models = \"models\";\n", ":1: models: must be an absolute"},
	    {"params = { quality_headroom = 0.9; };\n",
	     ":1: quality_headroom: must be a number in [0, 0.5], not 0.9"},
	    {"params = { quality_reach_headroom = -0.1; };\n",
	     ":1: quality_reach_headroom: must be a number in [0, 2]"},
	    {"params = { quality_warn_epochs = 0; };\n",
	     ":1: quality_warn_epochs: must be an integer in [1, 100000]"},
	    {"params = { quality_critical_epochs = 1.5; };\n",
	     ":1: quality_critical_epochs: must be an integer"},
	    {"params = { quality_critical_ratio = 1; };\n",
	     ":1: quality_critical_ratio: must be a number in (1, 100]"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_config(cases[i].text);
		struct daemon_config cfg;
		char out[512] = "";
		char *argv[] = {"batond", "--config", path, NULL};
		assert_int_equal(run(&cfg, out, sizeof(out), 3, argv),
		                 DAEMON_ARGS_USAGE);
		char want[128];
		snprintf(want, sizeof(want), "%s%s", path, cases[i].says);
		if (!strstr(out, want))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, out, want);
		unlink(path);
	}
	struct daemon_config cfg;
	char out[512] = "";
	char *argv[] = {"batond", "--config", "/nonexistent/b.cfg", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, argv),
	                 DAEMON_ARGS_USAGE);
	assert_non_null(strstr(out, "/nonexistent/b.cfg"));
}

/* The harvest group (config_params.h): defaults, every key in its unit,
 * and errors naming the key, its range and the value given. */
static void test_harvest_group(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512] = "";
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	struct core_harvest_params def = core_harvest_params_default();
	/* field by field: the struct has padding after align */
	assert_float_equal(cfg.harvest.margin_s, def.margin_s, 0);
	assert_float_equal(cfg.harvest.util_margin, def.util_margin, 0);
	assert_float_equal(cfg.harvest.periodical_s, def.periodical_s, 0);
	assert_float_equal(cfg.harvest.continuous_s, def.continuous_s, 0);
	assert_float_equal(cfg.harvest.rest_s, def.rest_s, 0);
	assert_int_equal(cfg.harvest.enter_quiet, def.enter_quiet);
	assert_int_equal(cfg.harvest.align, def.align);
	assert_true(def.align);
	assert_int_equal(cfg.harvest.steer, def.steer);
	assert_true(def.steer);
	assert_int_equal(cfg.harvest.idle_lane, def.idle_lane);
	assert_false(def.idle_lane);
	assert_float_equal(cfg.harvest.slot_min_s, def.slot_min_s, 0);
	assert_float_equal(cfg.harvest.period_tolerance, def.period_tolerance,
	                   0);
	assert_float_equal(cfg.harvest.stuck_factor, def.stuck_factor, 0);
	assert_float_equal(cfg.harvest.stuck_slack_s, def.stuck_slack_s, 0);

	write_config(
	    "harvest = { margin_ms = 2; util_margin = 0.1;\n"
	    "  periodical_ms = 8.5; continuous_ms = 34;\n"
	    "  enter_quiet = 5; stuck_factor = 3; stuck_ms = 200;\n"
	    "  align = false; slot_min_ms = 4; period_tolerance = 0.05;\n"
	    "  idle_lane = true; steer = false;\n"
	    "  space_earn = 0.5; space_earn_ms = 2000;\n"
	    "  space_holdoff_ms = 60000; };\n");
	char *argv[] = {"batond", "--config", path, NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, argv), DAEMON_ARGS_RUN);
	unlink(path);
	assert_float_equal(cfg.harvest.margin_s, 0.002, 1e-12);
	assert_float_equal(cfg.harvest.util_margin, 0.1, 0);
	assert_float_equal(cfg.harvest.periodical_s, 0.0085, 1e-12);
	assert_float_equal(cfg.harvest.continuous_s, 0.034, 1e-12);
	assert_int_equal(cfg.harvest.enter_quiet, 5);
	assert_float_equal(cfg.harvest.stuck_factor, 3, 0);
	assert_float_equal(cfg.harvest.stuck_slack_s, 0.2, 1e-12);
	assert_false(cfg.harvest.align);
	assert_true(cfg.harvest.idle_lane);
	assert_false(cfg.harvest.steer);
	assert_float_equal(cfg.harvest.slot_min_s, 0.004, 1e-12);
	assert_float_equal(cfg.harvest.period_tolerance, 0.05, 0);
	assert_float_equal(cfg.harvest.space_earn, 0.5, 0);
	assert_float_equal(cfg.harvest.space_earn_s, 2.0, 1e-12);
	assert_float_equal(cfg.harvest.space_holdoff_s, 60.0, 1e-9);
	assert_float_equal(cfg.harvest.rest_s, def.rest_s, 0); /* untouched */

	struct {
		const char *text;
		const char *says; /* after "path:" */
	} cases[] = {
	    {"harvest = { margin_ms = 1001; };\n",
	     ":1: margin_ms: must be a number in [0, 1000], not 1001"},
	    {"harvest = {\n util_margin = -0.5; };\n",
	     ":2: util_margin: must be a number in [0, 1], not -0.5"},
	    {"harvest = { continuous_ms = 0; };\n",
	     ":1: continuous_ms: must be a number in (0, 10000], not 0"},
	    {"harvest = { periodical_ms = \"fast\"; };\n",
	     ":1: periodical_ms: must be a number in [0, 10000], not "
	     "\"fast\""},
	    {"harvest = { enter_quiet = 0; };\n",
	     ":1: enter_quiet: must be an integer in [1, 1000], not 0"},
	    {"harvest = { enter_quiet = 2.5; };\n",
	     ":1: enter_quiet: must be an integer in [1, 1000], not 2.5"},
	    {"harvest = { stuck_factor = 0.5; };\n",
	     ":1: stuck_factor: must be a number in [1, 1000], not 0.5"},
	    {"harvest = { stuck_ms = 600001; };\n",
	     ":1: stuck_ms: must be a number in [0, 600000], not 600001"},
	    {"harvest = { rest_ms = 5; };\n",
	     ":1: rest_ms: unknown parameter (margin_ms,"},
	    {"harvest = { align = 1; };\n",
	     ":1: align: must be true or false, not 1"},
	    {"harvest = { steer = 0; };\n",
	     ":1: steer: must be true or false, not 0"},
	    {"harvest = { idle_lane = \"yes\"; };\n",
	     ":1: idle_lane: must be true or false, not \"yes\""},
	    {"harvest = { slot_min_ms = -1; };\n",
	     ":1: slot_min_ms: must be a number in [0, 1000], not -1"},
	    {"harvest = { period_tolerance = 2; };\n",
	     ":1: period_tolerance: must be a number in [0, 1], not 2"},
	    {"harvest = { space_earn = 1.5; };\n",
	     ":1: space_earn: must be a number in [0, 1], not 1.5"},
	    {"harvest = { space_holdoff_ms = -1; };\n",
	     ":1: space_holdoff_ms: must be a number in [0, 3.6e+06], not -1"},
	    {"harvest = 3;\n", ":1: harvest: must be a group"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_config(cases[i].text);
		char err[512] = "";
		assert_int_equal(run(&cfg, err, sizeof(err), 3, argv),
		                 DAEMON_ARGS_USAGE);
		char want[160];
		snprintf(want, sizeof(want), "%s%s", path, cases[i].says);
		if (!strstr(err, want))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, want);
		unlink(path);
	}
	/* the bounds themselves are taken */
	write_config("harvest = { margin_ms = 0; util_margin = 1;\n"
	             "  continuous_ms = 10000; stuck_factor = 1;\n"
	             "  stuck_ms = 0; enter_quiet = 1000; };\n");
	assert_int_equal(run(&cfg, out, sizeof(out), 3, argv), DAEMON_ARGS_RUN);
	unlink(path);
	assert_int_equal(cfg.harvest.enter_quiet, 1000);
	assert_float_equal(cfg.harvest.continuous_s, 10.0, 1e-12);
}

/* max_conns_per_uid and hello_timeout_ms, and the caps that follow the
 * descriptor limit (server_budget). */
static void test_connection_limits(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char out[512] = "";
	char *plain[] = {"batond", NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 1, plain),
	                 DAEMON_ARGS_RUN);
	assert_int_equal(cfg.max_conns_per_uid, 64);
	assert_int_equal(cfg.hello_timeout_ms, 2000);
	struct server_limits l = server_budget(4096, &cfg);
	assert_int_equal(l.conn_cap, SERVER_MAX_CONNS);
	assert_int_equal(l.per_uid, 64);
	assert_int_equal(l.hello_ns, 2000000000LL);
	/* The systemd default soft limit, were it not raised: the cap
	 * leaves room for a message's descriptors and the closer. */
	l = server_budget(1024, &cfg);
	assert_int_equal(l.conn_cap, (1024 - SERVER_FD_FIXED - 253) / 2);
	assert_true(l.conn_cap + l.pending_cap + SERVER_FD_FIXED + 253 <= 1024);
	/* Far too low: a floor, and one uid never more than half. */
	l = server_budget(64, &cfg);
	assert_int_equal(l.conn_cap, 16);
	assert_int_equal(l.per_uid, 8);

	write_config("max_conns_per_uid = 4;\nhello_timeout_ms = 500;\n");
	char *argv[] = {"batond", "--config", path, NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, argv), DAEMON_ARGS_RUN);
	assert_int_equal(cfg.max_conns_per_uid, 4);
	assert_int_equal(cfg.hello_timeout_ms, 500);
	unlink(path);
	const char *bad[] = {"max_conns_per_uid = 0;\n",
	                     "hello_timeout_ms = 5;\n",
	                     "hello_timeout_ms = \"2s\";\n"};
	for (size_t i = 0; i < 3; i++) {
		write_config(bad[i]);
		out[0] = '\0';
		assert_int_equal(run(&cfg, out, sizeof(out), 3, argv),
		                 DAEMON_ARGS_USAGE);
		if (!strstr(out, "must be an integer in"))
			fail_msg("case %zu: \"%s\"", i, out);
		unlink(path);
	}
}

/* apps and user_caps: read into the config, and every error names the
 * file, the line, the setting and the entry. */
static void test_apps_and_user_caps(void **state)
{
	(void)state;
	write_config("apps = (\n"
	             "  { name = \"glmark2\"; cap = 0.25; work_conserving = "
	             "false; cost_ms = 8; sla = 30; },\n"
	             "  { name = \"vkcube\"; cap = 1; encoder = 0.25; vram_mb "
	             "= 1536; }\n"
	             ");\n"
	             "user_caps = ( { uid = 1000; cap = 0.5; },\n"
	             "              { uid = 0; cap = 1; } );\n"
	             "params = { cap_u_limit = 0.8; cap_run = 4; cap_quiet = "
	             "5; cap_u_over = 0.9; };\n");
	struct daemon_config cfg;
	char out[512] = "";
	char *argv[] = {"batond", "--config", path, NULL};
	assert_int_equal(run(&cfg, out, sizeof(out), 3, argv), DAEMON_ARGS_RUN);
	unlink(path);
	assert_int_equal(cfg.n_apps, 2);
	const struct daemon_app *a = daemon_config_app(&cfg, "glmark2");
	assert_non_null(a);
	assert_float_equal(a->cap, 0.25, 0);
	assert_true(a->has_wc && !a->work_conserving);
	assert_float_equal(a->cost_ms, 8, 0);
	assert_float_equal(a->sla_fps, 30, 0);
	a = daemon_config_app(&cfg, "vkcube");
	assert_non_null(a);
	assert_float_equal(a->cap, 1, 0);
	assert_false(a->has_wc);
	assert_float_equal(a->encoder, 0.25, 0);
	assert_float_equal(a->vram_mb, 1536, 0);
	assert_null(daemon_config_app(&cfg, "glxgears"));
	assert_int_equal(cfg.n_user_caps, 2);
	assert_int_equal(cfg.user_caps[0].owner, 1000);
	assert_float_equal(cfg.user_caps[0].cap, 0.5, 0);
	assert_int_equal(cfg.user_caps[1].owner, 0);
	assert_float_equal(cfg.params.cap_u_limit, 0.8, 0);
	assert_float_equal(cfg.params.cap_u_over, 0.9, 0);
	assert_int_equal(cfg.params.cap_run, 4);
	assert_int_equal(cfg.params.cap_quiet, 5);

	struct {
		const char *text, *says;
	} cases[] = {
	    {"apps = ( { name = \"g\"; cap = 0; } );\n",
	     ":1: apps: entry \"g\": cap must be a number in (0, 1]"},
	    {"apps = ( { name = \"g\"; cap = 1.5; } );\n",
	     ":1: apps: entry \"g\": cap must be a number in (0, 1]"},
	    {"apps = ( { name = \"g\"; cap = \"half\"; } );\n",
	     ":1: apps: entry \"g\": cap must be"},
	    {"apps = ( { cap = 0.5; } );\n", ":1: apps: entry 1 needs name"},
	    {"apps = ( { name = \"g\"; speed = 1; } );\n",
	     ":1: apps: entry \"g\": unknown key speed"},
	    {"apps = ( { name = \"g\"; }, { name = \"g\"; } );\n",
	     ":1: apps: entry \"g\" given twice"},
	    {"apps = ( { name = \"g\"; work_conserving = 1; } );\n",
	     "entry \"g\": work_conserving must be true or false"},
	    {"apps = ( { name = \"g\"; cost_ms = 5; } );\n",
	     "entry \"g\": cost_ms goes with sla"},
	    {"apps = ( { name = \"g\"; cost_ms = 5; sla = 0.5; } );\n",
	     "entry \"g\": sla must be a number in [1, 1000]"},
	    {"apps = { name = \"g\"; };\n", ":1: apps: must be a list"},
	    {"apps = ( { name = \"g\"; encoder = 1.5; } );\n",
	     "entry \"g\": encoder must be a number in (0, 1]"},
	    {"apps = ( { name = \"g\"; vram_mb = 0; } );\n",
	     "entry \"g\": vram_mb must be a number in (0, 16777216]"},
	    {"gpus = ( { name = \"g0\"; vram_mb = -5; } );\n",
	     "GPU \"g0\": vram_mb must be a number in (0, 16777216]"},
	    {"user_caps = ( { uid = 1000; } );\n",
	     ":1: user_caps: entry 1 (uid 1000) takes exactly uid and cap"},
	    {"user_caps = ( { uid = -1; cap = 0.5; } );\n",
	     ":1: user_caps: entry 1 needs uid"},
	    {"user_caps = ( { uid = 7; cap = 0.0; } );\n",
	     "entry 1 (uid 7): cap must be a number in (0, 1]"},
	    {"user_caps = ( { uid = 7; cap = 0.5; },\n { uid = 7; cap = 0.2; } "
	     ");\n",
	     "entry 2 (uid 7) given twice"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_config(cases[i].text);
		char msg[512] = "";
		assert_int_equal(run(&cfg, msg, sizeof(msg), 3, argv),
		                 DAEMON_ARGS_USAGE);
		if (!strstr(msg, cases[i].says))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, msg,
			         cases[i].says);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_command_line),
	    cmocka_unit_test(test_usage_errors),
	    cmocka_unit_test(test_config_file_and_override),
	    cmocka_unit_test(test_quality),
	    cmocka_unit_test(test_record),
	    cmocka_unit_test(test_subuid_file),
	    cmocka_unit_test(test_config_file_errors),
	    cmocka_unit_test(test_harvest_group),
	    cmocka_unit_test(test_connection_limits),
	    cmocka_unit_test(test_apps_and_user_caps),
	    cmocka_unit_test(test_mps_control),
	    cmocka_unit_test(test_fdinfo_root),
	    cmocka_unit_test(test_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
