/* `baton report`: the history reader (src/cli/history.c) on torn, garbled,
 * empty, filtered and out-of-bounds input, then the executable's exit
 * codes, messages and plot, and hostile files: figures that made the plot
 * loop for ever, names with control bytes. Usage: test_cli_report PATH_TO_BATON
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/history.h"

extern char **environ;

static const char *baton;
static char scratch[64];

/* A record at time t: a game (id 1, glxgears) at fps, level lvl (< 0:
 * null), cap; a best-effort tenant (id 2, matmul) doing units. */
static void rec(FILE *f, long t, double fps, int lvl, double cap, double units)
{
	char level[16];
	if (lvl < 0)
		snprintf(level, sizeof(level), "null");
	else
		snprintf(level, sizeof(level), "%d", lvl);
	fprintf(f,
	        "{\"v\":1,\"t\":%ld,\"policy\":\"sa\",\"gpu\":{\"util\":0.5},"
	        "\"dropped\":0,\"tenants\":[{\"id\":1,\"name\":\"glxgears\","
	        "\"pid\":10,\"fps\":%g,\"sla\":30,\"target_fps\":30.5,"
	        "\"cap\":%g,\"level\":%s,\"p99_ms\":35}],\"be\":[{\"id\":2,"
	        "\"name\":\"matmul\",\"pid\":11,\"units_s\":%g,"
	        "\"gpu_share\":0.2,\"wait\":0.1}]}\n",
	        t, fps, cap, level, units);
}

/* Reads text through hist_read. */
static void read_text(struct hist *h, const char *text,
                      const struct hist_filter *f)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(in);
	*h = (struct hist){0};
	assert_true(hist_read(h, in, f));
	fclose(in);
}

/* Five good records at t = 100..104 into a malloc'ed string. */
static char *five(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (int i = 0; i < 5; i++)
		rec(f, 100 + i, 30.0 + i, i < 3 ? 2 : 1, 0.25, 50.0 + i);
	fclose(f);
	return buf;
}

static void test_good(void **state)
{
	char *text = five();
	struct hist h;
	read_text(&h, text, NULL);
	assert_int_equal(h.kept, 5);
	assert_int_equal(h.bad, 0);
	assert_false(h.torn);
	assert_int_equal(h.n, 2);
	assert_string_equal(h.s[0].name, "glxgears");
	assert_false(h.s[0].be);
	assert_int_equal(h.s[0].n, 5);
	assert_true(h.s[0].p[4].fps == 34.0);
	assert_true(h.s[0].p[4].level == 1.0);
	assert_true(isnan(h.s[0].p[0].units_s));
	assert_true(h.s[1].be);
	assert_true(h.s[1].p[2].units_s == 52.0);
	assert_true(isnan(h.s[1].p[2].fps));
	assert_int_equal(h.t_min, 100);
	assert_int_equal(h.t_max, 104);
	hist_free(&h);
	free(text);
}

static void test_torn_and_garbage(void **state)
{
	char *good = five();
	size_t n = strlen(good);
	char *text = malloc(2 * n + 64);
	assert_non_null(text);
	/* line 3 is garbage, line 5 a record of another format version,
	 * and the file ends in the middle of a record */
	const char *nl2 = strchr(strchr(good, '\n') + 1, '\n') + 1;
	size_t head = (size_t)(nl2 - good);
	memcpy(text, good, head);
	strcpy(text + head, "#@!garbage\n\n");
	strcat(text, nl2);
	strcat(text, "{\"v\":2,\"t\":5}\n{\"v\":1,\"t\":200,\"tenants\":[{\"i");
	struct hist h;
	read_text(&h, text, NULL);
	assert_int_equal(h.kept, 5);
	assert_int_equal(h.bad, 2);
	assert_int_equal(h.first_bad, 3);
	assert_true(h.bad_why[0] != '\0');
	assert_true(h.torn);
	assert_int_equal(h.s[0].n, 5);
	hist_free(&h);
	free(text);
	free(good);
}

static void test_empty_and_bad_tenants(void **state)
{
	struct hist h;
	read_text(&h, "", NULL);
	assert_int_equal(h.lines, 0);
	assert_int_equal(h.n, 0);
	assert_false(h.torn);
	hist_free(&h);
	/* a tenant with no name makes the line bad; not JSON objects too */
	read_text(&h,
	          "{\"v\":1,\"t\":1,\"tenants\":[{\"id\":1}]}\n[1,2]\n"
	          "{\"v\":1,\"t\":2,\"be\":[3]}\n\"x\"\n",
	          NULL);
	assert_int_equal(h.lines, 0);
	assert_int_equal(h.bad, 4);
	assert_int_equal(h.first_bad, 1);
	hist_free(&h);
}

static void test_filters(void **state)
{
	char *text = five();
	struct hist h;
	struct hist_filter f = {.from = 101, .to = 103};
	read_text(&h, text, &f);
	assert_int_equal(h.lines, 5);
	assert_int_equal(h.kept, 3);
	assert_int_equal(h.t_min, 101);
	assert_int_equal(h.t_max, 103);
	assert_int_equal(h.s[0].n, 3);
	hist_free(&h);

	f = (struct hist_filter){
	    .from = INT64_MIN, .to = INT64_MAX, .tenant = "2"};
	read_text(&h, text, &f);
	assert_int_equal(h.n, 1);
	assert_string_equal(h.s[0].name, "matmul");
	hist_free(&h);
	f.tenant = "glxgears";
	read_text(&h, text, &f);
	assert_int_equal(h.n, 1);
	assert_int_equal(h.s[0].id, 1);
	hist_free(&h);
	f.from = 500;
	f.tenant = NULL;
	read_text(&h, text, &f);
	assert_int_equal(h.kept, 0);
	assert_int_equal(h.n, 0);
	hist_free(&h);
	free(text);
}

/* Figures no batond writes (a level of 1e300 or 1e5, a cap of 5, a time
 * before 1970) make their line bad, naming the tenant and the figure;
 * numbers past a double (1e999) and NaN are not JSON. The good lines
 * around them are kept. */
static void test_out_of_bounds(void **state)
{
	static const char *const bad[] = {
	    "\"level\":1e300", "\"level\":1e5",      "\"level\":2.5",
	    "\"level\":-1",    "\"cap\":5",          "\"fps\":1e7",
	    "\"sla\":-30",     "\"units_s\":1e300",  "\"fps\":1e999",
	    "\"fps\":NaN",     "\"level\":Infinity",
	};
	size_t nbad = sizeof(bad) / sizeof(bad[0]);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	fprintf(f, "{\"v\":1,\"t\":-5,\"tenants\":[]}\n");
	for (size_t i = 0; i < nbad; i++)
		fprintf(f,
		        "{\"v\":1,\"t\":%zu,\"tenants\":[{\"id\":1,\"name\":"
		        "\"g\",\"pid\":1,%s}]}\n",
		        100 + i, bad[i]);
	rec(f, 200, 30.0, 7, 1.0, 1e6);
	fclose(f);
	struct hist h;
	read_text(&h, text, NULL);
	assert_int_equal(h.bad, nbad + 1);
	assert_int_equal(h.first_bad, 1);
	assert_non_null(strstr(h.bad_why, "\"t\" -5"));
	assert_int_equal(h.kept, 1);
	assert_int_equal(h.s[0].n, 1);
	assert_true(h.s[0].p[0].level == 7.0);
	hist_free(&h);
	/* the reason names the tenant and the figure */
	read_text(&h,
	          "{\"v\":1,\"t\":1,\"tenants\":[{\"id\":4,\"name\":\"g\","
	          "\"level\":1e300}]}\n",
	          NULL);
	assert_int_equal(h.bad, 1);
	if (!strstr(h.bad_why, "tenant #4") || !strstr(h.bad_why, "\"level\""))
		fail_msg("the reason \"%s\" names neither", h.bad_why);
	hist_free(&h);
	free(text);
}

/* ---- the executable ---- */

struct outcome {
	int status;
	double seconds; /* the run's wall time */
	char out[8192], err[4096];
};

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* A run of baton report may take this long and grow this large before it
 * is killed and the test fails: a hostile history file once made it loop
 * for ever, growing by gigabytes. */
#define RUN_MAX_S   20.0
#define RUN_MAX_RSS (1024L * 1024L) /* KiB */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* pid's resident set in KiB (0 once it is gone). */
static long rss_kib(pid_t pid)
{
	char path[64], line[128];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kib = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Waits for pid, killing it (and failing) past RUN_MAX_S or RUN_MAX_RSS. */
static int wait_bounded(pid_t pid, double *seconds)
{
	double t0 = now_s();
	int st;
	long rss = 0;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		rss = rss_kib(pid) > rss ? rss_kib(pid) : rss;
		*seconds = now_s() - t0;
		if (*seconds > RUN_MAX_S || rss > RUN_MAX_RSS) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fail_msg("baton report killed after %.1f s at %ld MiB "
			         "resident",
			         *seconds, rss / 1024);
		}
		usleep(5000);
	}
	*seconds = now_s() - t0;
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void run(struct outcome *o, const char *const *args)
{
	const char *argv[16] = {baton, "report"};
	size_t argc = 2;
	for (; args[argc - 2]; argc++)
		argv[argc] = args[argc - 2];
	argv[argc] = NULL;
	char out[128], err[128];
	snprintf(out, sizeof(out), "%s/stdout", scratch);
	snprintf(err, sizeof(err), "%s/stderr", scratch);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out,
	                                 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err,
	                                 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	assert_int_equal(
	    posix_spawn(&pid, baton, &fa, NULL, (char *const *)argv, environ),
	    0);
	posix_spawn_file_actions_destroy(&fa);
	o->status = wait_bounded(pid, &o->seconds);
	slurp(out, o->out, sizeof(o->out));
	slurp(err, o->err, sizeof(o->err));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_exit_codes(void **state)
{
	static struct outcome o;
	char hist[128], empty[128], png[128];
	snprintf(hist, sizeof(hist), "%s/h.jsonl", scratch);
	snprintf(empty, sizeof(empty), "%s/empty.jsonl", scratch);
	snprintf(png, sizeof(png), "%s/h.png", scratch);
	char *text = five();
	write_file(hist, text);
	free(text);
	write_file(empty, "");

	run(&o, (const char *[]){"--help", NULL});
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "Usage: baton report"));
	run(&o, (const char *[]){NULL});
	assert_int_equal(o.status, 2);
	run(&o, (const char *[]){hist, "--from", "yesterday", NULL});
	assert_int_equal(o.status, 2);
	run(&o, (const char *[]){hist, "--plot", "x.gif", NULL});
	assert_int_equal(o.status, 2);
	run(&o, (const char *[]){"/nonexistent/h.jsonl", NULL});
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.err, "/nonexistent/h.jsonl"));
	run(&o, (const char *[]){empty, NULL});
	assert_int_equal(o.status, 3);
	assert_non_null(strstr(o.err, "no record"));
	run(&o, (const char *[]){hist, "--tenant", "nobody", NULL});
	assert_int_equal(o.status, 3);
	assert_non_null(strstr(o.err, "nobody"));

	run(&o, (const char *[]){hist, "--plot", png, NULL});
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "glxgears #1"));
	assert_non_null(strstr(o.out, "matmul #2"));
	char magic[16];
	slurp(png, magic, sizeof(magic));
	assert_memory_equal(magic, "\x89PNG", 4);
	unlink(png);
	run(&o, (const char *[]){hist, "--json", "--to", "102", NULL});
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "\"records\": 3"));
	assert_non_null(strstr(o.out, "\"level_changes\": 0"));
	run(&o, (const char *[]){hist, "--json", NULL});
	assert_non_null(strstr(o.out, "\"level_changes\": 1"));
	assert_non_null(strstr(o.out, "\"units_s_median\": 52"));
	unlink(hist);
	unlink(empty);
}

/* A plot of a history file whose second line claims a level of `level`
 * (the rest good): it ends well within RUN_MAX_S, names the bad line, and
 * the SVG stays small (a level of 1e5 once drew 100,000 axis ticks into
 * 72 MB; 1e300 never ended). */
static void plot_crafted(const char *level)
{
	static struct outcome o;
	char hist[128], svg[128];
	snprintf(hist, sizeof(hist), "%s/crafted.jsonl", scratch);
	snprintf(svg, sizeof(svg), "%s/crafted.svg", scratch);
	FILE *f = fopen(hist, "w");
	assert_non_null(f);
	rec(f, 100, 30.0, 0, 0.5, 10.0);
	fprintf(
	    f,
	    "{\"v\":1,\"t\":101,\"tenants\":[{\"id\":1,\"name\":"
	    "\"glxgears\",\"pid\":10,\"fps\":30,\"sla\":30,\"level\":%s}]}\n",
	    level);
	rec(f, 102, 30.0, 1, 0.5, 10.0);
	fclose(f);
	run(&o, (const char *[]){hist, "--plot", svg, NULL});
	struct stat st;
	assert_int_equal(stat(svg, &st), 0);
	printf("level %s: exit %d in %.2f s, SVG %lld bytes\n", level, o.status,
	       o.seconds, (long long)st.st_size);
	assert_int_equal(o.status, 0);
	assert_true(st.st_size < 2 * 1024 * 1024);
	if (!strstr(o.err, "line 2") || !strstr(o.err, "\"level\""))
		fail_msg("stderr does not name line 2's level: %s", o.err);
	unlink(svg);
	unlink(hist);
}

static void test_plot_crafted_levels(void **state)
{
	plot_crafted("1e300");
	plot_crafted("1e5");
}

/* A long file in time order (50,000 seconds, about 14 hours, of a game
 * and a best-effort tenant): the plot draws at most a few points a pixel
 * column, so the SVG stays small (every point drawn: 4.0 MB). */
static void test_plot_long(void **state)
{
	static struct outcome o;
	char hist[128], svg[128];
	snprintf(hist, sizeof(hist), "%s/long.jsonl", scratch);
	snprintf(svg, sizeof(svg), "%s/long.svg", scratch);
	FILE *f = fopen(hist, "w");
	assert_non_null(f);
	for (long t = 0; t < 50000; t++)
		rec(f, 1700000000 + t, 25.0 + (double)(t * 7 % 11),
		    (int)(t % 8), (double)(t % 5) / 4.0,
		    (double)(t * 13 % 100));
	fclose(f);
	run(&o, (const char *[]){hist, "--plot", svg, NULL});
	struct stat st;
	assert_int_equal(stat(svg, &st), 0);
	printf("50000 records: exit %d in %.2f s, SVG %lld bytes\n", o.status,
	       o.seconds, (long long)st.st_size);
	assert_int_equal(o.status, 0);
	assert_true(st.st_size < 2 * 1024 * 1024);
	unlink(svg);
	unlink(hist);
}

/* Control bytes and bidi overrides in a name, and a raw escape in a line
 * that is not JSON, never reach the terminal: the names are cleaned as
 * batond cleans them ('?'), the reason for the bad line escaped. */
static void test_control_bytes(void **state)
{
	static struct outcome o;
	char hist[128];
	snprintf(hist, sizeof(hist), "%s/esc.jsonl", scratch);
	/* ESC [ 3 1 m, then U+202E RIGHT-TO-LEFT OVERRIDE */
	write_file(hist, "{\"v\":1,\"t\":1,\"tenants\":[{\"id\":1,\"name\":"
	                 "\"\\u001b[31mevil\\u202e\",\"pid\":1,\"fps\":30}]}\n"
	                 "\x1b[2J\x1b]0;owned\x07\n");
	const char *const modes[][2] = {{NULL, NULL}, {"--json", NULL}};
	for (size_t m = 0; m < 2; m++) {
		run(&o, (const char *[]){hist, modes[m][0], NULL});
		assert_int_equal(o.status, 0);
		const char *outs[] = {o.out, o.err};
		for (size_t i = 0; i < 2; i++)
			if (strchr(outs[i], '\x1b') ||
			    strchr(outs[i], '\x07') ||
			    strstr(outs[i], "\xe2\x80\xae") ||
			    strstr(outs[i], "\\u001b"))
				fail_msg("raw control bytes on %s (mode %zu)",
				         i ? "stderr" : "stdout", m);
		assert_non_null(strstr(o.out, "?[31mevil?"));
		assert_non_null(strstr(o.err, "line 2"));
	}
	unlink(hist);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH_TO_BATON\n", argv[0]);
		return 2;
	}
	baton = argv[1];
	snprintf(scratch, sizeof(scratch), "/tmp/baton-report-XXXXXX");
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_torn_and_garbage),
	    cmocka_unit_test(test_empty_and_bad_tenants),
	    cmocka_unit_test(test_filters),
	    cmocka_unit_test(test_out_of_bounds),
	    cmocka_unit_test(test_exit_codes),
	    cmocka_unit_test(test_plot_crafted_levels),
	    cmocka_unit_test(test_plot_long),
	    cmocka_unit_test(test_control_bytes),
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
