/* Frame statistics (stats.h) and the Prometheus text (metrics_format). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/report/metrics.h"
#include "daemon/tick/stats.h"

#define MS 1000000LL

static void test_fps_and_intervals(void **state)
{
	(void)state;
	struct stats_window *w = malloc(sizeof(*w));
	stats_init(w);
	assert_float_equal(stats_fps(w, 1000 * MS, 1000 * MS), 0.0, 0);
	/* 25 ms apart from t = 0 to t = 3 s. */
	for (int64_t t = 0; t <= 3000 * MS; t += 25 * MS)
		stats_add(w, t);
	assert_float_equal(stats_fps(w, 3000 * MS, 1000 * MS), 40.0, 1e-9);
	double *iv = malloc(STATS_WINDOW * sizeof(double));
	/* Intervals ending in (1 s, 3 s]: 80 of them. */
	assert_int_equal(stats_intervals(w, 3000 * MS, 2000 * MS, iv), 80);
	assert_float_equal(iv[0], 0.025, 1e-12);
	/* Nothing ended in the last second: no rate. */
	assert_float_equal(stats_fps(w, 4500 * MS, 1000 * MS), 0.0, 0);
	/* More frames than the window holds: the newest are kept. */
	for (int64_t t = 3001 * MS; t < 3001 * MS + 5000 * MS / 1000;
	     t += MS / 1000)
		stats_add(w, t);
	assert_int_equal(stats_intervals(w, 3006 * MS, 2000 * MS, iv),
	                 STATS_WINDOW - 1);
	free(iv);
	free(w);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void test_quantiles_match_sorting(void **state)
{
	(void)state;
	const double qs[3] = {0.5, 0.9, 0.99};
	srand(7);
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + (size_t)(rand() % 700);
		double *v = malloc(n * sizeof(double));
		double *s = malloc(n * sizeof(double));
		for (size_t i = 0; i < n; i++) {
			/* many duplicates, sorted runs and noise */
			v[i] = round % 3 == 0   ? (double)(rand() % 5)
			       : round % 3 == 1 ? (double)i
			                        : (double)rand() / RAND_MAX;
			s[i] = v[i];
		}
		qsort(s, n, sizeof(double), cmp);
		double res[3];
		stats_quantiles(v, n, qs, res, 3);
		for (int q = 0; q < 3; q++) {
			/* nearest rank: the ceil(q n)-th smallest */
			size_t rank = (size_t)ceil(qs[q] * (double)n);
			assert_float_equal(res[q], s[rank - 1], 0);
		}
		free(v);
		free(s);
	}
	double res[3] = {1, 1, 1};
	stats_quantiles(NULL, 0, qs, res, 3);
	assert_float_equal(res[2], 0.0, 0);
}

static void test_prometheus_text(void **state)
{
	(void)state;
	struct metrics_tenant t[2] = {
	    {.id = 7,
	     .uid = 1000,
	     .name = "quake \"3\"\\x",
	     .pid = 12,
	     .target_fps = 30.3,
	     .fps = 30.25,
	     .frame_s = {0.033, 0.034, 0.04},
	     .below_sla_s = 2,
	     .gpu_share = 0.25,
	     .limited = 1,
	     .reach_fps = 27.5},
	    {.id = 1ull << 40, .uid = 0, .name = "b\x1b[2J\x7f", .pid = 13},
	};
	/* two GPUs (daemon/gpus.h), each its gauges; a profile admitted on
	 * both, and on the node their sum */
	static struct metrics_snapshot s;
	s = (struct metrics_snapshot){
	    .policy = "fsa",
	    .gpus = {{.name = "gpu0",
	              .util = 0.5,
	              .other_util = 0.125,
	              .sla_util = 1.25,
	              .overload = 1.0,
	              .common_fps = 41.5},
	             {.name = "right", .device = "0000:41:00.0", .util = 0.25}},
	    .n_gpus = 2,
	    .profiles = {{.name = "glmark2", .admissible = {2, 3}}},
	    .n_profiles = 1,
	    .tick_s = 1.5e-5,
	    .tenants = t,
	    .n = 2,
	    .names = true};
	t[1].gpu = 1;
	size_t len;
	char *txt = metrics_format(&s, &len);
	assert_non_null(txt);
	assert_int_equal(strlen(txt), len);
	const char *expect[] = {
	    "# HELP baton_tenant_target_fps ",
	    "# TYPE baton_tenant_target_fps gauge\n",
	    "baton_tenant_target_fps{id=\"7\",uid=\"1000\",name=\"quake "
	    "\\\"3\\\"\\\\x\",pid=\"12\"} "
	    "30.3\n",
	    "baton_tenant_fps{id=\"1099511627776\",uid=\"0\",name=\"b?[2J?\","
	    "pid=\"13\"} 0\n",
	    "# TYPE baton_tenant_frame_time_seconds summary\n",
	    "baton_tenant_frame_time_seconds{id=\"7\",uid=\"1000\",name="
	    "\"quake \\\"3\\\"\\\\x\","
	    "pid=\"12\",quantile=\"0.99\"} 0.04\n",
	    "baton_tenant_below_sla_seconds_total{id=\"7\",uid=\"1000\",name="
	    "\"quake \\\"3\\\"\\\\x\""
	    ",pid=\"12\"} 2\n",
	    "# TYPE baton_tenant_below_sla_seconds_total counter\n",
	    "baton_tenant_gpu_share{id=\"1099511627776\",uid=\"0\",name=\"b?["
	    "2J?\",pid=\"13\"} 0\n",
	    "baton_gpu_utilization{gpu=\"0\"} 0.5\n",
	    "# TYPE baton_gpu_other_utilization gauge\n",
	    "baton_gpu_other_utilization{gpu=\"0\"} 0.125\n",
	    "baton_tenant_limited{id=\"7\",uid=\"1000\",name=\"quake "
	    "\\\"3\\\"\\\\x\",pid=\"12\"} "
	    "1\n",
	    "baton_tenant_limited{id=\"1099511627776\",uid=\"0\",name=\"b?[2J?"
	    "\",pid=\"13\"} 0\n",
	    "baton_tenant_reach_fps{id=\"7\",uid=\"1000\",name=\"quake "
	    "\\\"3\\\"\\\\x\",pid=\"12\"} "
	    "27.5\n",
	    "baton_gpu_sla_utilization{gpu=\"0\"} 1.25\n",
	    "# TYPE baton_gpu_overload gauge\n",
	    "baton_gpu_overload{gpu=\"0\"} 1\n",
	    "baton_gpu_common_fps{gpu=\"0\"} 41.5\n",
	    "baton_gpu_utilization{gpu=\"1\"} 0.25\n",
	    "baton_gpu_info{gpu=\"1\",gpu_id=\"right\",device=\"0000:41:00.0\"}"
	    " "
	    "1\n",
	    "baton_admissible_sessions{gpu=\"0\",profile=\"glmark2\"} 2\n",
	    "baton_admissible_sessions{gpu=\"1\",profile=\"glmark2\"} 3\n",
	    "baton_node_admissible_sessions{profile=\"glmark2\"} 5\n",
	    "baton_tenant_gpu{id=\"1099511627776\",uid=\"0\",name=\"b?[2J?\","
	    "pid=\"13\"} 1\n",
	    "baton_policy_info{policy=\"fsa\"} 1\n",
	    "baton_daemon_tick_seconds 1.5e-05\n",
	};
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		if (!strstr(txt, expect[i]))
			fail_msg("missing \"%s\" in:\n%s", expect[i], txt);
	free(txt);
}

/* By default a tenant is its id and uid: every local user may read
 * /metrics, and names and pids are for admins (`baton status`). */
static void test_prometheus_text_without_names(void **state)
{
	(void)state;
	struct metrics_tenant t = {
	    .id = 7, .uid = 1000, .name = "secret", .pid = 12, .fps = 30};
	struct metrics_snapshot s = {
	    .policy = "sa", .tenants = &t, .n = 1, .names = false};
	size_t len;
	char *txt = metrics_format(&s, &len);
	assert_non_null(txt);
	assert_non_null(
	    strstr(txt, "baton_tenant_fps{id=\"7\",uid=\"1000\"} 30\n"));
	assert_non_null(strstr(txt, "baton_tenant_frame_time_seconds{id=\"7\","
	                            "uid=\"1000\",quantile=\"0.5\"} 0\n"));
	if (strstr(txt, "secret") || strstr(txt, "name=") ||
	    strstr(txt, "pid="))
		fail_msg("a name or pid in:\n%s", txt);
	free(txt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fps_and_intervals),
	    cmocka_unit_test(test_quantiles_match_sorting),
	    cmocka_unit_test(test_prometheus_text),
	    cmocka_unit_test(test_prometheus_text_without_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
