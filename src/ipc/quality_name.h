/* The names of the quality contract (shm.h's struct baton_quality): one
 * check for both sides, the game SDK that writes them and batond that
 * reads them. */
#pragma once

#include <stdbool.h>

/* 1 to BATON_QUALITY_NAME_SIZE - 1 bytes before the NUL, each printable
 * ASCII; a game id (id) only letters, digits, '-', '_' and '.'. NULL is
 * not a name. */
bool ipc_quality_name_ok(const char *s, bool id);
