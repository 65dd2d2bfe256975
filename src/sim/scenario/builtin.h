/* Built-in scenarios, compiled in from scenarios/NAME.cfg at build time
 * (tools/embed_scenarios.py), so `baton sim vgasa` works from anywhere. */
#pragma once

#include <stddef.h>

struct sim_builtin {
	const char *name;
	const char *text; /* the scenario file's contents */
};

/* The table, and its length. */
const struct sim_builtin *sim_builtin_all(size_t *count);
/* NULL if there is no built-in of that name. */
const struct sim_builtin *sim_builtin_find(const char *name);
