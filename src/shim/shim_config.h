/* The shim's environment (shim.h lists the variables), read once at the
 * first Present, and its logger. libc only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum shim_log_level {
	SHIM_LOG_OFF = -1, /* the default: a game's stderr is not ours */
	SHIM_LOG_ERROR = 0,
	SHIM_LOG_WARN = 1,
	SHIM_LOG_INFO = 2,
	SHIM_LOG_DEBUG = 3,
};

/* Longest tenant name sent to the daemon, in bytes (UTF-8): the daemon
 * refuses longer ones (IPC_NAME_MAX in ipc/msg.h counts the NUL). */
#define SHIM_NAME_MAX 63

struct shim_config {
	bool disable;                 /* BATON_DISABLE=1 */
	double fixed_fps;             /* BATON_FPS, 0 if unset or invalid */
	double sla_fps;               /* BATON_SLA, 0 if unset or invalid */
	double cap;                   /* BATON_CAP, 0 if unset or invalid */
	char name[SHIM_NAME_MAX + 1]; /* BATON_NAME or the program's name */
	char gpu[32];     /* BATON_GPU: the GPU it renders on (batond's name or
	                     device for it); "" = batond decides */
	char socket[108]; /* the daemon's socket (sun_path's size) */
	bool socket_ok;   /* socket holds a usable path */
	enum shim_log_level log;
};

/* Frame rates outside this range are refused: the daemon refuses a hello
 * with a rate outside [IPC_FPS_MIN, IPC_FPS_MAX] (ipc/msg.h: an SLA of a
 * tiny fraction of a frame per second would mean "unpaced"). */
#define SHIM_FPS_MIN 1.0
#define SHIM_FPS_MAX 1000.0

/* Parses a whole string of the form 123 or 123.45 (no sign, no exponent,
 * at most 1e9), the same in every locale. */
bool shim_parse_decimal(const char *s, double *out);
/* shim_parse_decimal, and in [SHIM_FPS_MIN, SHIM_FPS_MAX]. */
bool shim_parse_fps(const char *s, double *out);
/* shim_parse_decimal, and a GPU-time cap in (0, 1] (core/gate.h). */
bool shim_parse_cap(const char *s, double *out);

/* BATON_DISABLE=1: every hook passes straight through. */
bool shim_disabled_by_env(void);

/* Fills cfg from the environment. Invalid values are ignored (and logged
 * when BATON_LOG asks): a typo must not take a game down. */
void shim_config_read(struct shim_config *cfg);

/* BATON_VRAM_LIMIT in bytes (ipc/vram_size.h), 0 if unset or invalid (an
 * invalid value is logged when BATON_LOG asks). Reads BATON_LOG too. */
uint64_t shim_vram_limit_read(void);

/* Copies src into dst (dst_len > 0 bytes, NUL-terminated) as valid UTF-8
 * without control characters: control characters and bytes that are not
 * part of a well-formed sequence become '?', and the
 * copy is cut at a character boundary so it never ends mid-sequence. The
 * daemon's JSON parser rejects invalid UTF-8, so a Latin-1 program name
 * (and the daemon's name check control characters) would otherwise keep
 * the game from ever registering. */
void shim_utf8_copy(char *dst, size_t dst_len, const char *src);

/* The program's name in argv0, the program path its argv[0] holds now:
 * what follows the last '/' or '\\' (a Windows path, as Wine writes it),
 * the whole of argv0 when it ends in a separator. */
const char *shim_program_name(const char *argv0);

void shim_log_set_level(enum shim_log_level level);
void shim_log(enum shim_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
