/* The publisher's pure parts (publish.h, publish_body.h, config_publish.h)
 * and its thread against a peer that refuses connections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "daemon/config/config.h"
#include "daemon/publish/publish.h"
#include "daemon/publish/publish_backoff.h"
#include "daemon/publish/publish_body.h"
#include "util/log_gate.h"

#define S 1000000000LL

static void test_decide(void **state)
{
	(void)state;
	struct publish_input in = {
	    .valid = true, .sessions = 3, .fits = true, .more = 4};
	struct publish_numbers n = publish_decide(&in);
	assert_int_equal(n.count, 3);
	assert_int_equal(n.capacity, 7);
	/* admission says no (an arrival, or the total load): no new one */
	in.fits = false;
	n = publish_decide(&in);
	assert_int_equal(n.capacity, 3);
	/* overload: the capacity comes down to the count */
	in.fits = true;
	in.severe = true;
	n = publish_decide(&in);
	assert_int_equal(n.count, 3);
	assert_int_equal(n.capacity, 3);
}

static void test_backoff(void **state)
{
	(void)state;
	struct publish_backoff b = {0};
	assert_true(publish_backoff_due(&b, 0));
	int64_t want[] = {S / 2, S,      2 * S,  4 * S,
	                  8 * S, 16 * S, 30 * S, 30 * S};
	int64_t now = 100 * S;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		publish_backoff_fail(&b, now, 30 * S);
		assert_int_equal(b.delay_ns, want[i]);
		assert_false(publish_backoff_due(&b, now + want[i] - 1));
		assert_true(publish_backoff_due(&b, now + want[i]));
		now += want[i];
	}
	assert_int_equal(b.failures, 8);
	publish_backoff_ok(&b);
	assert_true(publish_backoff_due(&b, 0));
	publish_backoff_fail(&b, now, 30 * S);
	assert_int_equal(b.delay_ns, S / 2);
	/* a cap below the floor holds */
	struct publish_backoff c = {0};
	publish_backoff_fail(&c, 0, S / 4);
	assert_int_equal(c.delay_ns, S / 4);
}

static void test_ratelog(void **state)
{
	(void)state;
	struct log_gate r = {0};
	unsigned held = 99;
	const int64_t gap = PUBLISH_LOG_GAP_NS;
	assert_true(log_gate_take(&r, 5 * S, gap, &held));
	assert_int_equal(held, 0);
	for (int i = 1; i < 10; i++)
		assert_false(log_gate_take(&r, 5 * S + i * S, gap, &held));
	assert_true(log_gate_take(&r, 15 * S, gap, &held));
	assert_int_equal(held, 9);
	assert_false(log_gate_take(&r, 16 * S, gap, &held));
}

static void test_agones_bodies(void **state)
{
	(void)state;
	char *b = publish_agones_counter_body(3, 10);
	assert_string_equal(b, "{\"count\":\"3\",\"capacity\":\"10\"}");
	free(b);
	int64_t c = -1, k = -1;
	const char *ok = "{\"name\":\"sessions\",\"count\":\"3\","
	                 "\"capacity\":\"10\"}";
	assert_true(
	    publish_agones_counter_parse(ok, strlen(ok), "sessions", &c, &k));
	assert_int_equal(c, 3);
	assert_int_equal(k, 10);
	/* integers too; proto3 leaves a zero out */
	const char *ints = "{\"name\":\"s\",\"capacity\":7}";
	assert_true(
	    publish_agones_counter_parse(ints, strlen(ints), "s", &c, &k));
	assert_int_equal(c, 0);
	assert_int_equal(k, 7);
	const char *bad[] = {
	    "",
	    "{}",
	    "[]",
	    "<html>",
	    "{\"name\":\"other\",\"count\":\"1\",\"capacity\":\"2\"}",
	    "{\"name\":\"s\",\"count\":\"-1\",\"capacity\":\"2\"}",
	    "{\"name\":\"s\",\"count\":\" 1\",\"capacity\":\"2\"}",
	    "{\"name\":\"s\",\"count\":\"99999999999999999999\"}",
	    "{\"name\":\"s\",\"count\":1.5}",
	    "{\"name\":\"s\",\"count\":\"1\",\"count\":\"2\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(publish_agones_counter_parse(
		    bad[i], strlen(bad[i]), i == 4 ? "sessions" : "s", &c, &k));
	assert_true(publish_agones_empty_ok("{}", 2));
	assert_true(publish_agones_empty_ok("{\"x\":1}\n", 8));
	assert_false(publish_agones_empty_ok("", 0));
	assert_false(publish_agones_empty_ok("[]", 2));
	assert_false(publish_agones_empty_ok("{\"a\":", 5));
	/* over the bound: refused whatever it holds */
	size_t big = PUBLISH_BODY_MAX + 1;
	char *huge = malloc(big);
	memset(huge, ' ', big);
	huge[0] = '{';
	huge[big - 1] = '}';
	assert_false(publish_agones_empty_ok(huge, big));
	free(huge);
}

static void test_k8s_bodies(void **state)
{
	(void)state;
	char *b = publish_k8s_patch_body("baton.dev/game-sessions", 6);
	assert_string_equal(
	    b, "[{\"op\":\"add\",\"path\":\"/status/capacity/"
	       "baton.dev~1game-sessions\",\"value\":\"6\"},{\"op\":\"add\","
	       "\"path\":\"/status/allocatable/baton.dev~1game-sessions\","
	       "\"value\":\"6\"}]");
	free(b);
	b = publish_k8s_patch_body("a~b/c", 1);
	assert_non_null(strstr(b, "/status/capacity/a~0b~1c\""));
	free(b);
	int64_t n = -1;
	const char *node = "{\"kind\":\"Node\",\"status\":{\"capacity\":{"
	                   "\"baton.dev/game-sessions\":\"6\"}}}";
	assert_true(publish_k8s_node_parse(node, strlen(node),
	                                   "baton.dev/game-sessions", &n));
	assert_int_equal(n, 6);
	assert_false(publish_k8s_node_parse(node, strlen(node), "x.io/y", &n));
	const char *bad[] = {
	    "{\"kind\":\"Status\",\"status\":{\"capacity\":{\"r/x\":\"6\"}}}",
	    "{\"kind\":\"Node\",\"status\":{\"capacity\":{\"r/x\":\"6k\"}}}",
	    "{\"kind\":\"Node\",\"status\":{\"capacity\":{\"r/x\":6}}}",
	    "{\"kind\":\"Node\",\"status\":[]}",
	    "garbage",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(
		    publish_k8s_node_parse(bad[i], strlen(bad[i]), "r/x", &n));
	char path[128];
	assert_true(publish_k8s_path("node-1.example", path, sizeof(path)));
	assert_string_equal(
	    path, "/api/v1/nodes/node-1.example/status?fieldManager=batond");
	assert_true(publish_k8s_path("a b/?", path, sizeof(path)));
	assert_string_equal(
	    path, "/api/v1/nodes/a%20b%2F%3F/status?fieldManager=batond");
	assert_false(publish_k8s_path("n", path, 20));
}

static void test_resource_names(void **state)
{
	(void)state;
	assert_true(daemon_publish_resource_ok("baton.dev/game-sessions"));
	assert_true(daemon_publish_resource_ok("example.com/Foo_1.x"));
	assert_false(daemon_publish_resource_ok("game-sessions"));
	assert_false(daemon_publish_resource_ok("/x"));
	assert_false(daemon_publish_resource_ok("a.dev/"));
	assert_false(daemon_publish_resource_ok("a.dev/b/c"));
	assert_false(daemon_publish_resource_ok("Baton.dev/x"));
	assert_false(daemon_publish_resource_ok("kubernetes.io/x"));
	assert_false(daemon_publish_resource_ok("node.kubernetes.io/x"));
	assert_true(daemon_publish_resource_ok("notkubernetes.io/x"));
	assert_false(daemon_publish_resource_ok("a.dev/-x"));
}

static bool load(struct daemon_config *cfg, const char *text, char *err)
{
	char path[] = "/tmp/batond-pub-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	setenv("BATON_SOCKET", "/tmp/d.sock", 1);
	assert_true(daemon_config_defaults(cfg));
	bool ok = daemon_config_file(cfg, path, err, 512);
	unlink(path);
	return ok;
}

static void test_config(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char err[512] = "";
	assert_true(load(&cfg, "", err));
	assert_false(cfg.publish.agones.enabled);
	assert_string_equal(cfg.publish.agones.counter, "sessions");
	assert_string_equal(cfg.publish.k8s.resource,
	                    "baton.dev/game-sessions");
	assert_string_equal(cfg.publish.k8s.token_file,
	                    "/var/run/secrets/kubernetes.io/serviceaccount/"
	                    "token");
	assert_int_equal(cfg.publish.retry_max_ms, 30000);
	assert_true(load(&cfg,
	                 "agones = { enabled = true; port = 9400; counter = "
	                 "\"players\"; profile = \"g\"; };\n"
	                 "kubernetes = { enabled = true; resource = "
	                 "\"ex.com/s\"; api = \"https://10.0.0.1:443\"; "
	                 "node_name = \"n1\"; token_file = \"/t\"; ca_file = "
	                 "\"/c\"; refresh_ms = 5000; retry_max_ms = 1000; };\n",
	                 err));
	assert_true(cfg.publish.agones.enabled);
	assert_int_equal(cfg.publish.agones.port, 9400);
	assert_string_equal(cfg.publish.agones.counter, "players");
	assert_string_equal(cfg.publish.agones.profile, "g");
	assert_string_equal(cfg.publish.k8s.api, "https://10.0.0.1:443");
	assert_string_equal(cfg.publish.k8s.ca_file, "/c");
	assert_int_equal(cfg.publish.k8s.refresh_ms, 5000);
	assert_int_equal(cfg.publish.retry_max_ms, 1000);
	const char *bad[][2] = {
	    {"agones = { port = 0; };", "port"},
	    {"agones = { counter = \"a/b\"; };", "counter"},
	    {"agones = { enabled = 1; };", "enabled"},
	    {"agones = { colour = 1; };", "colour"},
	    {"agones = 3;", "agones"},
	    {"kubernetes = { api = \"http://10.0.0.1\"; };", "api"},
	    {"kubernetes = { resource = \"sessions\"; };", "resource"},
	    {"kubernetes = { token_file = \"rel\"; };", "token_file"},
	    {"kubernetes = { node_name = \"a/b\"; };", "node_name"},
	    {"kubernetes = { retry_max_ms = 10; };", "retry_max_ms"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_false(load(&cfg, bad[i][0], err));
		assert_non_null(strstr(err, bad[i][1]));
		assert_non_null(strstr(err, ":1:"));
	}
}

/* A port nothing listens on. */
static unsigned closed_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void test_thread_refused(void **state)
{
	(void)state;
	struct daemon_publish_config p;
	daemon_publish_defaults(&p);
	char err[256];
	assert_null(publisher_start(&p, err, sizeof(err)));
	assert_string_equal(err, "");
	p.k8s.enabled = true;
	unsetenv("NODE_NAME");
	assert_null(publisher_start(&p, err, sizeof(err)));
	assert_non_null(strstr(err, "node name"));
	p.k8s.enabled = false;
	p.agones.enabled = true;
	p.agones.port = closed_port();
	struct publisher *pub = publisher_start(&p, err, sizeof(err));
	assert_non_null(pub);
	struct publish_input in = {.valid = true, .fits = true, .more = 2};
	publisher_update(pub, &in, NULL);
	struct publish_stats st = {0};
	for (int i = 0; i < 300 && st.failures == 0; i++) {
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
		publisher_stats(pub, &st);
	}
	assert_true(st.failures >= 1);
	assert_false(st.agones_ready);
	publisher_stop(pub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decide),
	    cmocka_unit_test(test_backoff),
	    cmocka_unit_test(test_ratelog),
	    cmocka_unit_test(test_agones_bodies),
	    cmocka_unit_test(test_k8s_bodies),
	    cmocka_unit_test(test_resource_names),
	    cmocka_unit_test(test_config),
	    cmocka_unit_test(test_thread_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
