/* One LD_PRELOAD entry for 64-bit and 32-bit processes alike.
 *
 * ld.so expands $LIB in LD_PRELOAD to its own library directory (on
 * Debian lib/x86_64-linux-gnu or lib/i386-linux-gnu), so a path through
 * $LIB preloads the library of the process's word size: a launcher of one
 * and the game of the other both get theirs. Where only this
 * architecture's library exists, the entry stays its plain path: ld.so
 * reports a preload it cannot open in every process, so a $LIB path to
 * nothing would complain in each 32-bit process anyway, and the plain path
 * says which library it was. */
#include "cli/run_multiarch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shim/shim_paths.h"

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* path made absolute through its folder's real path, its own name kept. */
static bool absolute_keep_name(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int n = snprintf(dir, sizeof(dir), "%.*s",
	                 slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (n < 0 || (size_t)n >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return false;
	}
	if (!realpath(*dir ? dir : "/", real))
		return false;
	n = snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", name);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return false;
	}
	return true;
}

/* If abs is BASE/BATON_LIB_SELF/baton/NAME, the length of BASE; else -1. */
static long multiarch_base(const char *abs)
{
	const char *name = strrchr(abs, '/') + 1;
	char tail[PATH_MAX];
	int n =
	    snprintf(tail, sizeof(tail), "/%s/baton/%s", BATON_LIB_SELF, name);
	size_t al = strlen(abs);
	if (!*BATON_LIB_SELF || !*BATON_LIB_OTHER || n < 0 ||
	    (size_t)n >= sizeof(tail) || (size_t)n > al ||
	    strcmp(abs + al - (size_t)n, tail) != 0)
		return -1;
	return (long)(al - (size_t)n);
}

bool run_preload_entry(const char *found, char *out, size_t len)
{
	char abs[PATH_MAX], other[PATH_MAX];
	if (!absolute_keep_name(found, abs, sizeof(abs))) {
		fprintf(stderr, "baton run: %s: %s\n", found, strerror(errno));
		return false;
	}
	long base = multiarch_base(abs);
	const char *name = strrchr(abs, '/') + 1;
	int n = base < 0 ? -1
	                 : snprintf(other, sizeof(other), "%.*s/%s/baton/%s",
	                            (int)base, abs, BATON_LIB_OTHER, name);
	if (n > 0 && (size_t)n < sizeof(other) && is_file(other))
		n = snprintf(out, len, "%.*s/$LIB/baton/%s", (int)base, abs,
		             name);
	else
		n = snprintf(out, len, "%s", abs);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "baton run: %s: path too long\n", abs);
		return false;
	}
	return true;
}
