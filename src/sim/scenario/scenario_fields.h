/* Typed, range-checked readers over a libconfig tree, for scenario*.c.
 * Each one names the origin, the line and the field path (for example
 * "tenants.[1].gpu_ms") in the error it sets, and returns false after
 * setting it. Written here because libconfig's own lookups neither check
 * ranges nor say where a value was. */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/scenario/scenario_types.h"
#include "sim/scenario/sim_error.h"

/* Where errors go and where relative paths start. */
struct sim_cfg_ctx {
	const char *origin;
	const char *base_dir;
	struct sim_error *err;
};

/* Flags of sim_cfg_num. */
enum num_flags {
	NUM_REQUIRED = 1 << 0,
	NUM_LO_OPEN = 1 << 1, /* value must be > lo, not >= lo */
	NUM_HI_OPEN = 1 << 2, /* value must be < hi, not <= hi */
};

void sim_cfg_copy_str(char *dst, size_t len, const char *src);

/* "tenants.[1].gpu_ms": member names joined by dots, list elements as
 * [index]. The root setting has no name and contributes nothing. */
void sim_cfg_setting_path(const config_setting_t *s, char *buf, size_t len);

bool sim_cfg_fail(struct sim_cfg_ctx *c, const config_setting_t *s,
                  const char *member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

bool sim_cfg_fail_plain(struct sim_error *err, const char *file, int line,
                        const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Rejects members of group g that are not in the NULL-terminated list, so
 * that "gpu_msec = 3" is an error rather than a silently ignored line. */
bool sim_cfg_check_known(struct sim_cfg_ctx *c, const config_setting_t *g,
                         const char *const *known);

/* Fails, saying why at the first one present, when g has any member of
 * the NULL-terminated keys: fields that cannot go with another. */
bool sim_cfg_none_of(struct sim_cfg_ctx *c, const config_setting_t *g,
                     const char *const *keys, const char *why);

/* Reads a number written as an integer or a float into *out when present
 * and checks it lies in the range [lo, hi] (ends opened by flags, hi may be
 * INFINITY). Absent optional members leave *out (the default) alone. */
bool sim_cfg_num(struct sim_cfg_ctx *c, const config_setting_t *g,
                 const char *key, double *out, double lo, double hi,
                 unsigned flags);

/* An array or list of numbers in [lo, hi] into out: 1 to max of them
 * when *n is 0 on entry, else exactly *n (each, if not NULL, says why in
 * the error: "one per object type"); *n is the length read. */
bool sim_cfg_num_array(struct sim_cfg_ctx *c, const config_setting_t *g,
                       const char *key, double *out, size_t *n, size_t max,
                       double lo, double hi, const char *each);

bool sim_cfg_int(struct sim_cfg_ctx *c, const config_setting_t *g,
                 const char *key, long long *out, long long lo, long long hi);

/* true or false (libconfig's boolean); absent leaves *out alone. */
bool sim_cfg_bool(struct sim_cfg_ctx *c, const config_setting_t *g,
                  const char *key, bool *out);

/* Reads a string member into *out (NULL when absent and optional). */
bool sim_cfg_str(struct sim_cfg_ctx *c, const config_setting_t *g,
                 const char *key, bool required, const char **out,
                 config_setting_t **where);

/* A string copied into a fixed buffer; too long is an error, not a cut. */
bool sim_cfg_str_copy(struct sim_cfg_ctx *c, const config_setting_t *g,
                      const char *key, bool required, char *dst, size_t len);

/* One of a fixed set of words; *out is the index into words. */
bool sim_cfg_enum(struct sim_cfg_ctx *c, const config_setting_t *g,
                  const char *key, const char *const *words, int *out);

/* A member that must be a group; NULL in *out when absent. */
bool sim_cfg_group(struct sim_cfg_ctx *c, const config_setting_t *g,
                   const char *key, config_setting_t **out);

/* A member that must be a list of groups: ( { ... }, { ... } ). */
bool sim_cfg_list(struct sim_cfg_ctx *c, const config_setting_t *g,
                  const char *key, bool required, int min, int max,
                  config_setting_t **out);
