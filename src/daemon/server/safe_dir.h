/* Whether a directory batond creates files in as root is safe from the
 * machine's other users: the control socket's (listen.h) and the history
 * file's (record.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* The directory part of path ("." when it has none). */
void safe_dir_of(const char *path, char *dir, size_t len);

/* true when st belongs to root or to our euid. */
bool safe_owner_ok(const struct stat *st);

/* Checks dir, every directory above it and every symlink on the way (as
 * given and as resolved): each belongs to root or to our euid, and no one
 * else may write in dir (nor in an ancestor, unless it is sticky like
 * /tmp: others cannot rename or remove what is ours there). Once that
 * holds, nobody else can change what a path in dir names, so the calls by
 * path that follow (lstat, unlink, bind, open) cannot be redirected.
 * `what` names the directory's use in the error ("socket directory"),
 * which also names the directory and the offending component's owner and
 * mode. */
bool safe_dir_check(const char *what, const char *dir, char *err,
                    size_t errlen);
