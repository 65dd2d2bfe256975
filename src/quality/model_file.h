/* A game's fitted dJay models (src/core/quality_model.h), one per quality
 * level, on disk as JSON so that the next run starts from them rather than
 * from nothing. Format, version 1:
 *   {"version": 1, "game": "doom3", "mode": "baton" | "paper",
 *    "n_types": N,
 *    "levels": [{"cost":    {"intercept": c0, "weights": [N numbers],
 *                            "kept": [N booleans]},
 *                "benefit": {...the same...}}, ...]}
 * levels[0] is the lowest level. In Baton mode "benefit" is the loss model
 * (1 - SSIM), in paper mode SSIM itself. Loading is strict: unknown keys,
 * a wrong version, wrong level or type counts, non-finite numbers,
 * negative weights in Baton mode, a nonzero intercept in paper mode or a
 * nonzero weight on a dropped type all fail with a message naming the file
 * and the field. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/quality_model.h"

#define QUALITY_MODEL_VERSION    1
#define QUALITY_MODEL_MAX_LEVELS 8 /* baton.h: BATON_QUALITY_MAX_LEVELS */
#define QUALITY_GAME_MAX         128

struct quality_model_set {
	char game[QUALITY_GAME_MAX];
	enum core_qm_mode mode;
	size_t n_types, n_levels;
	struct core_qm_level level[QUALITY_MODEL_MAX_LEVELS];
};

/* Parses len bytes of text; name is the file name for messages. want_levels
 * and want_types (0: any) are what the game declared this run. On failure
 * writes "NAME: FIELD: problem" into err. */
bool quality_model_parse(const char *text, size_t len, const char *name,
                         size_t want_levels, size_t want_types,
                         struct quality_model_set *out, char *err,
                         size_t err_len);
bool quality_model_load(const char *path, size_t want_levels, size_t want_types,
                        struct quality_model_set *out, char *err,
                        size_t err_len);
/* Writes path atomically (a temporary file, then rename). Refuses a set
 * that the loader would reject. */
bool quality_model_save(const char *path, const struct quality_model_set *set,
                        char *err, size_t err_len);
