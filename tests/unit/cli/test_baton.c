/* The baton executable end to end: exit codes, messages, JSON and plots.
 * Usage: test_cli_baton PATH_TO_BATON */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *baton;
static char scratch[64];

struct outcome {
	int status; /* exit code */
	char *out;  /* stdout, NUL-terminated */
	size_t out_len;
	char *err; /* stderr */
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* Runs baton with the NULL-terminated arguments, stdout and stderr caught
 * in files of the scratch folder. */
static struct outcome run(const char *arg, ...)
{
	const char *argv[32] = {baton};
	size_t argc = 1;
	va_list ap;

	va_start(ap, arg);
	for (const char *a = arg; a; a = va_arg(ap, const char *)) {
		assert_true(argc < 31);
		argv[argc++] = a;
	}
	va_end(ap);
	argv[argc] = NULL;

	char out_path[128], err_path[128];
	snprintf(out_path, sizeof(out_path), "%s/stdout", scratch);
	snprintf(err_path, sizeof(err_path), "%s/stderr", scratch);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path,
	                                 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path,
	                                 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	assert_int_equal(
	    posix_spawn(&pid, baton, &fa, NULL, (char *const *)argv, environ),
	    0);
	posix_spawn_file_actions_destroy(&fa);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));

	struct outcome o = {.status = WEXITSTATUS(status)};
	o.out = slurp(out_path, &o.out_len);
	o.err = slurp(err_path, NULL);
	return o;
}

static void outcome_free(struct outcome *o)
{
	free(o->out);
	free(o->err);
}

static void test_help(void **state)
{
	struct outcome o = run("--help", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "sim"));
	assert_non_null(strstr(o.out, "Exit status"));
	outcome_free(&o);

	o = run("sim", "--help", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "--policy"));
	assert_non_null(strstr(o.out, "3  invalid scenario"));
	outcome_free(&o);

	o = run("help", "sim", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "--plot"));
	outcome_free(&o);

	o = run("--version", NULL);
	assert_int_equal(o.status, 0);
	assert_true(strncmp(o.out, "baton ", 6) == 0);
	outcome_free(&o);
}

static void test_usage_errors(void **state)
{
	struct outcome o = run(NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);

	o = run("frobnicate", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "'frobnicate'"));
	assert_non_null(strstr(o.err, "Usage"));
	outcome_free(&o);

	o = run("sim", "vgasa", "--frob", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "--frob"));
	outcome_free(&o);

	o = run("sim", "vgasa", "--seed", "abc", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(
	    strstr(o.err, "--seed: 'abc' is not a non-negative integer"));
	outcome_free(&o);

	o = run("sim", "vgasa", "--seed", "-1", NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);

	o = run("sim", "vgasa", "--policy", "fastest", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "fastest"));
	outcome_free(&o);

	o = run("sim", "vgasa", "--plot", "out.pdf", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "--plot"));
	outcome_free(&o);

	o = run("sim", "vgasa", "--duration", "2", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "warm-up"));
	outcome_free(&o);

	o = run("sim", "vgasa", "--seed", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "--seed"));
	outcome_free(&o);

	o = run("sim", NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);
}

/* baton run --be: the OpenCL and CUDA gates first in LD_PRELOAD with
 * their environment, no shim and no Vulkan layer; --be with a frame rate
 * or --wait, and --weight without --be or out of range, are usage errors;
 * a gate whose path is set and is not there is exit 1 naming where it
 * looked. The gates here are stand-in files (BATON_CL_GATE_PATH,
 * BATON_CUDA_GATE_PATH): ld.so ignores them, with a line on stderr, and
 * the command still runs. */
static void test_run_be(void **state)
{
	(void)state;
	char gate[160], cuda[160];
	snprintf(gate, sizeof(gate), "%s/libbaton_cl.so", scratch);
	snprintf(cuda, sizeof(cuda), "%s/libbaton_cuda.so", scratch);
	FILE *f = fopen(gate, "w");
	assert_non_null(f);
	fclose(f);
	f = fopen(cuda, "w");
	assert_non_null(f);
	fclose(f);
	setenv("BATON_CL_GATE_PATH", gate, 1);
	setenv("BATON_CUDA_GATE_PATH", cuda, 1);
	unsetenv("LD_PRELOAD");
	unsetenv("ENABLE_BATON_LAYER");
	struct outcome o =
	    run("run", "--be", "--weight", "1.5", "--cap", "0.5", "--name",
	        "mm", "--", "sh", "-c",
	        "echo \"$LD_PRELOAD|$BATON_BE_WEIGHT|$BATON_CAP|$BATON_NAME|"
	        "${ENABLE_BATON_LAYER:-none}\"",
	        NULL);
	assert_int_equal(o.status, 0);
	char want[400];
	snprintf(want, sizeof(want), "%s:%s|1.5|0.5|mm|none\n", gate, cuda);
	assert_string_equal(o.out, want);
	outcome_free(&o);
	o = run("run", "--be", "--sla", "30", "--", "true", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "--be"));
	outcome_free(&o);
	o = run("run", "--be", "--wait", "--", "true", NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);
	o = run("run", "--weight", "2", "--", "true", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "only with --be"));
	outcome_free(&o);
	o = run("run", "--be", "--weight", "0", "--", "true", NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);
	o = run("run", "--be", "--weight", "1001", "--", "true", NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);
	/* The CUDA gate's path set but nothing there: exit 1, though the
	 * OpenCL gate is found; then the same for the OpenCL gate. */
	unlink(cuda);
	o = run("run", "--be", "--", "true", NULL);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.err, cuda));
	outcome_free(&o);
	unlink(gate);
	o = run("run", "--be", "--", "true", NULL);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.err, gate));
	outcome_free(&o);
	unsetenv("BATON_CL_GATE_PATH");
	unsetenv("BATON_CUDA_GATE_PATH");
}

/* baton run --wait asks batond before starting the command: no daemon
 * is exit 4 (naming the socket) and the command never runs; a bad
 * --wait-timeout is a usage error; baton capacity is in the table. */
static void test_run_wait_and_capacity(void **state)
{
	(void)state;
	char sock[160], marker[160];
	snprintf(sock, sizeof(sock), "%s/none.sock", scratch);
	snprintf(marker, sizeof(marker), "%s/ran", scratch);
	setenv("BATON_SOCKET", sock, 1);
	struct outcome o = run("run", "--wait", "--wait-timeout", "1", "--",
	                       "touch", marker, NULL);
	assert_int_equal(o.status, 4);
	assert_non_null(strstr(o.err, sock));
	assert_int_not_equal(access(marker, F_OK), 0);
	outcome_free(&o);
	o = run("run", "--wait", "--wait-timeout", "soon", "--", "true", NULL);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "--wait-timeout"));
	outcome_free(&o);
	o = run("capacity", "--cost", "2", "--sla", "30", NULL);
	assert_int_equal(o.status, 4);
	outcome_free(&o);
	o = run("help", "capacity", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "--profile"));
	outcome_free(&o);
	unsetenv("BATON_SOCKET");
}

static void test_bad_scenario(void **state)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/bad.cfg", scratch);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("name = \"bad\";\ntenants = ( { name = \"a\"; sla_fps = 30.0;\n"
	      "  cpu_ms = 1.0; gpu_ms = -2.0; } );\n",
	      f);
	fclose(f);

	struct outcome o = run("sim", path, NULL);
	assert_int_equal(o.status, 3);
	assert_non_null(strstr(o.err, ":3: tenants.[0].gpu_ms:"));
	outcome_free(&o);
	unlink(path);

	o = run("sim", "no-such-scenario", NULL);
	assert_int_equal(o.status, 3);
	assert_non_null(strstr(o.err, "no-such-scenario"));
	outcome_free(&o);
}

static void test_list(void **state)
{
	struct outcome o = run("sim", "--list", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "vgasa "));
	assert_non_null(strstr(o.out, "vgasa-gains "));
	assert_non_null(strstr(o.out, "SLA 30 FPS"));
	outcome_free(&o);
}

/* COMBO's sweep (sim_combo_sweep.h): a built-in without a scenario file,
 * 128 groups, the figures beside the paper's; no --plot. */
static void test_combo_sweep(void **state)
{
	struct outcome o = run("sim", "--list", NULL);
	assert_non_null(strstr(o.out, "combo-fig13 "));
	assert_non_null(strstr(o.out, "combo-fig13-long "));
	outcome_free(&o);
	o = run("sim", "combo-fig13", "--json", "--duration", "0.3", NULL);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.err, "");
	json_error_t jerr;
	json_t *root = json_loads(o.out, 0, &jerr);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "groups")),
	                 128);
	json_t *f13 = json_object_get(root, "fig13");
	assert_true(json_real_value(json_object_get(f13, "paper_mean")) ==
	            0.140);
	assert_non_null(json_object_get(f13, "min"));
	assert_int_equal(
	    json_array_size(json_object_get(root, "groups_detail")), 128);
	json_decref(root);
	outcome_free(&o);
	o = run("sim", "combo-fig13", "--duration", "0.3", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "Fig. 16 combo vs combo-nm"));
	outcome_free(&o);
	o = run("sim", "combo-fig13", "--plot", "x.svg", NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);
	o = run("sim", "combo-fig13", "--duration", "0.1", NULL);
	assert_int_equal(o.status, 2);
	outcome_free(&o);
}

static void test_text_report(void **state)
{
	struct outcome o = run("sim", "vgasa", "--seed", "3", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "scenario vgasa"));
	assert_non_null(strstr(o.out, "seed 3"));
	assert_non_null(strstr(o.out, "dirt3"));
	assert_non_null(strstr(o.out, "farcry2"));
	outcome_free(&o);
}

static void check_keys(json_t *obj, const char *const *keys)
{
	const char *key;
	json_t *value;
	size_t i = 0;

	json_object_foreach(obj, key, value)
	{
		assert_non_null(keys[i]);
		assert_string_equal(key, keys[i]);
		i++;
	}
	assert_null(keys[i]);
}

static const char *const tenant_keys[] = {
    "name",         "sla_fps",       "fps_mean",  "fps_p1",    "frame_ms_p99",
    "frame_ms_max", "below_sla_pct", "gpu_share", "fps_per_s", NULL};

static void test_json_deterministic(void **state)
{
	struct outcome a = run("sim", "vgasa", "--json", NULL);
	struct outcome b = run("sim", "vgasa", "--json", "--seed", "1", NULL);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_int_equal(a.out_len, b.out_len);
	assert_memory_equal(a.out, b.out, a.out_len);

	json_error_t jerr;
	json_t *root = json_loads(a.out, 0, &jerr);
	assert_non_null(root);
	static const char *const keys[] = {"scenario",   "policy",   "seed",
	                                   "duration_s", "warmup_s", "gpu_util",
	                                   "tenants",    NULL};
	check_keys(root, keys);
	json_t *tenants = json_object_get(root, "tenants");
	assert_int_equal(json_array_size(tenants), 3);
	check_keys(json_array_get(tenants, 0), tenant_keys);
	assert_string_equal(
	    json_string_value(json_object_get(root, "scenario")), "vgasa");
	json_decref(root);
	outcome_free(&a);
	outcome_free(&b);

	/* Another policy, by option, shows in the output. */
	a = run("sim", "vgasa", "--json", "--policy", "none", NULL);
	assert_int_equal(a.status, 0);
	assert_non_null(strstr(a.out, "\"policy\": \"none\""));
	outcome_free(&a);
}

static void test_json_sweep(void **state)
{
	struct outcome o = run("sim", "vgasa-gains", "--json", NULL);
	assert_int_equal(o.status, 0);
	/* --json keeps stderr free of progress lines. */
	assert_string_equal(o.err, "");
	json_error_t jerr;
	json_t *root = json_loads(o.out, 0, &jerr);
	assert_non_null(root);
	static const char *const keys[] = {"scenario", "policy", "seed",
	                                   "sweep", NULL};
	check_keys(root, keys);
	json_t *sweep = json_object_get(root, "sweep");
	assert_int_equal(json_array_size(sweep), 6);
	json_t *last = json_array_get(sweep, 5);
	assert_true(json_real_value(json_object_get(last, "kp")) == 0.1);
	assert_true(json_real_value(json_object_get(last, "ki")) == 0.05);
	/* Eq. 7: (kp + 1) / (kp + ki + 1) */
	double pole = json_real_value(json_object_get(last, "pole"));
	assert_true(pole > 0.9565 && pole < 0.9566);
	assert_non_null(json_object_get(last, "gpu_util"));
	json_t *t = json_array_get(json_object_get(last, "tenants"), 0);
	assert_non_null(json_object_get(t, "fps_last5s"));
	assert_non_null(json_object_get(t, "settle_s"));
	json_decref(root);
	outcome_free(&o);

	o = run("sim", "vgasa-gains", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.err, "running kp=0.5 ki=0 (1/6)"));
	assert_non_null(strstr(o.out, "kp=0.1 ki=0.05"));
	outcome_free(&o);

	o = run("sim", "vgasa-gains", "--quiet", NULL);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.err, "");
	outcome_free(&o);
}

/* duration: NULL for the scenario's. */
static void check_plot(const char *name, const char *scenario,
                       const char *magic, const char *duration)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	struct outcome o = run("sim", scenario, "--quiet", "--plot", path,
	                       duration ? "--duration" : NULL, duration, NULL);
	assert_int_equal(o.status, 0);
	outcome_free(&o);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 1000);
	char *body = slurp(path, NULL);
	assert_non_null(strstr(body, magic));
	free(body);
	unlink(path);
}

static void test_plot(void **state)
{
	check_plot("vgasa.svg", "vgasa", "<svg", NULL);
	check_plot("vgasa.png", "vgasa", "PNG", NULL);
	check_plot("gains.svg", "vgasa-gains", "<svg", NULL);
	check_plot("gains.PNG", "vgasa-gains", "PNG", NULL);
	/* The SM-level model's figure (a combo scenario). */
	check_plot("combo.png", "combo-table6-dynamic", "\x89PNG", "3");
	check_plot("combo.svg", "combo-table6-stable", "<svg", "3");

	struct outcome o =
	    run("sim", "vgasa", "--plot", "/nonexistent-dir/x.png", NULL);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.err, "/nonexistent-dir/x.png"));
	outcome_free(&o);

	/* The report as ever, the plot named; a path that cannot be
	 * written fails after it. */
	char path[128];
	snprintf(path, sizeof(path), "%s/combo2.svg", scratch);
	o = run("sim", "combo-table6-dynamic", "--duration", "3", "--plot",
	        path, NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "adaptive"));
	assert_non_null(strstr(o.err, "plot written to"));
	outcome_free(&o);
	unlink(path);
	o = run("sim", "combo-table6-dynamic", "--duration", "3", "--plot",
	        "/nonexistent-dir/combo.svg", NULL);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.out, "adaptive"));
	assert_non_null(strstr(o.err, "--plot: /nonexistent-dir/combo.svg"));
	outcome_free(&o);
}

/* The fleet simulator through the CLI: the small built-in prints one row
 * per placement, the same rows as JSON, and draws its figure. */
static void test_fleet(void **state)
{
	static const char *const rows[] = {"packed 1 ",
	                                   "packed 4 ",
	                                   "distributed 1 ",
	                                   "distributed 4 ",
	                                   "baton ",
	                                   "baton-quality ",
	                                   NULL};
	struct outcome o = run("sim", "fleet-day-small", NULL);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "fleet of 100 GPUs over 24.0 h"));
	assert_non_null(strstr(o.out, "below-SLA s"));
	assert_non_null(strstr(o.out, "GPU-hours"));
	for (size_t i = 0; rows[i]; i++)
		if (!strstr(o.out, rows[i]))
			fail_msg("no row \"%s\" in:\n%s", rows[i], o.out);
	outcome_free(&o);

	o = run("sim", "fleet-day-small", "--json", NULL);
	assert_int_equal(o.status, 0);
	json_error_t jerr;
	json_t *doc = json_loads(o.out, 0, &jerr);
	assert_non_null(doc);
	json_t *fleet = json_object_get(doc, "fleet");
	assert_true(json_is_array(fleet));
	assert_int_equal(json_array_size(fleet), 10);
	json_int_t arrivals =
	    json_integer_value(json_object_get(doc, "arrivals"));
	for (size_t i = 0; i < json_array_size(fleet); i++) {
		json_t *r = json_array_get(fleet, i);
		json_int_t served =
		    json_integer_value(json_object_get(r, "served"));
		json_int_t refused =
		    json_integer_value(json_object_get(r, "refused"));
		assert_int_equal(served + refused, arrivals);
		assert_true(json_is_real(json_object_get(r, "below_sla_s")));
		assert_true(json_is_real(json_object_get(r, "gpu_hours")));
		assert_int_equal(
		    json_array_size(json_object_get(r, "sessions_per_bin")),
		    96);
	}
	json_decref(doc);
	outcome_free(&o);
	check_plot("fleet.png", "fleet-day-small", "PNG", NULL);
	check_plot("fleet.svg", "fleet-day-small", "<svg", NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH_TO_BATON\n", argv[0]);
		return 2;
	}
	baton = argv[1];
	snprintf(scratch, sizeof(scratch), "/tmp/baton-cli-XXXXXX");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_usage_errors),
	    cmocka_unit_test(test_run_wait_and_capacity),
	    cmocka_unit_test(test_bad_scenario),
	    cmocka_unit_test(test_list),
	    cmocka_unit_test(test_combo_sweep),
	    cmocka_unit_test(test_text_report),
	    cmocka_unit_test(test_json_deterministic),
	    cmocka_unit_test(test_json_sweep),
	    cmocka_unit_test(test_plot),
	    cmocka_unit_test(test_run_be),
	    cmocka_unit_test(test_fleet),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char path[128];
	snprintf(path, sizeof(path), "%s/stdout", scratch);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stderr", scratch);
	unlink(path);
	rmdir(scratch);
	return rc;
}
