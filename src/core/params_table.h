/* The core's tunable parameters, each described once: its key, its type,
 * its range, its unit, one line of meaning and where it lives. batond's
 * config file and --help, the simulator's scenario parser and
 * docs/parameters.md are all driven by this table, so a key means the same
 * thing, takes the same values and is spelled the same everywhere.
 *
 * Defaults are not restated here: a parameter's default is what
 * core_params_default() or core_harvest_params_default() puts in its
 * field (core_param_default reads it through the entry's offset). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/harvest.h"
#include "core/policy.h"

/* Which struct an entry's offset is into, and which group of a scenario
 * and of batond's config file takes its key. */
enum core_param_group {
	CORE_PARAM_POLICY,  /* struct core_params; the `params` group of
	                       batond's config, the `policy` group of a
	                       scenario */
	CORE_PARAM_HARVEST, /* struct core_harvest_params; the `harvest`
	                       group of both */
};

enum core_param_type {
	CORE_PARAM_DOUBLE,
	CORE_PARAM_U32,
	CORE_PARAM_BOOL,
};

struct core_param {
	const char *key;     /* the one name, in every file and page */
	const char *old_key; /* a name it had before, still taken with a
	                        deprecation warning; NULL: none */
	enum core_param_group group;
	enum core_param_type type;
	size_t offset;       /* of the field in the group's struct */
	double scale;        /* the key's value is the field's x scale
	                        (1000: an ms key, its field in seconds) */
	double lo, hi;       /* the range, in the key's unit (bools: 0, 1) */
	bool lo_open;        /* lo itself is not allowed */
	const char *unit;    /* the key's unit, "" for a ratio or a count */
	const char *meaning; /* one line */
};

/* Every entry, in the order the docs list them; *n their number. */
const struct core_param *core_param_table(size_t *n);

/* The entry of group whose key, or old key, is key; NULL if none.
 * *deprecated (may be NULL) says the old key matched. */
const struct core_param *core_param_find(enum core_param_group group,
                                         const char *key, bool *deprecated);

/* The default in the key's unit (a bool as 0 or 1). */
double core_param_default(const struct core_param *p);

/* The default as a file writes it ("0.95", "true") into buf. */
void core_param_default_text(const struct core_param *p, char *buf, size_t len);

/* Whether v (in the key's unit) lies in the range; an integer type also
 * wants a whole number. */
bool core_param_in_range(const struct core_param *p, double v);

/* Why a value is refused, for an error that names the key before it:
 * "must be a number in (0, 1], not 2", "must be an integer in [1, 1000],
 * not 2.5", "must be true or false, not \"yes\"". given: the value as
 * written. */
void core_param_range_error(const struct core_param *p, const char *given,
                            char *why, size_t len);

/* "(0, 1]", "[1, 1000]", "true or false" into buf. */
void core_param_range_text(const struct core_param *p, char *buf, size_t len);

/* Writes v (in the key's unit, checked) into the entry's field of params
 * (a struct core_params or a struct core_harvest_params, by group). */
void core_param_set(const struct core_param *p, void *params, double v);

/* The value of the entry's field of params, in the key's unit. */
double core_param_get(const struct core_param *p, const void *params);

/* The keys of a group, comma-separated, into buf (errors and --help). */
void core_param_keys(enum core_param_group group, char *buf, size_t len);

/* docs/parameters.md, the reference page, into buf; the length it needs
 * (buf may be short or NULL, as snprintf). */
size_t core_param_markdown(char *buf, size_t len);
