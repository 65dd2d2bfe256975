/* Who a uid belongs to. A user with a subordinate-uid range (rootless
 * containers: /etc/subuid, subuid(5), lines NAME_OR_UID:START:COUNT) may
 * run processes as any of its 65,536 or so uids; counted per uid, such a
 * user would have that many times every per-uid limit. batond counts its
 * limits (connections, tenants, ESA's share, the closer's lanes) per
 * owner: the user whose range holds the uid, else the uid itself. Who may
 * do what (admin requests, setting a tenant) stays on the real uid.
 *
 * The file is read at start and on SIGHUP, never per connection; names
 * are resolved then (getpwnam). It is trusted only as root's regular file
 * that group and others cannot write: anything else is refused with a
 * warning, and no uid has an owner but itself. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define OWNERS_DEFAULT_PATH "/etc/subuid"
/* Ranges kept at most; the lines past them are ignored with a warning
 * (a host has one range per user, or a few). */
#define OWNERS_MAX_RANGES 4096
/* A line longer than this is malformed (a name is at most 32 bytes,
 * each number at most 10). */
#define OWNERS_MAX_LINE 256
/* The file is read up to this many bytes (4096 ranges of the longest
 * well-formed line fit). */
#define OWNERS_MAX_BYTES (1u << 20)

/* uids first..last (inclusive) belong to owner. */
struct owner_range {
	uint32_t first, last;
	uid_t owner;
};

/* Sorted by first, never overlapping. All zero: no ranges. */
struct owner_map {
	struct owner_range *ranges;
	size_t n;
};

/* A user name's uid (getpwnam, or a table in the tests); false if no such
 * user. */
typedef bool (*owner_resolve_fn)(const char *name, uid_t *uid);

/* Parses len bytes of subuid(5) text into *m (what it held is freed).
 * Empty lines and lines starting with '#' are skipped quietly; a
 * malformed line (not three fields, a number that is not decimal, a
 * count of 0, a range past uid 4294967294 or holding uid 0, an unknown
 * name) or a range overlapping an earlier one is skipped with a warning
 * naming path and line number; lines past OWNERS_MAX_RANGES ranges are
 * ignored with one warning. *skipped (may be NULL) counts the lines
 * skipped with a warning. false only when out of memory (then *m is
 * empty). */
bool owner_map_parse(struct owner_map *m, const char *text, size_t len,
                     const char *path, owner_resolve_fn resolve,
                     size_t *skipped);

/* Reads path into *m (what it held is freed): "" means none. A file that
 * does not exist is no ranges (said at info level); one that is not a
 * regular file of root's that group and others cannot write is refused
 * with a warning naming it, and no ranges. false only when out of
 * memory. */
bool owner_map_load(struct owner_map *m, const char *path);

/* The owner of uid: the owner of the range that holds it, else uid.
 * O(log n). */
uid_t owner_of(const struct owner_map *m, uid_t uid);

void owner_map_free(struct owner_map *m);
