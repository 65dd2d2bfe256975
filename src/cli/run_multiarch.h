/* The LD_PRELOAD entry of a library built for both word sizes
 * (run_multiarch.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The LD_PRELOAD entry for the preload at path found: made absolute
 * without resolving its own name (the build tree's multiarch/ folder holds
 * links), and when it lies at BASE/<this architecture's $LIB>/baton/NAME
 * and BASE/<the other's>/baton/NAME exists too, BASE/$LIB/baton/NAME,
 * literally: ld.so then loads each process's own. False, said on stderr,
 * if found cannot be resolved or does not fit in out. */
bool run_preload_entry(const char *found, char *out, size_t len);
