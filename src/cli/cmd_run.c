/* baton run [--sla FPS] [--fps FPS] [--cap SHARE] [--name NAME]
 *           [--vram-limit SIZE] [--wait [--wait-timeout S]] -- CMD...
 * baton run --be [--weight W] [--cap SHARE] [--name NAME] -- CMD...
 *
 * Sets the shim's environment (shim/shim.h), puts libbaton_gl.so first in
 * LD_PRELOAD, enables the Vulkan layer and execs the command. Everything
 * else is inherited, so that it also works as a Steam launch option
 * (`baton run -- %command%`), where the command is Steam's own launcher
 * chain: the shim is inert in every process that never presents a frame.
 *
 * --be runs CMD as best-effort compute instead (docs/sdk.md): the launch
 * gates libbaton_cl.so (OpenCL) and libbaton_cuda.so (CUDA), each that
 * this build has, go first in LD_PRELOAD (same rules as the shim's; each
 * is inert in a program that never calls its API), and neither the shim
 * nor the Vulkan layer is loaded. */
#include "cli/cmd_run.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "cli/run_gpu.h"
#include "cli/run_multiarch.h"
#include "cli/run_layer_check.h"
#include "ipc/msg.h"
#include "ipc/vram_size.h"
#include "shim/shim_paths.h"

#define EXIT_USAGE    2
#define EXIT_NOEXEC   126
#define EXIT_NOTFOUND 127

#define SHIM_NAME      "libbaton_gl.so"
#define GATE_NAME      "libbaton_cl.so"
#define CUDA_GATE_NAME "libbaton_cuda.so"
/* The loader's default when XDG_DATA_DIRS is unset (XDG base dir spec). */
#define XDG_DATA_DIRS_DEFAULT "/usr/local/share:/usr/share"

static void run_help_footer(FILE *out);

void cmd_run_help(FILE *out)
{
	fprintf(out,
	        "Usage: baton run [--sla FPS] [--fps FPS] [--cap SHARE] "
	        "[--name NAME]\n"
	        "                 [--vram-limit SIZE] -- CMD [ARGS...]\n"
	        "\n"
	        "Runs CMD with the Baton shim (OpenGL preload and Vulkan "
	        "layer), which\n"
	        "registers it with batond at its first frame and paces it.\n"
	        "\n"
	        "  --sla FPS    frame rate batond must guarantee (default: "
	        "batond's)\n"
	        "  --fps FPS    pin the frame rate locally; works without "
	        "batond\n"
	        "  --cap SHARE  cap CMD's GPU time per second at SHARE of "
	        "one GPU, in (0, 1]\n"
	        "               (0.25: a quarter); works without batond, "
	        "and with a cap\n"
	        "               from batond too the smaller one holds\n"
	        "  --name NAME  tenant name (default: the program's name)\n"
	        "  --wait       before starting CMD, wait until batond says "
	        "one more session\n"
	        "               of its profile (the tenant name: an app "
	        "entry of batond's\n"
	        "               config, or a program of yours it has "
	        "learned) fits, as\n"
	        "               baton capacity --profile NAME (with "
	        "--vram-limit, that\n"
	        "               much VRAM is what it needs); a progress "
	        "line on stderr\n"
	        "  --wait-timeout S\n"
	        "               give up after S seconds (default 300; 0: "
	        "wait forever)\n"
	        "  --be         run CMD as best-effort OpenCL or CUDA compute "
	        "in the games'\n"
	        "               idle GPU time: every kernel launch waits for "
	        "batond's window\n"
	        "               (or the probe loop without batond); not with "
	        "--sla, --fps,\n"
	        "               --wait. BATON_CL_SPLIT=k1,k2 splits those "
	        "OpenCL kernels'\n"
	        "               NDRanges\n"
	        "  --gpu NAME   the GPU CMD renders (or computes) on, by "
	        "batond's name\n"
	        "               for it (baton status); on a GPU that is a "
	        "core set\n"
	        "               CMD runs on its CPUs. Without --gpu (and "
	        "BATON_GPU unset)\n"
	        "               batond places CMD on a GPU that admits "
	        "its profile (its\n"
	        "               config's placement: spread or pack); "
	        "either way CMD gets\n"
	        "               the variables that select that device "
	        "(DRI_PRIME,\n"
	        "               CUDA_VISIBLE_DEVICES, ...; docs/runtime.md)\n"
	        "  --weight W   --be: share among best-effort tenants, in "
	        "(0, 1000] (default 1)\n"
	        "  --vram-limit SIZE\n"
	        "               Vulkan: CMD's allocations on device-local "
	        "heaps fail (out of\n"
	        "               device memory) past SIZE, and the memory "
	        "budget it reads\n"
	        "               says no more; SIZE in bytes or with K, M, G, "
	        "T (powers of\n"
	        "               1024): 512M, 1.5G\n"
	        "  -h, --help   this text\n");
	run_help_footer(out);
}

/* Where the shim and gates are found, and what the exit status says. */
static void run_help_footer(FILE *out)
{
	fprintf(out,
	        "\n"
	        "As a Steam launch option: baton run -- %%command%%\n"
	        "The shim is found through BATON_SHIM_PATH, else next to "
	        "this program\n"
	        "(build tree), else in %s.\n"
	        "The OpenCL gate likewise through BATON_CL_GATE_PATH, else "
	        "in\n"
	        "%s,\n"
	        "and the CUDA gate through BATON_CUDA_GATE_PATH, else in\n"
	        "%s.\n"
	        "--be preloads each gate found; one is enough.\n"
	        "\n"
	        "Exit status: that of CMD; 2 usage error, 126 CMD not "
	        "executable,\n"
	        "127 CMD not found, 1 shim (--be: every gate, or one whose "
	        "path is set)\n"
	        "not found or --wait's question failed (no such profile), 4 "
	        "--wait and\n"
	        "batond not running, 5 --wait timed out or no GPU admits "
	        "the session.\n",
	        BATON_INSTALL_SHIM, BATON_INSTALL_CL_GATE,
	        BATON_INSTALL_CUDA_GATE);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("baton run: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'baton run --help'.\n", stderr);
	return EXIT_USAGE;
}

/* The shim's own grammar (shim_parse_decimal: digits, an optional dot and
 * digits), so that what we accept the shim reads the same way; true and
 * the value in *out. */
static bool parse_decimal(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789");
	if (digits == 0 || digits > 4)
		return false;
	const char *p = s + digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, "0123456789");
		if (frac == 0)
			return false;
		p += 1 + frac;
	}
	if (*p)
		return false;
	*out = strtod(s, NULL);
	return true;
}

/* Within the shim's range. */
static bool valid_fps(const char *s)
{
	double v;
	return parse_decimal(s, &v) && v >= IPC_FPS_MIN && v <= IPC_FPS_MAX;
}

/* A share of one GPU in (0, 1] (shim_parse_cap; NaN has no digits). */
static bool valid_cap(const char *s)
{
	double v;
	return parse_decimal(s, &v) && v > 0.0 && v <= 1.0;
}

static bool is_file(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The folder of this executable, or false. */
static bool exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

/* Appends "  path suffix\n" to the list of paths tried, for the error
 * message. A list that no longer fits ends in "...": the paths already
 * there say where the search went. */
static void note_tried(char *tried, size_t tried_len, const char *path,
                       const char *suffix)
{
	size_t used = strlen(tried);
	if (used + 4 >= tried_len)
		return; /* full: "...\n" is there already */
	size_t room = tried_len - used;
	int n = snprintf(tried + used, room, "  %s%s\n", path, suffix);
	if (n < 0 || (size_t)n >= room)
		memcpy(tried + tried_len - 5, "...\n", 5);
}

/* Tries dir/rel; on success leaves the path in out. A path longer than
 * out is not tried (its truncation would be another file). */
static bool try_path(char *out, size_t len, const char *dir, const char *rel,
                     char *tried, size_t tried_len)
{
	int n = snprintf(out, len, "%s/%s", dir, rel);
	if (n < 0 || (size_t)n >= len) {
		note_tried(tried, tried_len, rel, " (path too long)");
		return false;
	}
	if (is_file(out))
		return true;
	note_tried(tried, tried_len, out, "");
	return false;
}

/* A preload: $env, else the build tree around this program (rel, from
 * build/src/cli), else the installed copy, relative to this program first
 * so a relocated prefix works, then at its configured path. */
static bool find_preload(const char *env_name, const char *const *rel,
                         size_t nrel, const char *installed, char *out,
                         size_t len, char *tried, size_t tried_len)
{
	const char *env = getenv(env_name);
	if (env && *env) {
		char why[64];
		int n = snprintf(out, len, "%s", env);
		if (n >= 0 && (size_t)n < len && is_file(out))
			return true;
		snprintf(why, sizeof(why), " (%s%s)", env_name,
		         n >= 0 && (size_t)n < len ? "" : ", too long");
		note_tried(tried, tried_len, env, why);
		return false;
	}
	char dir[PATH_MAX];
	if (exe_dir(dir, sizeof(dir))) {
		for (size_t i = 0; i < nrel; i++) {
			if (try_path(out, len, dir, rel[i], tried, tried_len))
				return true;
		}
	}
	int n = snprintf(out, len, "%s", installed);
	if (n >= 0 && (size_t)n < len && is_file(out))
		return true;
	note_tried(tried, tried_len, installed, "");
	return false;
}

static bool find_shim(char *out, size_t len, char *tried, size_t tried_len)
{
	static const char *const rel[] = {
	    /* links to this build's and its i386 pair's: one LD_PRELOAD
	     * entry through $LIB serves both (run_multiarch.c) */
	    "../shim/gl/multiarch/" BATON_LIB_SELF "/baton/" SHIM_NAME,
	    "../shim/gl/" SHIM_NAME,
	    "../../src/shim/gl/" SHIM_NAME,
	    "../../../src/shim/gl/" SHIM_NAME,
	    "../" BATON_INSTALL_LIBDIR_REL "/baton/" SHIM_NAME,
	};
	return find_preload("BATON_SHIM_PATH", rel, sizeof(rel) / sizeof(*rel),
	                    BATON_INSTALL_SHIM, out, len, tried, tried_len);
}

static bool find_gate(char *out, size_t len, char *tried, size_t tried_len)
{
	static const char *const rel[] = {
	    "../sdk/cl/" GATE_NAME,
	    "../../src/sdk/cl/" GATE_NAME,
	    "../../../src/sdk/cl/" GATE_NAME,
	    "../" BATON_INSTALL_LIBDIR_REL "/baton/" GATE_NAME,
	};
	return find_preload("BATON_CL_GATE_PATH", rel,
	                    sizeof(rel) / sizeof(*rel), BATON_INSTALL_CL_GATE,
	                    out, len, tried, tried_len);
}

static bool find_cuda_gate(char *out, size_t len, char *tried, size_t tried_len)
{
	static const char *const rel[] = {
	    "../sdk/cuda/" CUDA_GATE_NAME,
	    "../../src/sdk/cuda/" CUDA_GATE_NAME,
	    "../../../src/sdk/cuda/" CUDA_GATE_NAME,
	    "../" BATON_INSTALL_LIBDIR_REL "/baton/" CUDA_GATE_NAME,
	};
	return find_preload("BATON_CUDA_GATE_PATH", rel,
	                    sizeof(rel) / sizeof(*rel), BATON_INSTALL_CUDA_GATE,
	                    out, len, tried, tried_len);
}

/* True if data_dir/vulkan/implicit_layer.d holds a Baton manifest. */
static bool has_layer(const char *data_dir)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/" LAYER_SUBDIR, data_dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return false; /* no such folder can exist */
	DIR *d = opendir(path);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d)))
		found = strncmp(e->d_name, "VkLayer_baton", 13) == 0;
	closedir(d);
	return found;
}

/* True if dir is one of the colon-separated entries of list. */
static bool in_path_list(const char *list, const char *dir)
{
	size_t n = strlen(dir);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, dir, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* The Vulkan layer is implicit: the loader loads it from an XDG data
 * folder's vulkan/implicit_layer.d when ENABLE_BATON_LAYER=1.
 * VK_ADD_LAYER_PATH would not do: the 1.3.239 loader reads it for
 * explicit layers only, and lists an implicit manifest found there without
 * loading it. So the layer's data folder goes first in XDG_DATA_DIRS,
 * unless the loader searches it already. Silently nothing if there is no
 * layer (a build without Vulkan). */
static void add_vulkan_layer(void)
{
	char dir[PATH_MAX], cand[PATH_MAX], layer[PATH_MAX];
	const char *found = NULL;
	if (exe_dir(dir, sizeof(dir))) {
		static const char *const rel[] = {
		    "../shim/vulkan/layer.d",
		    "../../src/shim/vulkan/layer.d",
		    "../../../src/shim/vulkan/layer.d",
		    /* the installed tree: bin/../share */
		    ("../" BATON_INSTALL_DATADIR_REL),
		};
		for (size_t i = 0; !found && i < sizeof(rel) / sizeof(rel[0]);
		     i++) {
			int n =
			    snprintf(cand, sizeof(cand), "%s/%s", dir, rel[i]);
			if (n > 0 && (size_t)n < sizeof(cand) &&
			    realpath(cand, layer) && has_layer(layer))
				found = layer;
		}
	}
	if (!found && has_layer(BATON_INSTALL_DATADIR))
		found = BATON_INSTALL_DATADIR;
	setenv("ENABLE_BATON_LAYER", "1", 1);
	if (!found)
		return;
	run_check_layer_libraries(found);
	const char *old = getenv("XDG_DATA_DIRS");
	if (!old || !*old)
		old = XDG_DATA_DIRS_DEFAULT;
	if (in_path_list(old, found))
		return;
	size_t len = strlen(found) + 1 + strlen(old) + 1;
	char *v = malloc(len);
	if (!v)
		return;
	snprintf(v, len, "%s:%s", found, old);
	setenv("XDG_DATA_DIRS", v, 1);
	free(v);
}

/* Puts the shim first in LD_PRELOAD (once: a nested `baton run` must not
 * preload it twice). */
static bool add_preload(const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	if (old && in_path_list(old, shim))
		return true;
	size_t len = strlen(shim) + 1 + (old ? strlen(old) : 0) + 1;
	char *v = malloc(len);
	if (!v)
		return false;
	if (old && *old)
		snprintf(v, len, "%s:%s", shim, old);
	else
		snprintf(v, len, "%s", shim);
	int r = setenv("LD_PRELOAD", v, 1);
	free(v);
	return r == 0;
}

/* --wait: asks batond every second until a session of profile fits, with
 * a progress line on stderr when the answer changes and every 10 s. */
static int wait_for_room(const char *profile,
                         const struct cli_capacity_need *need, double timeout_s)
{
	struct cli_client cl;
	int rc = cli_client_open(&cl, "baton run --wait");
	if (rc != CLI_EXIT_OK)
		return rc;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char last[128] = "";
	double said = -1e9;
	for (;;) {
		json_t *r = NULL;
		rc = cli_capacity_ask(&cl, profile, 0.0, 0.0, need, &r);
		if (rc != CLI_EXIT_OK)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double el = (double)(now.tv_sec - t0.tv_sec) +
		            (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
		const char *why =
		    json_string_value(json_object_get(r, "reason"));
		bool fits = json_is_true(json_object_get(r, "fits"));
		if (fits) {
			if (said > -1e9)
				fprintf(stderr,
				        "baton run: a session of %s fits after "
				        "%.0f s\n",
				        profile, el);
			json_decref(r);
			break;
		}
		if (strcmp(last, why ? why : "?") != 0 || el - said >= 10.0) {
			fprintf(stderr,
			        "baton run: waiting for room for %s (%.0f s): ",
			        profile, el);
			cli_capacity_print(stderr, r);
			snprintf(last, sizeof(last), "%s", why ? why : "?");
			said = el;
		}
		json_decref(r);
		if (timeout_s > 0.0 && el >= timeout_s) {
			fprintf(stderr,
			        "baton run: no room for a session of %s after "
			        "%.0f s (--wait-timeout); not starting it\n",
			        profile, timeout_s);
			rc = CLI_EXIT_NO_FIT;
			break;
		}
		struct timespec one = {1, 0};
		nanosleep(&one, NULL);
	}
	cli_client_close(&cl);
	return rc;
}

/* Puts path (found, made absolute; through $LIB where both word sizes
 * have it) first in LD_PRELOAD; 1 on failure, said on stderr. */
static int preload_path(const char *found)
{
	char entry[PATH_MAX];
	/* Absolute: the game's launcher may change directory before it
	 * starts the game, and the preload is resolved at every exec. */
	if (!run_preload_entry(found, entry, sizeof(entry)))
		return 1;
	/* ld.so splits LD_PRELOAD at spaces and colons. */
	if (strpbrk(entry, " :")) {
		fprintf(stderr,
		        "baton run: %s: LD_PRELOAD cannot hold a path "
		        "with a space or a colon\n",
		        entry);
		return 1;
	}
	if (!add_preload(entry)) {
		perror("baton run: setenv");
		return 1;
	}
	return 0;
}

static int exec_command(char **cmd)
{
	execvp(cmd[0], cmd);
	int err = errno;
	fprintf(stderr, "baton run: %s: %s\n", cmd[0],
	        err == ENOENT ? "command not found" : strerror(err));
	return err == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

static bool env_set(const char *name)
{
	const char *v = getenv(name);
	return v && *v;
}

/* --be: the gates' environment and preloads, then CMD. A build has the
 * gates of the APIs it found headers for; one of them is enough, but a
 * gate whose path the caller set must be there. */
static int run_be(char **cmd, const char *weight, const char *cap,
                  const char *name)
{
	char cl[PATH_MAX], cu[PATH_MAX], tried[4 * PATH_MAX] = "";
	bool have_cl = find_gate(cl, sizeof(cl), tried, sizeof(tried));
	bool have_cu = find_cuda_gate(cu, sizeof(cu), tried, sizeof(tried));
	if ((!have_cl && !have_cu) ||
	    (!have_cl && env_set("BATON_CL_GATE_PATH")) ||
	    (!have_cu && env_set("BATON_CUDA_GATE_PATH"))) {
		fprintf(stderr,
		        "baton run: cannot find the launch gate " GATE_NAME
		        " (built with OpenCL only) or " CUDA_GATE_NAME
		        " (built with cuda.h only); tried:\n%s"
		        "Set BATON_CL_GATE_PATH or BATON_CUDA_GATE_PATH to "
		        "its location.\n",
		        tried);
		return 1;
	}
	if ((weight && setenv("BATON_BE_WEIGHT", weight, 1)) ||
	    (cap && setenv("BATON_CAP", cap, 1)) ||
	    (name && setenv("BATON_NAME", name, 1))) {
		perror("baton run: setenv");
		return 1;
	}
	/* The CUDA gate, then the OpenCL gate before it. */
	int rc = have_cu ? preload_path(cu) : 0;
	if (!rc && have_cl)
		rc = preload_path(cl);
	return rc ? rc : exec_command(cmd);
}

/* What the options asked for (NULL: not given). */
struct run_opts {
	const char *sla, *fps, *cap, *name, *weight, *gpu, *vram_limit;
	bool wait, be;
	double wait_timeout;
};

/* --wait-timeout's seconds; false if they are not a number in [0, 1e7]. */
static bool parse_wait_timeout(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0.0 || v > 1e7)
		return false;
	*out = v;
	return true;
}

/* One option but --help: -1 when taken, else a usage error's status. */
static int parse_option(int c, const char *arg, struct run_opts *o)
{
	double v;
	switch (c) {
	case 's':
		if (!valid_fps(arg))
			return usage_error("--sla: '%s' is not a frame rate in "
			                   "[1, 1000]",
			                   arg);
		o->sla = arg;
		return -1;
	case 'f':
		if (!valid_fps(arg))
			return usage_error("--fps: '%s' is not a frame rate in "
			                   "[1, 1000]",
			                   arg);
		o->fps = arg;
		return -1;
	case 'c':
		if (!valid_cap(arg))
			return usage_error("--cap: '%s' is not a share of "
			                   "one GPU in (0, 1]",
			                   arg);
		o->cap = arg;
		return -1;
	case 'n':
		if (!*arg)
			return usage_error("--name: empty name%s", "");
		o->name = arg;
		return -1;
	case 'w':
		o->wait = true;
		return -1;
	case 't':
		if (!parse_wait_timeout(arg, &o->wait_timeout))
			return usage_error("--wait-timeout: '%s' is not a "
			                   "number of seconds in [0, 1e7]",
			                   arg);
		return -1;
	case 'b':
		o->be = true;
		return -1;
	case 'W':
		if (!parse_decimal(arg, &v) || !(v > 0.0) || v > 1000.0)
			return usage_error("--weight: '%s' is not a "
			                   "weight in (0, 1000]",
			                   arg);
		o->weight = arg;
		return -1;
	case 'g':
		o->gpu = arg;
		return -1;
	case 'V': {
		uint64_t bytes;
		if (!vram_size_parse(arg, &bytes))
			return usage_error("--vram-limit: '%s' is not a size "
			                   "such as 512M or 2G",
			                   arg);
		o->vram_limit = arg;
		return -1;
	}
	}
	return EXIT_USAGE; /* not an option of opts: the caller's check */
}

/* The session's profile: the tenant name the shim will register. */
static const char *profile_name(const struct run_opts *o, const char *cmd)
{
	const char *prof = o->name;
	if (!prof) {
		prof = strrchr(cmd, '/');
		prof = prof ? prof + 1 : cmd;
	}
	return prof;
}

/* --wait: the profile is the tenant name the shim will register. */
static int wait_for_profile(const struct run_opts *o, const char *cmd)
{
	const char *prof = profile_name(o, cmd);
	if (!*prof || strlen(prof) >= IPC_NAME_MAX)
		return usage_error("--wait: '%s' is no profile name "
		                   "(give --name)",
		                   prof);
	/* with --vram-limit, the session needs at most that much VRAM:
	 * admission counts it in place of the profile's vram_mb */
	struct cli_capacity_need need = {0};
	uint64_t bytes;
	if (o->vram_limit && vram_size_parse(o->vram_limit, &bytes))
		need.vram_mb = (double)bytes / (1024.0 * 1024.0);
	return wait_for_room(prof, &need, o->wait_timeout);
}

/* A game: the shim's environment and preload, the Vulkan layer, then
 * CMD. */
static int run_game(char **cmd, const struct run_opts *o)
{
	char found[PATH_MAX], tried[4 * PATH_MAX] = "";
	if (!find_shim(found, sizeof(found), tried, sizeof(tried))) {
		fprintf(stderr,
		        "baton run: cannot find " SHIM_NAME "; tried:\n%s"
		        "Set BATON_SHIM_PATH to its location.\n",
		        tried);
		return 1;
	}
	if ((o->sla && setenv("BATON_SLA", o->sla, 1)) ||
	    (o->fps && setenv("BATON_FPS", o->fps, 1)) ||
	    (o->cap && setenv("BATON_CAP", o->cap, 1)) ||
	    (o->name && setenv("BATON_NAME", o->name, 1)) ||
	    (o->vram_limit && setenv(BATON_VRAM_LIMIT_ENV, o->vram_limit, 1))) {
		perror("baton run: setenv");
		return 1;
	}
	int rc = preload_path(found);
	if (rc)
		return rc;
	add_vulkan_layer();
	return exec_command(cmd);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"sla", required_argument, NULL, 's'},
	    {"fps", required_argument, NULL, 'f'},
	    {"cap", required_argument, NULL, 'c'},
	    {"name", required_argument, NULL, 'n'},
	    {"wait", no_argument, NULL, 'w'},
	    {"wait-timeout", required_argument, NULL, 't'},
	    {"be", no_argument, NULL, 'b'},
	    {"weight", required_argument, NULL, 'W'},
	    {"gpu", required_argument, NULL, 'g'},
	    {"vram-limit", required_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct run_opts o = {.wait_timeout = 300.0};
	int c;
	opterr = 0;
	optind = 0; /* glibc: start over, whoever parsed before */
	/* '+': stop at the command, whose own options are its business. */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			cmd_run_help(stdout);
			return 0;
		}
		if (!strchr("sfcnwtbWgV", c)) /* '?': unknown or incomplete */
			return usage_error("unknown or incomplete option '%s'",
			                   argv[optind - 1]);
		int rc = parse_option(c, optarg, &o);
		if (rc >= 0)
			return rc;
	}
	if (optind >= argc)
		return usage_error("no command to run%s", "");
	if (o.be && (o.sla || o.fps || o.wait || o.vram_limit))
		return usage_error("--be: best-effort work has no frame rate "
		                   "(--sla, --fps), --wait nor --vram-limit%s",
		                   "");
	if (o.weight && !o.be)
		return usage_error("--weight: only with --be%s", "");
	/* --wait first: it waits for room on the node, placement then
	 * finds the GPU that has it. */
	if (o.wait) {
		int rc = wait_for_profile(&o, argv[optind]);
		if (rc != 0)
			return rc;
	}
	int grc = 0;
	if (o.gpu)
		grc = run_gpu_select(o.gpu);
	else if (!getenv("BATON_GPU")) /* a caller's choice stands */
		grc = run_gpu_place(profile_name(&o, argv[optind]));
	if (grc)
		return grc;
	if (o.be)
		return run_be(argv + optind, o.weight, o.cap, o.name);
	return run_game(&argv[optind], &o);
}
