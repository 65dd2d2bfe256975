/* The ownership and mode checks of a directory batond creates files in
 * (safe_dir.h). */
#include "daemon/server/safe_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void safe_dir_of(const char *path, char *dir, size_t len)
{
	snprintf(dir, len, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		dir[1] = '\0'; /* directly under / */
	else
		*slash = '\0';
}

bool safe_owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

#define DIR_RULE                                                               \
	"; it must belong to root or to batond's user (uid %u) and be "        \
	"writable by no one else"

/* One component of the directory's path, not followed (lstat): only root
 * or we may own it, and no one else may write in it (an ancestor may be
 * sticky). A symlink is fine if root or we own it (its target is checked
 * on the resolved path). */
static bool check_component(const char *what, const char *dir, const char *p,
                            bool last, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(p, &st) < 0) {
		snprintf(err, errlen, "%s %s: %s: %s", what, dir, p,
		         strerror(errno));
		return false;
	}
	unsigned me = (unsigned)geteuid();
	unsigned mode = (unsigned)(st.st_mode & 07777);
	/* "its ancestor /tmp/x is ", "the symlink /tmp/x is " or nothing. */
	char who[PATH_MAX + 32] = "";
	if (S_ISLNK(st.st_mode))
		snprintf(who, sizeof(who), "the symlink %s is ", p);
	else if (!last)
		snprintf(who, sizeof(who), "its ancestor %s is ", p);
	if (!safe_owner_ok(&st)) {
		snprintf(err, errlen,
		         "unsafe %s %s: %sowned by uid %u (mode %04o)" DIR_RULE,
		         what, dir, who, (unsigned)st.st_uid, mode, me);
		return false;
	}
	if (S_ISLNK(st.st_mode))
		return true;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s %s: %s is not a directory", what, dir,
		         p);
		return false;
	}
	bool others_write = st.st_mode & (S_IWGRP | S_IWOTH);
	if (others_write && (last || !(st.st_mode & S_ISVTX))) {
		snprintf(err, errlen,
		         "unsafe %s %s: %swritable by group or others (owner "
		         "uid %u, mode %04o)" DIR_RULE,
		         what, dir, who, (unsigned)st.st_uid, mode, me);
		return false;
	}
	return true;
}

/* Every component of path, from the first to path itself. */
static bool check_chain(const char *what, const char *dir, const char *path,
                        char *err, size_t errlen)
{
	char p[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof(p)) {
		snprintf(err, errlen, "%s %s: path too long", what, dir);
		return false;
	}
	memcpy(p, path, n + 1);
	for (size_t i = 1; i < n; i++) {
		if (p[i] != '/' || p[i - 1] == '/')
			continue;
		p[i] = '\0';
		bool ok = check_component(what, dir, p, false, err, errlen);
		p[i] = '/';
		if (!ok)
			return false;
	}
	return check_component(what, dir, p, true, err, errlen);
}

bool safe_dir_check(const char *what, const char *dir, char *err, size_t errlen)
{
	/* The path as given (its symlinks must be root's or ours), then
	 * where it leads. */
	if (!check_chain(what, dir, dir, err, errlen))
		return false;
	char real[PATH_MAX];
	if (!realpath(dir, real)) {
		snprintf(err, errlen, "%s %s: %s", what, dir, strerror(errno));
		return false;
	}
	return check_chain(what, dir, real, err, errlen);
}
