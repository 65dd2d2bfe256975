/* baton capacity [--profile NAME | --cost MS --sla FPS] [--json]: does one
 * more session fit on this GPU, and how many (batond's admission, gOver's
 * oversell rule: core_caps_admit). Also the wait loop of baton run --wait. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "ipc/msg.h"
#include "ipc/vram_size.h"

void cmd_capacity_help(FILE *out)
{
	fprintf(out,
	        "Usage: baton capacity [--profile NAME | --cost MS --sla FPS] "
	        "[--encoder SHARE]\n"
	        "                      [--vram SIZE] [--json]\n"
	        "Ask batond whether one more session fits on the GPU, and how "
	        "many more\n"
	        "such sessions would.\n"
	        "\n"
	        "  --profile NAME  a session of that app: its entry in "
	        "batond's config\n"
	        "                  (cost_ms and sla), else a program of "
	        "yours that batond\n"
	        "                  has learned the GPU cost of\n"
	        "  --cost MS       GPU time per frame in ms, in (0, %g]\n"
	        "  --sla FPS       its frame-rate SLA, in [%g, %g]\n"
	        "  --encoder SHARE its stream's share of the GPU's video "
	        "encoder, in (0, 1]\n"
	        "  --vram SIZE     its resident video memory (512M, 2G, "
	        "1.5GiB)\n"
	        "                  (either replaces its profile's encoder or "
	        "vram_mb)\n"
	        "  --json          one JSON object: {\"fits\", \"more\", "
	        "\"reason\", \"source\",\n"
	        "                  \"cost_ms\", \"sla_fps\", \"load\", "
	        "\"newcomer\", \"limit\",\n"
	        "                  \"severe\", \"overloaded\", \"encoder\", "
	        "\"vram_mb\"[, \"profile\"]"
	        "[, \"quality\":\n"
	        "                  {\"fits\", \"more\", \"floor\", \"need\", "
	        "\"budget\", \"refusals\"}]}\n"
	        "                  With several GPUs (batond's gpus) the "
	        "answer is the node's:\n"
	        "                  \"more\" sums what each admits, \"gpus\" "
	        "has each one's\n"
	        "                  {\"name\", \"fits\", \"more\", "
	        "\"reason\", \"load\", \"limit\", \"severe\",\n"
	        "                  \"more_3d\", \"more_encoder\", "
	        "\"more_vram\" (null: does not bind),\n"
	        "                  \"encoder_load\", \"encoder_source\", "
	        "\"vram_free_mb\", \"vram_source\"},\n"
	        "                  and the figures above are the GPU's that "
	        "admits most (\"gpu\").\n"
	        "  --help          this text\n"
	        "\n"
	        "It fits when no tenant was overloaded for cap_quiet periods "
	        "(a join or a\n"
	        "departure restarts the count) and the total load plus the "
	        "newcomer's\n"
	        "(cost x SLA) stays under U_l, and so do the encoder's "
	        "measured load\n"
	        "plus its stream's, and its VRAM fits in what the GPU has "
	        "free; \"more\"\n"
	        "is the smallest of the three counts (docs/capacity.md). Any "
	        "user "
	        "may ask: the\n"
	        "answer shows only the GPU's aggregate load. With batond's "
	        "quality lever on,\n"
	        "a second answer counts on every game going down to its "
	        "cheapest level\n"
	        "(docs/quality.md); the exit status follows the first.\n"
	        "Exit status: 0 it fits, %d it does not, 1 error reply (no "
	        "such profile)\n"
	        "or I/O failure, 2 usage error, 4 batond not running.\n",
	        IPC_COST_MS_MAX, IPC_FPS_MIN, IPC_FPS_MAX, CLI_EXIT_NO_FIT);
}

static int usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "baton capacity: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'baton capacity --help'.\n");
	return CLI_EXIT_USAGE;
}

static bool parse_num(const char *s, double lo, bool lo_open, double hi,
                      double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo ||
	    (lo_open && v == lo) || v > hi)
		return false;
	*out = v;
	return true;
}

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* The encoder's and VRAM's counts where they bind (the first GPU's
 * answer, or the one whose figures the reply gives). */
static void print_counts(FILE *out, json_t *r)
{
	json_t *gpus = json_object_get(r, "gpus");
	const char *name = json_string_value(json_object_get(r, "gpu"));
	json_t *g = NULL, *e;
	size_t i;
	json_array_foreach(gpus, i, e)
	{
		const char *n = json_string_value(json_object_get(e, "name"));
		if (!g || (name && n && strcmp(n, name) == 0))
			g = e;
	}
	json_t *enc = json_object_get(g, "more_encoder");
	json_t *vram = json_object_get(g, "more_vram");
	if (!json_is_integer(enc) && !json_is_integer(vram))
		return;
	fprintf(out, " [3D engine %lld",
	        (long long)json_integer_value(json_object_get(g, "more_3d")));
	if (json_is_integer(enc))
		fprintf(out, ", encoder %lld (load %.2f)",
		        (long long)json_integer_value(enc),
		        num(g, "encoder_load"));
	if (json_is_integer(vram))
		fprintf(out, ", VRAM %lld (%.0f MiB free)",
		        (long long)json_integer_value(vram),
		        num(g, "vram_free_mb"));
	fputc(']', out);
}

/* One line: "fits: 3 more ..." or "does not fit: why". */
void cli_capacity_print(FILE *out, json_t *r)
{
	const char *reason = json_string_value(json_object_get(r, "reason"));
	bool fits = json_is_true(json_object_get(r, "fits"));
	if (fits)
		fprintf(
		    out, "fits: %lld more such session%s",
		    (long long)json_integer_value(json_object_get(r, "more")),
		    json_integer_value(json_object_get(r, "more")) == 1 ? ""
		                                                        : "s");
	else
		fprintf(out, "does not fit: %s", reason ? reason : "?");
	print_counts(out, r);
	fprintf(out,
	        " (total load %.2f + %.3f per session [%.2f ms x %.1f FPS x "
	        "%.2f overhead], limit %.2f)\n",
	        num(r, "load"), num(r, "newcomer"), num(r, "cost_ms"),
	        num(r, "sla_fps"), num(r, "overhead"), num(r, "limit"));
	/* several GPUs (batond's gpus): each one's answer; the line above
	 * is the node's sum, with the figures of the GPU that admits most */
	json_t *gpus = json_object_get(r, "gpus");
	if (json_array_size(gpus) > 1) {
		size_t i;
		json_t *g;
		json_array_foreach(gpus, i, g)
		{
			const char *why =
			    json_string_value(json_object_get(g, "reason"));
			fprintf(out, "  %-12s ",
			        json_string_value(json_object_get(g, "name")));
			if (json_is_true(json_object_get(g, "fits")))
				fprintf(out, "fits %lld more",
				        (long long)json_integer_value(
				            json_object_get(g, "more")));
			else
				fprintf(out, "does not fit: %s",
				        why ? why : "?");
			fprintf(out, " (load %.2f, limit %.2f)\n",
			        num(g, "load"), num(g, "limit"));
		}
	}
	json_t *q = json_object_get(r, "quality");
	if (!json_is_object(q))
		return;
	long long more =
	    (long long)json_integer_value(json_object_get(q, "more"));
	fprintf(out,
	        "with quality levels lowered: %s%lld more (games at their "
	        "cheapest %.2f + %.3f each, budget %.2f); %lld joins "
	        "refused so far\n",
	        json_is_true(json_object_get(q, "fits")) ? "fits, " : "no, ",
	        more, num(q, "floor"), num(q, "need"), num(q, "budget"),
	        (long long)json_integer_value(json_object_get(q, "refusals")));
}

int cli_capacity_ask(struct cli_client *cl, const char *profile, double cost_ms,
                     double sla, const struct cli_capacity_need *need,
                     json_t **reply)
{
	json_t *req = json_pack("{s:s}", "type", "capacity");
	if (!req)
		return CLI_EXIT_FAILURE;
	if (profile) {
		json_object_set_new(req, "profile", json_string(profile));
	} else {
		json_object_set_new(req, "cost_ms", json_real(cost_ms));
		json_object_set_new(req, "sla_fps", json_real(sla));
	}
	if (need && need->encoder > 0.0)
		json_object_set_new(req, "encoder", json_real(need->encoder));
	if (need && need->vram_mb > 0.0)
		json_object_set_new(req, "vram_mb", json_real(need->vram_mb));
	return cli_client_request(cl, req, reply);
}

/* Asks batond and prints its answer: CLI_EXIT_OK when a session fits,
 * CLI_EXIT_NO_FIT when not, else the failure's status. */
static int ask(const char *profile, double cost, double sla,
               const struct cli_capacity_need *need, bool json)
{
	struct cli_client cl;
	int rc = cli_client_open(&cl, "baton capacity");
	if (rc != CLI_EXIT_OK)
		return rc;
	json_t *r = NULL;
	rc = cli_capacity_ask(&cl, profile, cost, sla, need, &r);
	cli_client_close(&cl);
	if (rc != CLI_EXIT_OK)
		return rc;
	bool fits = json_is_true(json_object_get(r, "fits"));
	if (json) {
		json_object_del(r, "type");
		if (json_dumpf(r, stdout, JSON_COMPACT) < 0)
			rc = CLI_EXIT_FAILURE;
		fputc('\n', stdout);
	} else {
		cli_capacity_print(stdout, r);
	}
	json_decref(r);
	if (fflush(stdout) != 0)
		rc = CLI_EXIT_FAILURE;
	return rc != CLI_EXIT_OK ? rc : fits ? CLI_EXIT_OK : CLI_EXIT_NO_FIT;
}

int cmd_capacity(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"profile", required_argument, NULL, 'p'},
	    {"cost", required_argument, NULL, 'c'},
	    {"sla", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},
	    {"encoder", required_argument, NULL, 'e'},
	    {"vram", required_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *profile = NULL;
	double cost = 0.0, sla = 0.0;
	bool json = false, has_cost = false, has_sla = false;
	struct cli_capacity_need need = {0};
	uint64_t vram;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!*optarg || strlen(optarg) >= IPC_NAME_MAX)
				return usage("--profile: 1 to 63 bytes%s", "");
			profile = optarg;
			break;
		case 'c':
			if (!parse_num(optarg, 0.0, true, IPC_COST_MS_MAX,
			               &cost))
				return usage("--cost: '%s' is not a number of "
				             "ms in (0, 10000]",
				             optarg);
			has_cost = true;
			break;
		case 's':
			if (!parse_num(optarg, IPC_FPS_MIN, false, IPC_FPS_MAX,
			               &sla))
				return usage("--sla: '%s' is not a frame rate "
				             "in [1, 1000]",
				             optarg);
			has_sla = true;
			break;
		case 'j':
			json = true;
			break;
		case 'e':
			if (!parse_num(optarg, 0.0, true, 1.0, &need.encoder))
				return usage("--encoder: '%s' is not a share "
				             "of the encoder in (0, 1]",
				             optarg);
			break;
		case 'v':
			if (!vram_size_parse(optarg, &vram) ||
			    (double)vram / (1024.0 * 1024.0) > IPC_VRAM_MB_MAX)
				return usage(
				    "--vram: '%s' is not a size (512M, "
				    "2G, 1.5GiB) up to 16 TiB",
				    optarg);
			need.vram_mb = (double)vram / (1024.0 * 1024.0);
			break;
		case 'h':
			cmd_capacity_help(stdout);
			return CLI_EXIT_OK;
		case ':':
			return usage("%s needs a value", argv[optind - 1]);
		default:
			return usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage("unexpected argument '%s'", argv[optind]);
	if (profile && (has_cost || has_sla))
		return usage("%s", "--profile or --cost and --sla, not both");
	if (!profile && !(has_cost && has_sla))
		return usage("%s", "need --profile NAME, or --cost MS and "
		                   "--sla FPS");

	return ask(profile, cost, sla, &need, json);
}
