/* The quality stage through the real batond (--quality baton --models
 * DIR): three fake games with the same model join one by one; the first
 * gets its best level, the second the best that fits the rest, the third
 * forces a reassignment, and all three end where the budget holds them
 * (dJay §6.3). Each game draws at the level its control block publishes,
 * so batond measures the cost of the level it chose; /metrics shows the
 * level chosen (baton_tenant_quality_level). A game whose model
 * file is corrupt keeps its default level, and batond keeps serving. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "fake_tenant.h"
#include "harness.h"
#include "status_lookup.h"

/* GPU ms per frame at low, medium, high: at 30.3 FPS (the SLA and SA's
 * margin) 0.12, 0.30 and 0.61 of the GPU; its budget is 0.95. */
static const struct fake_game arena = {
    .id = "fakearena",
    .n_levels = 3,
    .default_level = 1,
    .gpu_ms = {4, 10, 20},
    .objects = 10,
};
static const struct fake_game broken = {
    .id = "broken",
    .n_levels = 3,
    .default_level = 1,
    .gpu_ms = {4, 10, 20},
    .objects = 10,
};

/* Half of each level's cost in the intercept, half in the objects; the
 * loss (1 - SSIM) in the intercept. */
static void write_models(const char *dir)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/fakearena.json", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	const double loss[3] = {0.2, 0.08, 0.0};
	fprintf(f, "{\"version\": 1, \"game\": \"fakearena\", \"mode\": "
	           "\"baton\", \"n_types\": 1, \"levels\": [");
	for (int l = 0; l < 3; l++) {
		double c = arena.gpu_ms[l] * 1e-3;
		fprintf(f,
		        "%s{\"cost\": {\"intercept\": %.9g, \"weights\": "
		        "[%.9g], \"kept\": [true]}, \"benefit\": "
		        "{\"intercept\": %g, \"weights\": [0], \"kept\": "
		        "[false]}}",
		        l ? ", " : "", c / 2, c / 2 / arena.objects, loss[l]);
	}
	fprintf(f, "]}\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/broken.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"version\": 1, \"game\": \"broken\", \"levels\": [\n");
	fclose(f);
}

static json_t *quality_of(const char *sock, long long id)
{
	json_t *e = status_entry(sock, "tenants", id);
	json_t *q = json_incref(json_object_get(e, "quality"));
	json_decref(e);
	return q;
}

/* Within 5 s: batond chose level want for the game (status says so) and
 * the game draws at it. */
static bool chosen_level(const char *sock, struct fake_tenant *t, int want)
{
	for (int i = 0; i < 100; i++) {
		json_t *q = quality_of(sock, t->id);
		bool ok =
		    json_is_true(json_object_get(q, "chosen")) &&
		    json_integer_value(json_object_get(q, "level")) == want &&
		    atomic_load(&t->level) == (unsigned)want;
		json_decref(q);
		if (ok)
			return true;
		usleep(50000);
	}
	return false;
}

/* Within 5 s: /metrics has baton_tenant_quality_level want for the
 * game (a scrape may be a tick behind status). */
static bool metrics_level(unsigned port, const struct fake_tenant *t, int want)
{
	char line[128];
	snprintf(line, sizeof(line),
	         "\nbaton_tenant_quality_level{id=\"%lld\",uid=\"%u\"} %d\n",
	         t->id, (unsigned)getuid(), want);
	for (int i = 0; i < 100; i++) {
		int code = 0;
		char *r = http_get(port, "/metrics", &code);
		bool ok = r && code == 200 && strstr(r, line);
		free(r);
		if (ok)
			return true;
		usleep(50000);
	}
	return false;
}

/* The capacity answer's quality part once its "more" is want, within
 * 5 s (k settles over a few epochs after a level change); else the last
 * one. Owned by the caller. */
static json_t *capacity_more(const char *sock, long long want)
{
	json_t *root = NULL;
	for (int i = 0; i < 100; i++) {
		json_decref(root);
		char *st =
		    client_request(sock, "{\"type\":\"capacity\","
		                         "\"cost_ms\":4,\"sla_fps\":30}\n");
		root = st ? json_loads(st, 0, NULL) : NULL;
		free(st);
		json_t *q = json_object_get(root, "quality");
		if (json_integer_value(json_object_get(q, "more")) == want)
			break;
		usleep(50000);
	}
	return root;
}

static void test_joins_and_reassignment(void **state)
{
	(void)state;
	char dir[] = "/tmp/baton-models-XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_models(dir);
	const char *const args[] = {"--quality", "baton", "--models", dir,
	                            NULL};
	struct batond_proc p;
	if (!batond_spawn(&p, args)) {
		batond_dump_log(&p);
		batond_cleanup(&p);
		fail_msg("batond did not start");
	}
	static struct fake_tenant g[3], bad;
	char err[256];
	/* alone: high (0.61) */
	if (!fake_tenant_start_game(&g[0], p.sock, "g0", 30, 200, &arena, err,
	                            sizeof(err)))
		fail_msg("register: %s", err);
	assert_true(chosen_level(p.sock, &g[0], 2));
	assert_true(metrics_level(p.port, &g[0], 2));
	/* the rest, 0.34, pays for medium (0.30) */
	if (!fake_tenant_start_game(&g[1], p.sock, "g1", 30, 200, &arena, err,
	                            sizeof(err)))
		fail_msg("register: %s", err);
	assert_true(chosen_level(p.sock, &g[1], 1));
	assert_int_equal(atomic_load(&g[0].level), 2);
	/* nothing fits the last 0.04: reassigned, medium for all three
	 * (2.76 of benefit; high + low + low is 2.6) */
	if (!fake_tenant_start_game(&g[2], p.sock, "g2", 30, 200, &arena, err,
	                            sizeof(err)))
		fail_msg("register: %s", err);
	for (int i = 0; i < 3; i++)
		assert_true(chosen_level(p.sock, &g[i], 1));
	for (int i = 0; i < 3; i++)
		assert_true(metrics_level(p.port, &g[i], 1));

	json_t *q = quality_of(p.sock, g[2].id);
	assert_non_null(q);
	assert_true(json_is_true(json_object_get(q, "models")));
	assert_int_equal(json_integer_value(json_object_get(q, "level")), 1);
	double est = json_real_value(json_object_get(q, "est_cost_ms"));
	assert_true(est > 5.0 && est < 20.0);
	json_decref(q);
	char *st = client_request(p.sock, "{\"type\":\"status\"}\n");
	assert_non_null(st);
	json_t *root = json_loads(st, 0, NULL);
	free(st);
	json_t *gq = json_object_get(root, "quality");
	assert_string_equal(json_string_value(json_object_get(gq, "mode")),
	                    "baton");
	assert_true(json_integer_value(json_object_get(gq, "reassignments")) >=
	            1);
	assert_true(json_real_value(json_object_get(gq, "total_cost")) <=
	            json_real_value(json_object_get(gq, "budget")));
	json_decref(root);
	/* Admission counts on the three at low: 0.36 of 0.95, room for
	 * four more at 4 ms and 30 FPS (0.12 each). */
	root = capacity_more(p.sock, 4);
	gq = json_object_get(root, "quality");
	assert_non_null(gq);
	assert_true(json_is_true(json_object_get(gq, "fits")));
	assert_int_equal(json_integer_value(json_object_get(gq, "more")), 4);
	json_decref(root);

	/* A corrupt model file: no estimates, the default level, and
	 * batond still answers. */
	if (!fake_tenant_start_game(&bad, p.sock, "bad", 30, 200, &broken, err,
	                            sizeof(err)))
		fail_msg("register: %s", err);
	q = NULL;
	for (int i = 0; i < 100 && !q; i++) {
		usleep(50000);
		q = quality_of(p.sock, bad.id);
	}
	assert_non_null(q);
	assert_false(json_is_true(json_object_get(q, "models")));
	assert_int_equal(atomic_load(&bad.level), 1);
	json_decref(q);
	FILE *log = fopen(p.log, "r");
	assert_non_null(log);
	char line[512];
	bool said = false;
	while (fgets(line, sizeof(line), log))
		said |= strstr(line, "models not used") &&
		        strstr(line, "broken.json");
	fclose(log);
	assert_true(said);

	for (int i = 0; i < 3; i++)
		fake_tenant_stop(&g[i]);
	fake_tenant_stop(&bad);
	assert_int_equal(batond_term(&p), 0);
	batond_cleanup(&p);
	char path[256];
	snprintf(path, sizeof(path), "%s/fakearena.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/broken.json", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_joins_and_reassignment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
