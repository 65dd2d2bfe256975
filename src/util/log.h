/* One log module for the daemon, the CLI and the simulator: levels and
 * file:line. The shim has its own (libc only, silent by default). */
#pragma once

#include <stdarg.h>
#include <stdbool.h>

enum log_level {
	LOG_ERROR = 0,
	LOG_WARN = 1,
	LOG_INFO = 2,
	LOG_DEBUG = 3,
};

/* Messages at or below this level are written to stderr. Default: LOG_WARN,
 * or the value of BATON_LOG (error|warn|info|debug) read once. */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Parses "error", "warn", "info", "debug"; returns false if unknown. */
bool log_parse_level(const char *name, enum log_level *out);

void log_write(enum log_level level, const char *file, int line,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define log_error(...) log_write(LOG_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define log_warn(...)  log_write(LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define log_info(...)  log_write(LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...) log_write(LOG_DEBUG, __FILE__, __LINE__, __VA_ARGS__)
