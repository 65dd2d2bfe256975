/* The tenant's hello (ipc/proto.h), written by hand: the shim links no
 * JSON library. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "shim/shim.h"
#include "shim/shim_config.h"

/* Writes the hello line, newline included, into buf. The name is
 * JSON-escaped (it is valid UTF-8 already, see shim_utf8_copy). Returns
 * the length, or 0 if it does not fit. */
size_t shim_hello_format(char *buf, size_t len, const struct shim_config *cfg,
                         enum shim_api api);
