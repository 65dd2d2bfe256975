/* baton profile [options] -- CMD ARGS...: runs an SDK game once per quality
 * level (BATON_QUALITY_LEVEL=l, BATON_PROFILE_DIR=DIR/level-l; the
 * protocol is in docs/quality.md), then fits and saves its per-level cost
 * and benefit models (profile_fit.c) and prints their held-out error. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/profile.h"

struct popts {
	size_t levels, warmup;
	enum core_qm_mode mode;
	bool json;
	const char *game, *out, *model_dir, *keep, *from;
	char **cmd;
};

void cmd_profile_help(FILE *out)
{
	fprintf(
	    out,
	    "Usage: baton profile [options] -- CMD [ARGS...]\n"
	    "Profile an SDK game (dJay's dual execution): run CMD once per "
	    "quality level,\nbest level first, with BATON_QUALITY_LEVEL=L and "
	    "BATON_PROFILE_DIR=DIR/level-L\nin its environment; the game "
	    "writes "
	    "there a capture per frame\n(frame_NNNNNN.ppm) and frames.csv (see "
	    "docs/quality.md). Then compute each\nframe's SSIM against the "
	    "best "
	    "level's same frame, fit the per-level cost and\nbenefit models, "
	    "save them, and print the estimation error per level and area\n"
	    "(fitted on even rows, tested on odd rows; the saved fit uses all "
	    "rows).\n\n"
	    "Options:\n"
	    "  --levels N       the game's number of quality levels (default "
	    "3)\n"
	    "  --warmup N       leave each run's first N frames (shader\n"
	    "                   compilation, cold caches) out of the fits and\n"
	    "                   the table (default 2)\n"
	    "  --game ID        the game id in the model file (default: CMD's "
	    "name)\n"
	    "  --out FILE       the model file (default MODEL_DIR/ID.json)\n"
	    "  --model-dir DIR  where the default model file goes (default .)\n"
	    "  --paper          fit in dJay's paper mode (OLS, no intercept)\n"
	    "                   instead of Baton's (intercept + NNLS)\n"
	    "  --json           print the table as JSON on stdout\n"
	    "  --from DIR       analyse DIR, kept by an earlier --keep, "
	    "instead\n"
	    "                   of running a CMD (needs --game)\n"
	    "  --keep DIR       keep the captures and CSVs in DIR, which must\n"
	    "                   not hold an earlier run (default: a temporary\n"
	    "                   directory, removed at the end)\n\n"
	    "Exit status: 0 ok, 1 runtime failure (I/O, memory, fit), 2 usage "
	    "error,\n3 bad game output (no frames.csv, a malformed line, "
	    "frames "
	    "or captures\nthat differ between levels), 6 the game failed, 126 "
	    "CMD cannot be run,\n127 CMD not found.\n");
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "baton profile: %s%s\nTry 'baton profile --help'.\n",
	        msg, arg ? arg : "");
	return CLI_EXIT_USAGE;
}

static int parse(int argc, char **argv, struct popts *o)
{
	*o = (struct popts){.levels = 3, .warmup = 2, .mode = CORE_QM_BATON};
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			cmd_profile_help(stdout);
			return -1;
		}
		if (!strcmp(a, "--paper")) {
			o->mode = CORE_QM_PAPER;
			continue;
		}
		if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		}
		const char **slot = !strcmp(a, "--game")        ? &o->game
		                    : !strcmp(a, "--out")       ? &o->out
		                    : !strcmp(a, "--model-dir") ? &o->model_dir
		                    : !strcmp(a, "--keep")      ? &o->keep
		                    : !strcmp(a, "--from")      ? &o->from
		                                                : NULL;
		bool warm = !strcmp(a, "--warmup");
		if (!slot && !warm && strcmp(a, "--levels") != 0)
			return usage_error("unknown option ", a);
		if (i + 1 >= argc || !argv[i + 1][0])
			return usage_error("a value is needed after ", a);
		const char *v = argv[++i];
		if (slot) {
			*slot = v;
			continue;
		}
		char *end;
		errno = 0;
		unsigned long n = strtoul(v, &end, 10);
		if (warm) {
			if (*end || v[0] == '-' || errno || n > 1000000)
				return usage_error("--warmup: not a frame "
				                   "count: ",
				                   v);
			o->warmup = n;
			continue;
		}
		if (*end || v[0] == '-' || n < 2 ||
		    n > QUALITY_MODEL_MAX_LEVELS)
			return usage_error("--levels: not 2 to 8: ", v);
		o->levels = n;
	}
	if (o->from) {
		if (i < argc)
			return usage_error("--from analyses a kept "
			                   "directory; no CMD: ",
			                   argv[i]);
		if (!o->game || o->keep)
			return usage_error("--from needs --game and no "
			                   "--keep",
			                   NULL);
		return 0;
	}
	if (i >= argc)
		return usage_error("no game command (baton profile [options] "
		                   "-- CMD ...)",
		                   NULL);
	o->cmd = argv + i;
	return 0;
}

static int unlink_one(const char *path, const struct stat *sb, int flag,
                      struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		fprintf(stderr, "baton profile: %s: %s\n", path,
		        strerror(errno));
	return 0;
}

/* The temporary directory (never --keep's) and everything in it. */
static void remove_tree(const char *root)
{
	nftw(root, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool game_id_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= QUALITY_GAME_MAX || n > 31)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
		            "YZ0123456789-_.",
		            s[i]))
			return false;
	return true;
}

/* Reads and checks level l's CSV; its SSIM against the best level. */
static int collect(const struct popts *o, struct profile_run *run, size_t l,
                   const char *root, bool tty)
{
	char dir[DIR_MAX], csv[FILE_MAX], err[1024];
	char best_dir[DIR_MAX], best_csv[FILE_MAX];
	size_t top = o->levels - 1;
	snprintf(dir, sizeof(dir), "%s/level-%zu", root, l);
	snprintf(csv, sizeof(csv), "%s/frames.csv", dir);
	snprintf(best_dir, sizeof(best_dir), "%s/level-%zu", root, top);
	snprintf(best_csv, sizeof(best_csv), "%s/frames.csv", best_dir);
	struct profile_level *lv = &run->lv[l];
	if (!profile_csv_read(csv, &lv->csv, err, sizeof(err))) {
		int e = errno; /* fprintf may change it */
		if (e == ENOENT)
			fprintf(
			    stderr,
			    "baton profile: level %zu: %s wrote no %s (does "
			    "it implement BATON_PROFILE_DIR?)\n",
			    l, o->cmd ? o->cmd[0] : "the game", csv);
		else
			fprintf(stderr, "baton profile: %s\n", err);
		return e == EINVAL || e == ENOENT ? CLI_EXIT_INVALID
		                                  : CLI_EXIT_FAILURE;
	}
	if (lv->csv.level >= 0 && (size_t)lv->csv.level != l) {
		fprintf(stderr,
		        "baton profile: %s: the game drew level %lld, not %zu "
		        "(does it honour BATON_QUALITY_LEVEL?)\n",
		        csv, (long long)lv->csv.level, l);
		return CLI_EXIT_INVALID;
	}
	if (l == top) {
		lv->ssim = malloc(lv->csv.rows * sizeof(double));
		if (!lv->ssim)
			return CLI_EXIT_FAILURE;
		for (size_t i = 0; i < lv->csv.rows; i++)
			lv->ssim[i] = 1.0; /* the best level against itself */
		return CLI_EXIT_OK;
	}
	if (!profile_check_same(&run->lv[top].csv, best_csv, &lv->csv, csv, err,
	                        sizeof(err))) {
		fprintf(stderr, "baton profile: %s\n", err);
		return CLI_EXIT_INVALID;
	}
	if (tty)
		fprintf(stderr,
		        "level %zu: SSIM of %zu frames against level "
		        "%zu\n",
		        l, lv->csv.rows, top);
	int rc = profile_ssim(best_dir, dir, lv, err, sizeof(err));
	if (rc != CLI_EXIT_OK)
		fprintf(stderr, "baton profile: %s\n", err);
	return rc;
}

static int profile(const struct popts *o, const char *root,
                   struct profile_run *run, const char *game,
                   const char *model_path)
{
	bool tty = isatty(STDERR_FILENO);
	double t0 = profile_now_s();
	for (size_t step = 1; step <= o->levels; step++) {
		size_t l = o->levels - step;
		char dir[DIR_MAX];
		snprintf(dir, sizeof(dir), "%s/level-%zu", root, l);
		/* A fresh directory, so that nothing stale is read. */
		if (!o->from && mkdir(dir, 0700) != 0) {
			int e = errno;
			fprintf(stderr, "baton profile: %s: %s%s\n", dir,
			        strerror(e),
			        e == EEXIST ? " (an earlier run? analyse it "
			                      "with --from, or keep into a new "
			                      "directory)"
			                    : "");
			return e == EEXIST ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE;
		}
		size_t total = step == 1 ? 0 : run->lv[o->levels - 1].csv.rows;
		int rc = o->from ? 0
		                 : profile_exec(o->cmd, l, step, o->levels, dir,
		                                total, tty);
		if (rc == 0)
			rc = collect(o, run, l, root, tty);
		if (rc != 0)
			return rc;
		if (run->lv[l].csv.rows < o->warmup + 4) {
			fprintf(stderr,
			        "baton profile: level %zu: %zu frames; at "
			        "least %zu needed (--warmup %zu, then two to "
			        "fit and two to test)\n",
			        l, run->lv[l].csv.rows, o->warmup + 4,
			        o->warmup);
			return CLI_EXIT_INVALID;
		}
	}
	struct quality_model_set *set = calloc(1, sizeof(*set));
	struct profile_report *rep = calloc(1, sizeof(*rep));
	char err[512];
	int rc = CLI_EXIT_OK;
	if (!set || !rep) {
		rc = CLI_EXIT_FAILURE;
	} else if (!profile_fit(run, set, rep, err, sizeof(err)) ||
	           (snprintf(set->game, sizeof(set->game), "%s", game),
	            !quality_model_save(model_path, set, err, sizeof(err)))) {
		fprintf(stderr, "baton profile: %s\n", err);
		rc = CLI_EXIT_FAILURE;
	} else if (o->json) {
		if (!profile_print_json(stdout, rep, game, model_path, o->mode,
		                        profile_now_s() - t0))
			rc = CLI_EXIT_FAILURE;
	} else {
		profile_print_text(stdout, rep);
		printf("Model (%s mode) written to %s in %.1f s\n",
		       o->mode == CORE_QM_PAPER ? "paper" : "baton", model_path,
		       profile_now_s() - t0);
	}
	free(set);
	free(rep);
	return rc;
}

int cmd_profile(int argc, char **argv)
{
	struct popts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;
	const char *base = o.cmd ? strrchr(o.cmd[0], '/') : NULL;
	const char *game = o.game ? o.game : base ? base + 1 : o.cmd[0];
	if (!game_id_ok(game))
		return usage_error(o.game ? "--game: not 1 to 31 letters, "
		                            "digits, '-', '_' or '.': "
		                          : "CMD's name is not a game id; use "
		                            "--game: ",
		                   game);
	char model_path[PATH_MAX], root[ROOT_MAX];
	if (o.out)
		snprintf(model_path, sizeof(model_path), "%s", o.out);
	else
		snprintf(model_path, sizeof(model_path), "%s/%s.json",
		         o.model_dir ? o.model_dir : ".", game);
	const char *given = o.from ? o.from : o.keep;
	if (given && strlen(given) >= ROOT_MAX - 1)
		return usage_error("path too long: ", given);
	if (o.from) {
		snprintf(root, sizeof(root), "%s", o.from);
	} else if (o.keep) {
		snprintf(root, sizeof(root), "%s", o.keep);
		if (mkdir(root, 0700) != 0 && errno != EEXIST) {
			fprintf(stderr, "baton profile: --keep %s: %s\n", root,
			        strerror(errno));
			return CLI_EXIT_FAILURE;
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(root, sizeof(root), "%s/baton-profile-XXXXXX",
		         tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(root)) {
			fprintf(stderr, "baton profile: %s: %s\n", root,
			        strerror(errno));
			return CLI_EXIT_FAILURE;
		}
	}
	struct profile_run *run = calloc(1, sizeof(*run));
	if (!run) {
		rc = CLI_EXIT_FAILURE;
	} else {
		run->n_levels = o.levels;
		run->mode = o.mode;
		run->warmup = o.warmup;
		rc = profile(&o, root, run, game, model_path);
		for (size_t l = 0; l < o.levels; l++) {
			profile_csv_free(&run->lv[l].csv);
			free(run->lv[l].ssim);
		}
		free(run);
	}
	if (!o.keep && !o.from)
		remove_tree(root);
	return rc;
}
