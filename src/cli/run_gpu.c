/* baton run's GPU (cmd_run.c): with --gpu NAME the one named, among the
 * ones batond runs a controller for (its gpus request); without, where
 * batond places the session (its place request: each GPU's admission,
 * then the config's placement, spread or pack). Either way the shim
 * tells batond (BATON_GPU, in its hello), each API gets the variables
 * that select that device (run_gpu_env.h), and on a logical GPU, a core
 * set, the game is confined to it before it starts, so that llvmpipe's
 * threads render there. */
#include "cli/run_gpu.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/run_gpu_env.h"
#include "ipc/cpu_list.h"
#include "ipc/msg.h"
#include "ipc/peer_cred.h"
#include "ipc/socket_path.h"

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* "a, b, c" of the GPUs' names into out. */
static void names(json_t *gpus, char *out, size_t len)
{
	size_t i, at = 0;
	json_t *g;
	out[0] = '\0';
	json_array_foreach(gpus, i, g)
	{
		int w = snprintf(out + at, len - at, "%s%s", i ? ", " : "",
		                 str(g, "name"));
		if (w < 0 || (size_t)w >= len - at)
			return;
		at += (size_t)w;
	}
}

/* Puts this process (and what it execs) on GPU g as batond described it:
 * its CPUs when it is a core set, and the device-selection environment.
 * 0, or 1 said on stderr (what names the choice in the message). */
static int apply(json_t *g, const char *what)
{
	const char *cpus = str(g, "cpus");
	if (cpus[0]) {
		cpu_set_t set;
		char why[128];
		if (!ipc_cpu_list_parse(cpus, &set, why, sizeof(why)) ||
		    sched_setaffinity(0, sizeof(set), &set) != 0) {
			fprintf(stderr,
			        "baton run: %s: cannot run on its CPUs %s\n",
			        what, cpus);
			return 1;
		}
	}
	struct run_gpu_target t = {.name = str(g, "name"),
	                           .pci = str(g, "pci"),
	                           .uuid = str(g, "uuid"),
	                           .kind = str(g, "kind")};
	struct run_gpu_env env;
	run_gpu_env_for(&t, &env);
	for (size_t i = 0; i < env.n; i++)
		if (setenv(env.v[i].key, env.v[i].value, 1) != 0) {
			perror("baton run: setenv");
			return 1;
		}
	return 0;
}

/* One request to batond, its reply in *r: cli_client's codes. */
static int ask(json_t *req, const char *prog, json_t **r)
{
	struct cli_client cl;
	int rc = cli_client_open(&cl, prog);
	if (rc != CLI_EXIT_OK) {
		json_decref(req);
		return rc;
	}
	rc = cli_client_request(&cl, req, r);
	cli_client_close(&cl);
	return rc;
}

/* The entry of gpus named (or whose device is) gpu, NULL when none. */
static json_t *find(json_t *gpus, const char *gpu)
{
	size_t i;
	json_t *g;
	json_array_foreach(gpus, i, g)
	{
		const char *d = str(g, "device");
		if (strcmp(str(g, "name"), gpu) == 0 ||
		    (d[0] && strcmp(d, gpu) == 0))
			return g;
	}
	return NULL;
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
	json_t *r = NULL;
	int rc = ask(json_pack("{s:s}", "type", "gpus"), "baton run --gpu", &r);
	if (rc == CLI_EXIT_NO_DAEMON) {
		/* The game still starts: batond may come later, and the
		 * shim names the GPU when it registers. */
		fprintf(stderr,
		        "baton run: --gpu %s: batond is not running; "
		        "the game is not confined to that GPU's CPUs\n",
		        gpu);
		return setenv("BATON_GPU", gpu, 1) != 0;
	}
	if (rc != CLI_EXIT_OK)
		return 1;
	json_t *gpus = json_object_get(r, "gpus");
	json_t *g = find(gpus, gpu);
	if (!g) {
		char have[256];
		names(gpus, have, sizeof(have));
		fprintf(stderr,
		        "baton run: --gpu: batond has no GPU \"%s\" (it has "
		        "%s; baton status lists them)\n",
		        gpu, have);
		json_decref(r);
		return 1;
	}
	char what[64];
	snprintf(what, sizeof(what), "--gpu %s", gpu);
	rc = apply(g, what);
	json_decref(r);
	return rc;
}

/* A refusal: every GPU's reason on stderr. */
static void say_refused(json_t *r)
{
	fprintf(stderr, "baton run: %s (placement %s, cost %s):\n",
	        str(r, "reason"), str(r, "by"), str(r, "cost"));
	size_t i;
	json_t *g;
	json_array_foreach(json_object_get(r, "gpus"), i, g)
	{
		fprintf(stderr,
		        "  %s: %s (load %.2f, limit %.2f, %lld "
		        "sessions)\n",
		        str(g, "name"), str(g, "reason"),
		        json_number_value(json_object_get(g, "load")),
		        json_number_value(json_object_get(g, "limit")),
		        (long long)json_integer_value(
		            json_object_get(g, "tenants")));
	}
	fprintf(stderr, "baton run: baton capacity says when one fits; "
	                "--gpu NAME starts it on a GPU regardless\n");
}

/* Whether a daemon Baton trusts listens on path, asked without a word:
 * where none does, placement is skipped and the game starts as it
 * always did; the shim says once why it does not register. */
static bool trusted_daemon(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(a.sun_path))
		return false;
	memcpy(a.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	uid_t uid;
	char why[PATH_MAX + 256];
	bool ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	          ipc_daemon_trusted(fd, path, &uid, why, sizeof(why));
	close(fd);
	return ok;
}

int run_gpu_place(const char *profile)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	if (!ipc_socket_path(path, sizeof(path)) || !trusted_daemon(path))
		return 0;
	json_t *req = json_pack("{s:s}", "type", "place");
	if (req && profile && *profile && strlen(profile) < IPC_NAME_MAX)
		json_object_set_new(req, "profile", json_string(profile));
	json_t *r = NULL;
	int rc = ask(req, "baton run", &r);
	if (rc != CLI_EXIT_OK) {
		/* Said on stderr by the client: the game starts unplaced
		 * rather than not at all. */
		fprintf(stderr, "baton run: not placed by batond; the game "
		                "starts without a GPU chosen for it\n");
		return 0;
	}
	if (!json_is_true(json_object_get(r, "placed"))) {
		say_refused(r);
		json_decref(r);
		return CLI_EXIT_NO_FIT;
	}
	json_t *g = json_object_get(r, "gpu");
	char what[64];
	snprintf(what, sizeof(what), "placed on %s", str(g, "name"));
	rc = apply(g, what);
	json_decref(r);
	return rc;
}
