/* The built-in scenarios: a thin view over the table that
 * tools/embed_scenarios.py generates from scenarios/NAME.cfg at build time. */
#include "sim/scenario/builtin.h"

#include <string.h>

/* Defined in the generated builtin_scenarios.c, which has no header of its
 * own so that the generator stays trivial. */
extern const struct sim_builtin sim_builtin_table[];
extern const size_t sim_builtin_count;

const struct sim_builtin *sim_builtin_all(size_t *count)
{
	*count = sim_builtin_count;
	return sim_builtin_table;
}

const struct sim_builtin *sim_builtin_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sim_builtin_count; i++) {
		if (strcmp(sim_builtin_table[i].name, name) == 0)
			return &sim_builtin_table[i];
	}
	return NULL;
}
