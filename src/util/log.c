#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const level_names[] = {"error", "warn", "info", "debug"};

/* -1 until the first use reads BATON_LOG. */
static int current_level = -1;

bool log_parse_level(const char *name, enum log_level *out)
{
	for (int i = 0; i <= LOG_DEBUG; i++) {
		if (name && strcmp(name, level_names[i]) == 0) {
			*out = (enum log_level)i;
			return true;
		}
	}
	return false;
}

enum log_level log_get_level(void)
{
	if (current_level < 0) {
		enum log_level lvl = LOG_WARN;
		log_parse_level(getenv("BATON_LOG"), &lvl);
		current_level = (int)lvl;
	}
	return (enum log_level)current_level;
}

void log_set_level(enum log_level level)
{
	current_level = (int)level;
}

void log_write(enum log_level level, const char *file, int line,
               const char *fmt, ...)
{
	if ((int)level > (int)log_get_level())
		return;
	const char *base = strrchr(file, '/');
	fprintf(stderr, "baton %s %s:%d: ", level_names[level],
	        base ? base + 1 : file, line);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
