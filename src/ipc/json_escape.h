/* The inside of a JSON string, as the shim and libbaton write a name into
 * their hello line (proto.h) without jansson. */
#pragma once

#include <stddef.h>

/* Escapes s into out: quote, backslash and the control characters
 * (\u00XX); everything else (UTF-8 included) as is. Returns the length,
 * or 0 if it does not fit in len bytes with its NUL (an empty name is
 * never written, so 0 also means "nothing to send"). */
size_t ipc_json_escape(char *out, size_t len, const char *s);
