/* baton sim: load a scenario (built-in or file), apply the command line's
 * overrides, run the simulator once or once per swept gain pair, and report
 * as text, JSON and/or a plot. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/scenario/builtin.h"
#include "sim/combo/sim_combo_sweep.h"
#include "util/log.h"

/* Long-only options get values outside the char range. */
enum {
	OPT_PLOT = 256,
	OPT_QUALITY = 257,
};

static const struct option long_options[] = {
    {"policy", required_argument, NULL, 'p'},
    {"seed", required_argument, NULL, 's'},
    {"duration", required_argument, NULL, 'd'},
    {"json", no_argument, NULL, 'j'},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"quality", required_argument, NULL, OPT_QUALITY},
    {"quiet", no_argument, NULL, 'q'},
    {"list", no_argument, NULL, 'l'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Leading ':' so that a missing argument is told apart from an unknown
 * option. */
static const char short_options[] = ":p:s:d:jqlh";

struct sim_opts {
	const char *scenario;
	const char *policy;  /* NULL: the scenario's */
	const char *quality; /* NULL: the scenario's */
	bool have_seed;
	uint64_t seed;
	double duration_s; /* 0: the scenario's */
	bool json;
	const char *plot;
	bool quiet;
	bool list;
	bool help;
};

void cmd_sim_help(FILE *out)
{
	fprintf(
	    out,
	    "Usage: baton sim SCENARIO [OPTIONS]\n"
	    "       baton sim --list\n"
	    "\n"
	    "Simulates the games of SCENARIO sharing one GPU under a pacing "
	    "policy and\n"
	    "reports each tenant's frame rate against its SLA. SCENARIO is "
	    "a built-in\n"
	    "name (see --list) or a scenario file (docs/scenarios.md). A "
	    "scenario with a\n"
	    "sweep runs once per kp/ki pair. Options override the "
	    "scenario.\n"
	    "\n"
	    "Options:\n"
	    "  -p, --policy NAME    pacing policy (see below)\n"
	    "  -s, --seed N         random seed (non-negative integer)\n"
	    "  -d, --duration S     simulated seconds, warm-up included\n"
	    "      --quality MODE   who picks quality levels: off, djay, "
	    "djay-paper,\n"
	    "                       all-lo, all-me, all-hi "
	    "(docs/scenarios.md)\n"
	    "  -j, --json           print the results as JSON\n"
	    "      --plot FILE      draw per-second FPS and GPU "
	    "utilization to FILE\n"
	    "                       (.svg or .png); a combo scenario: "
	    "the SM\n"
	    "                       allocation per frame, a panel per "
	    "scheme\n"
	    "  -q, --quiet          no progress or warnings on stderr\n"
	    "  -l, --list           list the built-in scenarios\n"
	    "  -h, --help           show this help\n"
	    "\n"
	    "Policies:\n");
	/* The policy core owns the list, so a new policy shows up here. */
	const struct core_policy *const *all = core_policy_all();
	for (size_t i = 0; all[i]; i++)
		fprintf(out, "  %-5s %s\n", all[i]->name, all[i]->summary);
	fprintf(out, "\n"
	             "Exit status:\n"
	             "  0  success\n"
	             "  1  runtime failure (e.g. the plot cannot be written)\n"
	             "  2  usage error (bad option or value)\n"
	             "  3  invalid scenario (the message names file, line and "
	             "field)\n");
}

static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "baton sim: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'baton sim --help'.\n");
	return CLI_EXIT_USAGE;
}

static const char *option_name(int val, char *buf, size_t len)
{
	for (const struct option *o = long_options; o->name; o++) {
		if (o->val == val) {
			snprintf(buf, len, "--%s", o->name);
			return buf;
		}
	}
	snprintf(buf, len, "-%c", val);
	return buf;
}

/* Digits only: strtoull alone would accept "-1", " 7" and "0x10". */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
	}
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v <= 0 || v > 86400.0)
		return false;
	*out = v;
	return true;
}

/* Returns -1 to go on, else the exit code. */
/* What parse_value_option says of an option that takes no value. */
#define NOT_A_VALUE (-2)

/* An option with a value: -1 when taken, NOT_A_VALUE when c is none of
 * them, else a usage error's status. */
static int parse_value_option(int c, const char *arg, struct sim_opts *o)
{
	struct sim_scenario probe = {0};
	switch (c) {
	case 'p':
		if (!core_policy_find(arg))
			return usage_error("--policy: unknown policy '%s' (see "
			                   "--help)",
			                   arg);
		o->policy = arg;
		return -1;
	case 's':
		if (!parse_u64(arg, INT64_MAX, &o->seed))
			return usage_error("--seed: '%s' is not a non-negative "
			                   "integer (at most %lld)",
			                   arg, (long long)INT64_MAX);
		o->have_seed = true;
		return -1;
	case 'd':
		if (!parse_seconds(arg, &o->duration_s))
			return usage_error(
			    "--duration: '%s' is not a number of "
			    "seconds in (0, 86400]",
			    arg);
		return -1;
	case OPT_QUALITY:
		if (!sim_quality_set_mode(&probe, arg))
			return usage_error("--quality: unknown mode '%s' (see "
			                   "--help)",
			                   arg);
		o->quality = arg;
		return -1;
	case OPT_PLOT:
		if (plot_format_of(arg) == PLOT_NONE)
			return usage_error("--plot: '%s' must end in .svg or "
			                   ".png",
			                   arg);
		o->plot = arg;
		return -1;
	}
	return NOT_A_VALUE;
}

/* getopt's ':' (a value missing) or '?' (an unknown option). */
static int option_error(int c, char **argv)
{
	char name[32];
	if (c == ':')
		return usage_error("option '%s' needs a value",
		                   option_name(optopt, name, sizeof(name)));
	if (optopt && optopt < 256) {
		snprintf(name, sizeof(name), "-%c", optopt);
		return usage_error("unknown option '%s'", name);
	}
	return usage_error("unknown option '%s'", argv[optind - 1]);
}

static int parse_args(int argc, char **argv, struct sim_opts *o)
{
	int c;
	opterr = 0;
	optind = 0; /* glibc: start over, whoever parsed before */
	while ((c = getopt_long(argc, argv, short_options, long_options,
	                        NULL)) != -1) {
		int rc = parse_value_option(c, optarg, o);
		if (rc == -1)
			continue;
		if (rc != NOT_A_VALUE)
			return rc;
		if (c == 'j')
			o->json = true;
		else if (c == 'q')
			o->quiet = true;
		else if (c == 'l')
			o->list = true;
		else if (c == 'h')
			o->help = true;
		else
			return option_error(c, argv);
	}
	if (o->help || o->list)
		return -1;
	if (optind >= argc)
		return usage_error("missing SCENARIO (a built-in name or a "
		                   "file; see --list)");
	if (argc - optind > 1)
		return usage_error("unexpected argument '%s'",
		                   argv[optind + 1]);
	o->scenario = argv[optind];
	return -1;
}

static int list_builtins(void)
{
	size_t n;
	const struct sim_builtin *all = sim_builtin_all(&n);

	for (size_t i = 0; i < n; i++) {
		struct sim_scenario sc;
		struct sim_error err;
		char msg[512];
		/* The description lives in the scenario text itself. */
		if (sim_scenario_parse(all[i].text, all[i].name, NULL, &sc,
		                       &err)) {
			printf("%-14s %s\n", all[i].name, sc.description);
			sim_scenario_finish(&sc);
		} else {
			sim_error_format(&err, msg, sizeof(msg));
			printf("%-14s (invalid: %s)\n", all[i].name, msg);
		}
	}
	/* Not scenario files: sweeps of the combo model. */
	const struct sim_combo_sweep_preset *sw = sim_combo_sweep_presets(&n);
	for (size_t i = 0; i < n; i++)
		printf("%-14s %s\n", sw[i].name, sw[i].summary);
	return CLI_EXIT_OK;
}

static int apply_overrides(const struct sim_opts *o, struct sim_scenario *sc)
{
	if (o->policy)
		snprintf(sc->policy, sizeof(sc->policy), "%s", o->policy);
	if (o->have_seed)
		sc->seed = o->seed;
	if (o->quality)
		sim_quality_set_mode(sc, o->quality);
	if (o->duration_s > 0) {
		if (o->duration_s <= sc->warmup_s) {
			return usage_error("--duration: %g s is not longer "
			                   "than the scenario's warm-up (%g s)",
			                   o->duration_s, sc->warmup_s);
		}
		sc->duration_s = o->duration_s;
	}
	return -1;
}

static void free_runs(struct cli_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sim_result_finish(&runs[i].result);
	free(runs);
}

static int simulate(const struct sim_opts *o, const struct sim_scenario *sc,
                    struct cli_run **out, size_t *n_out)
{
	size_t n = sc->n_sweep ? sc->n_sweep : 1;
	struct cli_run *runs = calloc(n, sizeof(*runs));

	if (!runs) {
		fprintf(stderr, "baton sim: out of memory\n");
		return CLI_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++) {
		struct sim_scenario one = *sc;
		struct sim_error err;
		char msg[512];
		if (sc->n_sweep) {
			one.params.pi.kp = sc->sweep[i].kp;
			one.params.pi.ki = sc->sweep[i].ki;
			if (!o->quiet && !o->json)
				fprintf(stderr,
				        "running kp=%g ki=%g (%zu/%zu)\n",
				        one.params.pi.kp, one.params.pi.ki,
				        i + 1, n);
		}
		runs[i].gains.kp = one.params.pi.kp;
		runs[i].gains.ki = one.params.pi.ki;
		if (!sim_run(&one, &runs[i].result, &err)) {
			sim_error_format(&err, msg, sizeof(msg));
			fprintf(stderr, "baton sim: %s\n", msg);
			free_runs(runs, i);
			return CLI_EXIT_FAILURE;
		}
	}
	*out = runs;
	*n_out = n;
	return -1;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o = {0};
	struct sim_scenario sc;
	struct sim_error err;
	char msg[512];
	int rc = parse_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.help) {
		cmd_sim_help(stdout);
		return CLI_EXIT_OK;
	}
	if (o.list)
		return list_builtins();
	if (o.quiet)
		log_set_level(LOG_ERROR);
	if (sim_combo_sweep_find(o.scenario)) {
		if (o.plot || o.policy || o.quality)
			return usage_error("%s takes no --plot, --policy or "
			                   "--quality",
			                   o.scenario);
		return cmd_sim_combo_sweep(o.scenario, o.json, o.duration_s,
		                           o.have_seed, o.seed, o.quiet);
	}
	if (!sim_scenario_load(o.scenario, &sc, &err)) {
		sim_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "baton sim: %s\n", msg);
		return CLI_EXIT_INVALID;
	}
	rc = apply_overrides(&o, &sc);
	struct cli_run *runs = NULL;
	size_t n_runs = 0;
	if (rc < 0)
		rc = simulate(&o, &sc, &runs, &n_runs);
	if (rc < 0) {
		struct cli_report report = {
		    .sc = &sc,
		    .runs = runs,
		    .n_runs = n_runs,
		    .sweep = sc.n_sweep > 0,
		};
		rc = CLI_EXIT_OK;
		if (o.json) {
			if (!report_json(stdout, &report))
				rc = CLI_EXIT_FAILURE;
		} else {
			report_text(stdout, &report);
		}
		if (fflush(stdout) != 0) {
			fprintf(stderr,
			        "baton sim: cannot write the report: %s\n",
			        strerror(errno));
			rc = CLI_EXIT_FAILURE;
		}
		if (o.plot && !plot_write(o.plot, &report, msg, sizeof(msg))) {
			fprintf(stderr, "baton sim: --plot: %s: %s\n", o.plot,
			        msg);
			rc = CLI_EXIT_FAILURE;
		} else if (o.plot && !o.quiet) {
			fprintf(stderr, "baton sim: plot written to %s\n",
			        o.plot);
		}
		free_runs(runs, n_runs);
	}
	sim_scenario_finish(&sc);
	return rc;
}
