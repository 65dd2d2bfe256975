/* Placement: which of a node's GPUs a new session goes to. Each GPU's
 * controller answers admission for itself (core_caps_admit, gOver's rule);
 * among the GPUs that admit, the node's policy picks one:
 *   pack    the fullest (highest load): whole GPUs stay empty for large
 *           sessions, or can be powered down;
 *   spread  the emptiest (lowest load): every game has the most room.
 * Ties go to the GPU with more (pack) or fewer (spread) sessions, then to
 * the first. Pure, as all of src/core. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/caps.h"

enum core_place_mode {
	CORE_PLACE_SPREAD = 0,
	CORE_PLACE_PACK,
};

/* One GPU as placement sees it. */
struct core_place_gpu {
	bool eligible;  /* the session may go there at all (its CPU affinity
	                   already confines it to this GPU's core set, say) */
	bool admits;    /* its controller admits the session */
	double load;    /* its total load (core_admit.load) */
	size_t tenants; /* sessions on it now */
};

/* The index of the GPU the session goes to among g[0..n), or -1 when no
 * eligible GPU admits it. */
int core_place_pick(const struct core_place_gpu *g, size_t n,
                    enum core_place_mode mode);

/* Admission of a session whose cost nobody knows (no profile, none
 * learned, none given): a GPU admits it unless it is overloaded (severe,
 * or two tenants overloaded) or its load already reaches U_l. A GPU with
 * no period sampled yet admits (it has no load to show). The fields are
 * core_caps_admit's, with newcomer 0. */
struct core_admit core_place_admit_unknown(const struct core_params *p,
                                           const struct core_gpu *gpu);

/* "pack" or "spread"; false for anything else. */
bool core_place_mode_parse(const char *s, enum core_place_mode *out);
const char *core_place_mode_name(enum core_place_mode m);
