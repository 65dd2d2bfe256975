/* batond's config file and a scenario take the same parameter keys (the
 * core's table, core/params_table.h), set the same field to the same
 * value, and take the old names with a warning naming the new one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/params_table.h"
#include "daemon/config/config.h"
#include "sim/scenario/scenario.h"
#include "util/log.h"

#define MINIMAL                                                                \
	"name = \"t\";\n"                                                      \
	"tenants = ( { name = \"a\"; sla_fps = 30.0; cpu_ms = 1.0; "           \
	"gpu_ms = 2.0; } );\n"

/* What stderr got while batond read text as its --config, into log. */
static enum daemon_args_result read_config(const char *text,
                                           struct daemon_config *cfg, char *log,
                                           size_t loglen)
{
	char path[] = "/tmp/batond-keys-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char *argv[] = {"batond",   "--socket", "/tmp/k.sock",
	                "--config", path,       NULL};
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	enum daemon_args_result r = daemon_config_args(cfg, 5, argv, stderr);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(log, 1, loglen - 1, tmp);
	log[n] = '\0';
	fclose(tmp);
	unlink(path);
	return r;
}

/* The same for a scenario (parsed must succeed). */
static void read_scenario(const char *text, struct sim_scenario *sc, char *log,
                          size_t loglen)
{
	struct sim_error err;
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	bool ok = sim_scenario_parse(text, "t.cfg", NULL, sc, &err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(log, 1, loglen - 1, tmp);
	log[n] = '\0';
	fclose(tmp);
	if (!ok) {
		char msg[512];
		sim_error_format(&err, msg, sizeof(msg));
		fail_msg("%s\n%s", text, msg);
	}
}

/* A value in the entry's range other than its default, as a file writes
 * it. */
static void other_value(const struct core_param *p, char *buf, size_t len)
{
	double d = core_param_default(p);
	if (p->type == CORE_PARAM_BOOL)
		snprintf(buf, len, "%s", d != 0.0 ? "false" : "true");
	else if (p->type == CORE_PARAM_U32)
		snprintf(buf, len, "%.0f", d == p->hi ? p->lo : p->hi);
	else
		snprintf(buf, len, "%.17g", (p->lo + p->hi) / 2);
}

static void check_key(const struct core_param *p, const char *key, bool renamed)
{
	char value[64], text[512], log[2048];
	other_value(p, value, sizeof(value));
	bool policy = p->group == CORE_PARAM_POLICY;
	snprintf(text, sizeof(text), "%s = { %s = %s; };\n",
	         policy ? "params" : "harvest", key, value);
	struct daemon_config cfg;
	if (read_config(text, &cfg, log, sizeof(log)) != DAEMON_ARGS_RUN)
		fail_msg("batond refuses %s: %s", text, log);
	assert_true((strstr(log, "deprecated") != NULL) == renamed);

	char scenario[1024];
	snprintf(scenario, sizeof(scenario), MINIMAL "%s = { %s = %s; };\n",
	         policy ? "policy" : "harvest", key, value);
	struct sim_scenario sc;
	read_scenario(scenario, &sc, log, sizeof(log));
	assert_true((strstr(log, "deprecated") != NULL) == renamed);
	if (renamed)
		assert_non_null(strstr(log, p->key));
	const void *daemon_side =
	    policy ? (const void *)&cfg.params : (const void *)&cfg.harvest;
	const void *sim_side =
	    policy ? (const void *)&sc.params : (const void *)&sc.harvest;
	double a = core_param_get(p, daemon_side);
	double b = core_param_get(p, sim_side);
	sim_scenario_finish(&sc);
	if (a != b || a == core_param_default(p))
		fail_msg("%s = %s: batond %.17g, scenario %.17g", key, value, a,
		         b);
}

static void test_same_keys_same_values(void **state)
{
	(void)state;
	log_set_level(LOG_WARN);
	size_t n;
	const struct core_param *t = core_param_table(&n);
	for (size_t i = 0; i < n; i++)
		check_key(&t[i], t[i].key, false);
}

static void test_old_keys_warn_on_both_sides(void **state)
{
	(void)state;
	log_set_level(LOG_WARN);
	size_t n, old = 0;
	const struct core_param *t = core_param_table(&n);
	for (size_t i = 0; i < n; i++)
		if (t[i].old_key) {
			check_key(&t[i], t[i].old_key, true);
			old++;
		}
	assert_true(old >= 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_keys_same_values),
	    cmocka_unit_test(test_old_keys_warn_on_both_sides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
