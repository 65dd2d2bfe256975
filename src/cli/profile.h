/* baton profile (cmd_profile.c): dJay's dIce dual execution (§4.2;
 * docs/papers.md, "dJay") on one machine. The game runs once per
 * quality level with the same arguments; its frames at each level are
 * compared (SSIM) with the same frames at the best level, and the per-level
 * cost and benefit models are fitted on the per-frame object counts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/quality_model.h"
#include "quality/model_file.h"
#include "quality/profile_csv.h"

/* Exit codes of baton profile beyond cli.h's 0-3 (main.c's usage lists
 * them): the game failed, or could not be started. */
#define PROFILE_EXIT_GAME     6
#define PROFILE_EXIT_NOEXEC   126
#define PROFILE_EXIT_NOTFOUND 127

/* Path buffers: the root, a level directory in it, a file in that. */
#define ROOT_MAX 2048
#define DIR_MAX  (ROOT_MAX + 32)
#define FILE_MAX (DIR_MAX + 32)

struct profile_level {
	struct profile_csv csv;
	double *ssim; /* csv.rows: against the best level's same frame */
};

struct profile_run {
	size_t n_levels;
	enum core_qm_mode mode;
	size_t warmup; /* leading rows left out of the fits and the table */
	struct profile_level lv[QUALITY_MODEL_MAX_LEVELS];
};

/* Held-out estimation error of one level in one area (or all of them). */
struct profile_stat {
	size_t frames, test_frames; /* all frames; the odd rows */
	double cost_mean_s, ssim_mean;
	struct core_qm_error cost, benefit; /* relative, on the test rows */
	/* The same on epoch means (the optimizer's view, dJay §6.2): the
	 * test rows of one area taken in consecutive groups of
	 * PROFILE_EPOCH_ROWS, the mean estimate against the mean measured
	 * value of each group; a trailing partial group is left out. */
	size_t test_epochs;
	struct core_qm_error cost_epoch, benefit_epoch;
};
#define PROFILE_EPOCH_ROWS 5

#define PROFILE_ALL_AREAS PROFILE_CSV_MAX_AREAS /* the index of "all" */
struct profile_report {
	size_t n_levels, n_areas; /* areas as in the best level's CSV */
	const struct profile_csv *areas;
	struct profile_stat stat[QUALITY_MODEL_MAX_LEVELS]
	                        [PROFILE_CSV_MAX_AREAS + 1];
};

double profile_now_s(void); /* CLOCK_MONOTONIC */

/* Runs cmd with BATON_QUALITY_LEVEL=level and BATON_PROFILE_DIR=dir, step
 * of steps, showing its frames.csv's growth on stderr (a bar of total
 * frames when tty and total > 0; plain lines when not tty). Returns 0, or
 * the exit code after a message: PROFILE_EXIT_NOTFOUND, _NOEXEC, _GAME
 * (non-zero exit or a signal), CLI_EXIT_FAILURE. */
int profile_exec(char **cmd, size_t level, size_t step, size_t steps,
                 const char *dir, size_t total, bool tty);

/* Checks that level lv's CSV has the best level's frames, types and areas
 * (the run was deterministic). false with a message naming both files. */
bool profile_check_same(const struct profile_csv *best, const char *best_path,
                        const struct profile_csv *lv, const char *path,
                        char *err, size_t err_len);

/* SSIM of every frame of dir's captures (dir/frame_NNNNNN.ppm) against
 * best_dir's same frame into lv->ssim (allocated). Returns CLI_EXIT_OK,
 * CLI_EXIT_INVALID (a capture missing or unreadable, sizes differ: err
 * names the file) or CLI_EXIT_FAILURE (out of memory). */
int profile_ssim(const char *best_dir, const char *dir,
                 struct profile_level *lv, char *err, size_t err_len);

/* Fits every level twice: on the even rows, to measure the estimation
 * error on the odd rows (into rep), then on all rows (into set, which the
 * caller names and saves). false with a message if a fit fails. */
bool profile_fit(const struct profile_run *run, struct quality_model_set *set,
                 struct profile_report *rep, char *err, size_t err_len);

void profile_print_text(FILE *out, const struct profile_report *rep);
/* false if writing failed */
bool profile_print_json(FILE *out, const struct profile_report *rep,
                        const char *game, const char *model_path,
                        enum core_qm_mode mode, double wall_s);
