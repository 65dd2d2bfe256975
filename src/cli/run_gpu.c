/* baton run --gpu NAME (cmd_run.c): the GPU the game renders on, among
 * the ones batond runs a controller for (its gpus request). The shim
 * tells batond (BATON_GPU, in its hello); a logical GPU on a software
 * rasterizer is a core set, and the game is confined to it before it
 * starts, so that llvmpipe's threads render there. */
#include "cli/run_gpu.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "ipc/cpu_list.h"

/* "a, b, c" of the GPUs' names into out. */
static void names(json_t *gpus, char *out, size_t len)
{
	size_t i, at = 0;
	json_t *g;
	out[0] = '\0';
	json_array_foreach(gpus, i, g)
	{
		const char *n = json_string_value(json_object_get(g, "name"));
		int w = snprintf(out + at, len - at, "%s%s", i ? ", " : "",
		                 n ? n : "?");
		if (w < 0 || (size_t)w >= len - at)
			return;
		at += (size_t)w;
	}
}

/* The CPU list of the GPU named (or whose device is) gpu: 0 and *cpus
 * (malloc'ed, "" for a hardware GPU); 1 when batond has no such GPU or
 * answers an error, said on stderr; CLI_EXIT_NO_DAEMON. */
static int ask(const char *gpu, char **cpus)
{
	struct cli_client cl;
	int rc = cli_client_open(&cl, "baton run --gpu");
	if (rc != CLI_EXIT_OK)
		return rc;
	json_t *r = NULL;
	rc = cli_client_request(&cl, json_pack("{s:s}", "type", "gpus"), &r);
	cli_client_close(&cl);
	if (rc != CLI_EXIT_OK)
		return rc;
	json_t *gpus = json_object_get(r, "gpus");
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g)
	{
		const char *n = json_string_value(json_object_get(g, "name"));
		const char *d = json_string_value(json_object_get(g, "device"));
		if ((n && strcmp(n, gpu) == 0) ||
		    (d && d[0] && strcmp(d, gpu) == 0)) {
			const char *c =
			    json_string_value(json_object_get(g, "cpus"));
			*cpus = strdup(c ? c : "");
			json_decref(r);
			return *cpus ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
		}
	}
	char have[256];
	names(gpus, have, sizeof(have));
	fprintf(stderr,
	        "baton run: --gpu: batond has no GPU \"%s\" (it has "
	        "%s; baton status lists them)\n",
	        gpu, have);
	json_decref(r);
	return CLI_EXIT_FAILURE;
}

int run_gpu_select(const char *gpu)
{
	if (!*gpu || strlen(gpu) >= 32) {
		fprintf(stderr,
		        "baton run: --gpu: '%s' is not a GPU name "
		        "(1 to 31 bytes)\n",
		        gpu);
		return 2;
	}
	char *cpus = NULL;
	int rc = ask(gpu, &cpus);
	if (rc == CLI_EXIT_NO_DAEMON) {
		/* The game still starts: batond may come later, and the
		 * shim names the GPU when it registers. */
		fprintf(stderr,
		        "baton run: --gpu %s: batond is not running; "
		        "the game is not confined to that GPU's CPUs\n",
		        gpu);
		rc = CLI_EXIT_OK;
	}
	if (rc != CLI_EXIT_OK)
		return 1;
	if (cpus && cpus[0]) {
		cpu_set_t set;
		char why[128];
		if (!ipc_cpu_list_parse(cpus, &set, why, sizeof(why)) ||
		    sched_setaffinity(0, sizeof(set), &set) != 0) {
			fprintf(stderr,
			        "baton run: --gpu %s: cannot run on "
			        "its CPUs %s\n",
			        gpu, cpus);
			free(cpus);
			return 1;
		}
	}
	free(cpus);
	if (setenv("BATON_GPU", gpu, 1) != 0) {
		perror("baton run: setenv");
		return 1;
	}
	return 0;
}
