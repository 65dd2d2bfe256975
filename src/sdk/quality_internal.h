/* The quality API's state inside libbaton.so (include/baton/baton.h):
 * the declarations, kept in the library's own memory, and the shim's
 * memory they are copied into once the shim attaches (quality_attach.c). */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ipc/shm.h"

/* The shim finds this with dlsym(RTLD_DEFAULT, BATON_QUALITY_ATTACH_SYM)
 * right after it creates the tenant memory, and calls it with the quality
 * area and the control block (or again, in a fork child, with its own).
 * Not in baton.h: only the shim calls it. Returns 0. */
#define BATON_QUALITY_ATTACH_SYM "baton__quality_attach_v1"
typedef int (*baton_quality_attach_fn)(struct baton_quality *q,
                                       struct baton_control *c);

struct quality_decl {
	_Atomic bool levels_done;  /* baton_quality_declare succeeded */
	_Atomic bool objects_done; /* baton_objects_declare succeeded */
	char game_id[BATON_QUALITY_NAME_SIZE];
	uint32_t n_levels;
	uint32_t default_level;
	char level_names[BATON_QUALITY_LEVELS_MAX][BATON_QUALITY_NAME_SIZE];
	uint32_t n_types;
	struct baton_quality_type types[BATON_QUALITY_TYPES_MAX];
	int32_t forced_level; /* BATON_QUALITY_LEVEL, -1: none */
};

extern struct quality_decl quality_decl;
extern _Atomic(struct baton_quality *) quality_area;
extern _Atomic(struct baton_control *) quality_control;

/* Copies the declarations into the attached area once both the area and
 * the complete declarations are there, whichever came last (either side
 * may call it; only one copy happens). */
void quality_publish(void);

/* One stderr line per key and second at most. */
enum { QLOG_CALL, QLOG_LEVEL, QLOG_KEYS };
void quality_log(int key, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
