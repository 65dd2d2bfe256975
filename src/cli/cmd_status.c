/* baton status: what batond is doing, one row per tenant. */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"

/* The options, and the fields of --json. */
static const char status_usage[] =
    "Usage: baton status [--json] [--watch]\n"
    "Show the tenants batond paces and the GPU they share.\n"
    "\n"
    "  --json    one JSON object: {\"policy\", \"gpu_util\", "
    "\"tenants\": [{\"name\",\n"
    "            \"pid\", \"sla_fps\", \"target_fps\", \"fps\", "
    "\"frame_ms_p99\",\n"
    "            \"gpu_share\", \"below_sla_s\", \"limited\", "
    "\"reach_fps\", \"cap\",\n"
    "            \"budget\", \"u\", \"overloaded\", "
    "\"work_conserving\", \"cap_bound\", \"video_share\",\n"
    "            \"vram_mb\"}], \"encoder_util\", \"decoder_util\", "
    "\"encoder_source\",\n"
    "            \"vram_total_mb\", \"vram_used_mb\", \"vram_source\",\n"
    "            \"other_util\", \"common_fps\", \"sla_util\", "
    "\"overload\", \"total_load\",\n"
    "            \"severe\", \"overloaded\", \"cap_pool\", \"be\": "
    "[{\"kind\": \"be\",\n"
    "            \"name\", \"id\", \"pid\", \"uid\", \"weight\", "
    "\"cap\", \"budget\",\n"
    "            \"window_ms\", \"mode\", \"units_per_s\", "
    "\"gpu_share\", \"wait_ratio\",\n"
    "            \"units\", \"bad_records\", \"stuck\", "
    "\"inflight_ms\", \"partition\"}], \"slot_ms\",\n"
    "            \"slot_period_ms\", \"quality\": {\"mode\", "
    "\"budget\", \"total_cost\",\n"
    "            \"total_benefit\", \"items\", "
    "\"reassignments\", \"refusals\", \"spread\"},\n"
    "            \"space\": {\"units\", \"split\", \"be_units\", "
    "\"scheme\", \"switches\",\n"
    "            \"be_use\", \"holdoff_s\", \"releases\"}}\n"
    "            (a game with levels has \"quality\": {\"game\", "
    "\"levels\", \"level\",\n"
    "            \"pinned\", \"chosen\", \"in_use\", \"types\", "
    "\"models\", \"est_cost_ms\",\n"
    "            \"est_benefit\", \"refused\"})\n"
    "            (game rows carry \"kind\": \"game\")\n"
    "  --watch   redraw every second until interrupted (with "
    "--json, one\n"
    "            object per line)\n"
    "  --help    this text\n"
    "\n";

/* The games' table. */
static const char status_columns[] =
    "Columns: SLA and TARGET in FPS (target 0 = unpaced), FPS "
    "over the last\n"
    "second, P99 frame time over the last two seconds, GPU share, "
    "and the\n"
    "whole seconds spent below the SLA; LIMITED marks a tenant "
    "that cannot\n"
    "reach its reference (something other than the pacer holds it "
    "back: its\n"
    "GPU share, its own CPU, latency) with the rate it could "
    "reach.\n"
    "CAP is the tenant's published GPU cap (a share of one GPU, "
    "- = none) and\n"
    "BUDGET the cap its gate enforces now (its dynamic cap within "
    "its user's\n"
    "cap, plus a share of the spare GPU when work-conserving); "
    "OVERLOADED\n"
    "marks a tenant over U_o of its budget for cap_run periods or "
    "under its\n"
    "SLA; CAP-BOUND one whose gate (its cap, not the pacer or the "
    "machine)\n"
    "holds its frames back (docs/capacity.md). SEVERE: more than "
    "one\n"
    "tenant is overloaded and batond does not advertise "
    "capacity.\n"
    "OVERLOAD: the tenants at their SLAs need more of the GPU than "
    "the\n"
    "utilization target, so not all of them can be held at their "
    "SLAs.\n";

/* The best-effort tenants' table, and the exit status. */
static const char status_be_columns[] =
    "BEST-EFFORT tenants (docs/harvesting.md) follow in their own "
    "table:\n"
    "WEIGHT, CAP, BUDGET (GPU share the games leave it), WINDOW "
    "(longest\n"
    "sub-launch it may start now, ms), MODE (periodical or "
    "continuous;\n"
    "STUCK: its sub-launch has run far past its window, a hung "
    "kernel, and\n"
    "every best-effort window stays shut until it reports;\n"
    "idle-lane: its device is this host's CPUs and it runs at "
    "idle\n"
    "priority, sub-launches back to back),\n"
    "UNITS/s of work done, GPU share and WAIT (time waiting for a "
    "window\n"
    "per second). SLOT: the span of each frame period in which "
    "every\n"
    "paced game waits, where periodical sub-launches start.\n"
    "Exit status: 0 ok, 1 error reply or I/O failure, 2 usage "
    "error,\n"
    "4 batond not running.\n";

/* The help text, in three parts. */
void cmd_status_help(FILE *out)
{
	fputs(status_usage, out);
	fputs(status_columns, out);
	fputs(status_be_columns, out);
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* Space harvesting's partition (docs/harvesting.md), when it is on. */
static void print_space(FILE *out, json_t *sp)
{
	int units = (int)num(sp, "units");
	if (units < 2)
		return;
	int split = (int)num(sp, "split"), be = (int)num(sp, "be_units");
	const char *scheme = json_string_value(json_object_get(sp, "scheme"));
	fprintf(out, "SPACE        %s, %d units: ", scheme ? scheme : "?",
	        units);
	if (split > 0)
		fprintf(out, "games on units 0-%d, best-effort on %d-%d%s",
		        split - 1, split, units - 1,
		        be > 0 ? "" : " (held this tick)");
	else if (num(sp, "holdoff_s") > 0.0)
		fprintf(out,
		        "the whole device for everyone (a game missed "
		        "its SLA: none for %.0f s)",
		        num(sp, "holdoff_s"));
	else
		fprintf(out, "the whole device for everyone");
	fprintf(out, ", %.0f switches\n", num(sp, "switches"));
}

/* The best-effort tenants, when there are any (docs/harvesting.md). */
static void print_be(FILE *out, json_t *st)
{
	json_t *be = json_object_get(st, "be");
	if (json_array_size(be) == 0)
		return;
	if (num(st, "slot_ms") > 0.0)
		fprintf(out, "BEST-EFFORT  (slot %.1f ms of each %.1f ms)\n",
		        num(st, "slot_ms"), num(st, "slot_period_ms"));
	else
		fprintf(out, "BEST-EFFORT  (no slot: any phase)\n");
	/* what shuts the windows, and whose frames (docs/harvesting.md) */
	json_t *hold = json_object_get(st, "be_hold");
	const char *why = json_string_value(json_object_get(hold, "detail"));
	json_int_t by = json_integer_value(json_object_get(hold, "tenant"));
	if (why && *why && by > 0)
		fprintf(out, "WINDOW SHUT  by tenant %lld: %s\n", (long long)by,
		        why);
	else if (why && *why)
		fprintf(out, "WINDOW SHUT  %s\n", why);
	fprintf(out,
	        "%6s %-20s %8s %6s %6s %5s %6s %7s %-10s "
	        "%10s %6s %6s\n",
	        "ID", "NAME", "PID", "UID", "WEIGHT", "CAP", "BUDGET", "WINDOW",
	        "MODE", "UNITS/s", "GPU %", "WAIT");
	size_t i;
	json_t *t;
	json_array_foreach(be, i, t)
	{
		const char *name =
		    json_string_value(json_object_get(t, "name"));
		const char *mode =
		    json_string_value(json_object_get(t, "mode"));
		/* a hung sub-launch (docs/harvesting.md) */
		if (json_is_true(json_object_get(t, "stuck")))
			mode = "STUCK";
		else if (json_is_true(json_object_get(t, "idle_lane")))
			mode = "idle-lane";
		char cap[16] = "-";
		if (num(t, "cap") > 0.0)
			snprintf(cap, sizeof(cap), "%.2f", num(t, "cap"));
		fprintf(
		    out,
		    "%6lld %-20.20s %8lld %6lld %6.1f %5s %6.3f %7.2f %-10s "
		    "%10.1f %6.1f %6.2f\n",
		    (long long)json_integer_value(json_object_get(t, "id")),
		    name ? name : "?",
		    (long long)json_integer_value(json_object_get(t, "pid")),
		    (long long)json_integer_value(json_object_get(t, "uid")),
		    num(t, "weight"), cap, num(t, "budget"),
		    num(t, "window_ms"), mode ? mode : "?",
		    num(t, "units_per_s"), 100.0 * num(t, "gpu_share"),
		    num(t, "wait_ratio"));
	}
}

/* A game with the SDK's quality API: "QUALITY high (pinned)", the level
 * in force by name. */
static void quality_note(json_t *t, char *note, size_t size)
{
	json_t *q = json_object_get(t, "quality");
	if (!json_is_object(q))
		return;
	json_int_t level = json_integer_value(json_object_get(q, "level"));
	const char *name = json_string_value(
	    json_array_get(json_object_get(q, "levels"), (size_t)level));
	size_t n = strlen(note);
	snprintf(note + n, size - n, "%sQUALITY %s%s%s", n ? " " : "",
	         name ? name : "?",
	         json_is_true(json_object_get(q, "pinned")) ? " (pinned)" : "",
	         json_is_true(json_object_get(q, "refused")) ? " (REFUSED)"
	                                                     : "");
	n = strlen(note);
	if (num(q, "est_cost_ms") > 0.0)
		snprintf(note + n, size - n, " est %.1f ms, benefit %.3f",
		         num(q, "est_cost_ms"), num(q, "est_benefit"));
}

/* A GPU's encoder and VRAM (batond's accounting/gpu_res.h), a line when
 * either is known. */
static void print_res(FILE *out, json_t *g)
{
	const char *enc =
	    json_string_value(json_object_get(g, "encoder_source"));
	const char *vram = json_string_value(json_object_get(g, "vram_source"));
	bool has_enc = enc && strcmp(enc, "none") != 0;
	bool has_vram = json_is_number(json_object_get(g, "vram_total_mb"));
	if (!has_enc && !has_vram)
		return;
	fputs("VIDEO/VRAM  ", out);
	if (has_enc)
		fprintf(out, " encoder %.1f%% (%s)",
		        100.0 * num(g, "encoder_util"), enc);
	if (json_is_number(json_object_get(g, "decoder_util")))
		fprintf(out, ", decoder %.1f%%",
		        100.0 * num(g, "decoder_util"));
	if (has_vram)
		fprintf(out, "%s VRAM %.0f of %.0f MiB used (%s)",
		        has_enc ? ";" : "", num(g, "vram_used_mb"),
		        num(g, "vram_total_mb"), vram ? vram : "?");
	fputc('\n', out);
}

/* A tenant's video share and VRAM, in its note when it has either. */
static void res_note(json_t *t, char *note, size_t size)
{
	size_t n = strlen(note);
	if (num(t, "video_share") >= 0.005)
		snprintf(note + n, size - n, "%sVIDEO %.0f%%", n ? " " : "",
		         100.0 * num(t, "video_share"));
	n = strlen(note);
	if (num(t, "vram_mb") >= 1.0)
		snprintf(note + n, size - n, "%sVRAM %.0f MiB", n ? " " : "",
		         num(t, "vram_mb"));
}

/* One GPU's line (its controller: policy, utilization, load, overload)
 * and its quality stage's, from g (a "gpus" entry, or the top level). */
static void print_gpu(FILE *out, const char *label, const char *policy,
                      json_t *g)
{
	fprintf(out, "%s: policy %s, utilization %.1f%%", label,
	        policy ? policy : "?", 100.0 * num(g, "gpu_util"));
	if (num(g, "common_fps") > 0.0)
		fprintf(out, ", common rate %.1f FPS", num(g, "common_fps"));
	if (num(g, "sla_util") > 0.0)
		fprintf(out, ", %.1f%% needed at the SLAs",
		        100.0 * num(g, "sla_util"));
	fprintf(out, ", total load %.2f", num(g, "total_load"));
	if (json_is_true(json_object_get(g, "overload")))
		fputs(" - OVERLOAD: not every tenant can be held at its SLA",
		      out);
	if (json_is_true(json_object_get(g, "severe")))
		fprintf(out,
		        " - SEVERE: %lld tenants overloaded, not advertising "
		        "capacity",
		        (long long)json_integer_value(
		            json_object_get(g, "overloaded")));
	fputc('\n', out);
	json_t *q = json_object_get(g, "quality");
	const char *mode = json_string_value(json_object_get(q, "mode"));
	if (mode && strcmp(mode, "off") != 0)
		fprintf(
		    out,
		    "QUALITY %s: %lld games use %.2f of a budget of %.2f, "
		    "benefit %.3f; %lld reassignments, %lld refusals\n",
		    mode,
		    (long long)json_integer_value(json_object_get(q, "items")),
		    num(q, "total_cost"), num(q, "budget"),
		    num(q, "total_benefit"),
		    (long long)json_integer_value(
		        json_object_get(q, "reassignments")),
		    (long long)json_integer_value(
		        json_object_get(q, "refusals")));
	print_space(out, json_object_get(g, "space"));
	print_res(out, g);
}

static void print_table(FILE *out, json_t *st)
{
	fprintf(out, "%6s %-20s %8s %6s %7s %7s %7s %8s %6s %5s %6s %11s  %s\n",
	        "ID", "NAME", "PID", "UID", "SLA", "TARGET", "FPS", "P99 ms",
	        "GPU %", "CAP", "BUDGET", "BELOW-SLA s", "NOTE");
	json_t *tenants = json_object_get(st, "tenants");
	size_t i;
	json_t *t;
	json_array_foreach(tenants, i, t)
	{
		const char *name =
		    json_string_value(json_object_get(t, "name"));
		char note[192] = "", cap[16] = "-", budget[16] = "-";
		if (json_is_true(json_object_get(t, "limited")))
			snprintf(note, sizeof(note), "LIMITED (reaches %.1f)",
			         num(t, "reach_fps"));
		if (json_is_true(json_object_get(t, "cap_bound")))
			snprintf(note + strlen(note),
			         sizeof(note) - strlen(note), "%sCAP-BOUND",
			         note[0] ? " " : "");
		if (json_is_true(json_object_get(t, "overloaded")))
			snprintf(note + strlen(note),
			         sizeof(note) - strlen(note), "%sOVERLOADED",
			         note[0] ? " " : "");
		quality_note(t, note, sizeof(note));
		res_note(t, note, sizeof(note));
		if (json_array_size(json_object_get(st, "gpus")) > 1)
			snprintf(note + strlen(note),
			         sizeof(note) - strlen(note), "%son %s",
			         note[0] ? " " : "",
			         json_string_value(json_object_get(t, "gpu")));
		if (num(t, "cap") > 0.0)
			snprintf(cap, sizeof(cap), "%.2f", num(t, "cap"));
		if (num(t, "budget") > 0.0)
			snprintf(budget, sizeof(budget), "%.3f",
			         num(t, "budget"));
		fprintf(
		    out,
		    "%6lld %-20.20s %8lld %6lld %7.1f %7.1f %7.1f %8.1f %6.1f "
		    "%5s %6s %11lld  %s\n",
		    (long long)json_integer_value(json_object_get(t, "id")),
		    name ? name : "?",
		    (long long)json_integer_value(json_object_get(t, "pid")),
		    (long long)json_integer_value(json_object_get(t, "uid")),
		    num(t, "sla_fps"), num(t, "target_fps"), num(t, "fps"),
		    num(t, "frame_ms_p99"), 100.0 * num(t, "gpu_share"), cap,
		    budget,
		    (long long)json_integer_value(
		        json_object_get(t, "below_sla_s")),
		    note);
	}
	if (json_array_size(tenants) == 0)
		fprintf(out, "(no tenants)\n");
	print_be(out, st);
	/* One line per GPU (batond's gpus; an older batond has only the
	 * first, at the top level). */
	const char *policy = json_string_value(json_object_get(st, "policy"));
	json_t *gpus = json_object_get(st, "gpus");
	if (json_array_size(gpus) == 0) {
		print_gpu(out, "GPU 0", policy, st);
		return;
	}
	json_t *g;
	json_array_foreach(gpus, i, g)
	{
		const char *n = json_string_value(json_object_get(g, "name"));
		const char *cpus =
		    json_string_value(json_object_get(g, "cpus"));
		/* "GPU 1", with its name when it is not "gpu1" */
		char label[128], dflt[32];
		snprintf(dflt, sizeof(dflt), "gpu%zu", i);
		bool named = n && strcmp(n, dflt) != 0;
		bool set = cpus && cpus[0];
		snprintf(label, sizeof(label), "GPU %zu%s%s%s%s%s", i,
		         named ? " " : "", named ? n : "", set ? " (CPUs " : "",
		         set ? cpus : "", set ? ")" : "");
		print_gpu(out, label, policy, g);
	}
}

/* Drops the protocol's "type" so that --json prints just the report. */
static bool print_json(FILE *out, json_t *st)
{
	json_object_del(st, "type");
	if (json_dumpf(st, out, JSON_COMPACT) < 0)
		return false;
	fputc('\n', out);
	return true;
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"watch", no_argument, NULL, 'w'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	bool json = false, watch = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jwh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'w':
			watch = true;
			break;
		case 'h':
			cmd_status_help(stdout);
			return CLI_EXIT_OK;
		default:
			fprintf(stderr,
			        "baton status: unknown option '%s'\n"
			        "Try 'baton status --help'.\n",
			        argv[optind - 1]);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "baton status: unexpected argument '%s'\n",
		        argv[optind]);
		return CLI_EXIT_USAGE;
	}

	struct cli_client cl;
	int rc = cli_client_open(&cl, "baton status");
	if (rc != CLI_EXIT_OK)
		return rc;
	if (watch) {
		interrupted = 0;
		struct sigaction sa = {.sa_handler = on_sigint};
		sigaction(SIGINT, &sa, NULL);
	}
	bool tty = isatty(STDOUT_FILENO);
	do {
		json_t *st;
		rc = cli_client_request(
		    &cl, json_pack("{s:s}", "type", "status"), &st);
		if (rc != CLI_EXIT_OK)
			break;
		if (watch && tty && !json)
			fputs("\033[H\033[2J", stdout); /* home, clear */
		if (json) {
			if (!print_json(stdout, st))
				rc = CLI_EXIT_FAILURE;
		} else {
			print_table(stdout, st);
		}
		json_decref(st);
		if (fflush(stdout) != 0)
			rc = CLI_EXIT_FAILURE;
		if (!watch || rc != CLI_EXIT_OK)
			break;
		/* SIGINT cuts the sleep short (no SA_RESTART). */
		struct timespec one = {1, 0};
		nanosleep(&one, NULL);
	} while (!interrupted);
	cli_client_close(&cl);
	if (watch)
		signal(SIGINT, SIG_DFL);
	return rc;
}
