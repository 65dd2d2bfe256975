/* Reading batond's answers in the daemon tests: an error line's code, and
 * one tenant's entry in a fresh status reply. */
#pragma once

#include <stdbool.h>

#include <jansson.h>

/* True when r is an error line with this code ("denied", "invalid"...). */
bool reply_is_error(const char *r, const char *code);

/* The entry with this id in status's array `list` ("tenants" for games,
 * "be" for best-effort tenants), from a fresh admin connection to sock: a
 * new reference, or NULL. */
json_t *status_entry(const char *sock, const char *list, long long id);

/* Its number field k, or -1 when the entry or the field is missing. */
double status_number(const char *sock, const char *list, long long id,
                     const char *k);
