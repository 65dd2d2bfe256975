/* subuid(5) ranges and the owner of a uid (owners.h). */
#include "daemon/server/owners.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

/* The largest uid a range may hold: (uid_t)-1 is no uid. */
#define UID_LAST 4294967294ull
/* Lines warned about one by one; the rest are counted in one line. */
#define WARN_LINES 16

struct parse {
	struct owner_map map;
	size_t cap;
	const char *path;
	owner_resolve_fn resolve;
	size_t skipped;
	bool full; /* OWNERS_MAX_RANGES reached */
};

static void skip_line(struct parse *p, size_t line, const char *why)
{
	if (p->skipped++ < WARN_LINES)
		log_warn("%s:%zu: %s; line skipped", p->path, line, why);
}

/* 1 to 10 decimal digits, at most UID_LAST: no sign, no space. */
static bool parse_number(const char *s, size_t len, uint64_t *out)
{
	if (len == 0 || len > 10)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return v <= UID_LAST;
}

/* The owner field: a uid in decimal, else a user name. NULL, or why not. */
static const char *parse_owner(const struct parse *p, char *field, size_t len,
                               uid_t *owner)
{
	uint64_t v;
	if (parse_number(field, len, &v)) {
		*owner = (uid_t)v;
		return NULL;
	}
	if (len == 0)
		return "no owner before the first ':'";
	field[len] = '\0';
	return p->resolve(field, owner) ? NULL : "no user of that name";
}

/* Where a range starting at first goes in the sorted map: the index of
 * the first range that starts after it. */
static size_t insert_at(const struct owner_map *m, uint32_t first)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->ranges[mid].first <= first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds r unless it overlaps a range of an earlier line. NULL, or why
 * not; *oom when out of memory. */
static const char *add_range(struct parse *p, struct owner_range r, bool *oom)
{
	struct owner_map *m = &p->map;
	size_t at = insert_at(m, r.first);
	if ((at > 0 && m->ranges[at - 1].last >= r.first) ||
	    (at < m->n && m->ranges[at].first <= r.last))
		return "the range overlaps an earlier line's";
	if (m->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct owner_range *n = realloc(m->ranges, cap * sizeof(*n));
		if (!n) {
			*oom = true;
			return "out of memory";
		}
		m->ranges = n;
		p->cap = cap;
	}
	memmove(&m->ranges[at + 1], &m->ranges[at],
	        (m->n - at) * sizeof(*m->ranges));
	m->ranges[at] = r;
	m->n++;
	return NULL;
}

/* One line (no newline): NULL when it was added or is a comment, else why
 * it is skipped. */
static const char *parse_line(struct parse *p, const char *s, size_t len,
                              bool *oom)
{
	if (len == 0 || s[0] == '#')
		return NULL;
	if (len > OWNERS_MAX_LINE)
		return "longer than 256 bytes";
	char buf[OWNERS_MAX_LINE + 1];
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (strlen(buf) != len)
		return "a NUL byte";
	char *c1 = strchr(buf, ':');
	char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2 || strchr(c2 + 1, ':'))
		return "not NAME_OR_UID:START:COUNT (three fields)";
	uint64_t start, count;
	if (!parse_number(c1 + 1, (size_t)(c2 - c1 - 1), &start) ||
	    !parse_number(c2 + 1, strlen(c2 + 1), &count))
		return "START and COUNT must be decimal numbers up to "
		       "4294967294";
	if (count == 0)
		return "a COUNT of 0";
	if (start + count - 1 > UID_LAST)
		return "the range goes past uid 4294967294";
	if (start == 0)
		return "the range holds uid 0";
	uid_t owner;
	const char *why = parse_owner(p, buf, (size_t)(c1 - buf), &owner);
	if (why)
		return why;
	if (p->map.n == OWNERS_MAX_RANGES) {
		p->full = true;
		return NULL;
	}
	struct owner_range r = {(uint32_t)start, (uint32_t)(start + count - 1),
	                        owner};
	return add_range(p, r, oom);
}

bool owner_map_parse(struct owner_map *m, const char *text, size_t len,
                     const char *path, owner_resolve_fn resolve,
                     size_t *skipped)
{
	owner_map_free(m);
	struct parse p = {.path = path, .resolve = resolve};
	size_t line = 0;
	bool oom = false;
	for (size_t at = 0; at < len && !p.full && !oom;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		line++;
		const char *why = parse_line(&p, text + at, n, &oom);
		if (why && !oom)
			skip_line(&p, line, why);
		at += n + 1;
	}
	if (p.full)
		log_warn("%s: more than %d ranges; line %zu and the rest are "
		         "ignored",
		         path, OWNERS_MAX_RANGES, line);
	if (p.skipped > WARN_LINES)
		log_warn("%s: %zu more lines skipped", path,
		         p.skipped - WARN_LINES);
	if (skipped)
		*skipped = p.skipped;
	if (oom) {
		owner_map_free(&p.map);
		return false;
	}
	*m = p.map;
	return true;
}

static bool resolve_passwd(const char *name, uid_t *uid)
{
	struct passwd *pw = getpwnam(name);
	if (pw)
		*uid = pw->pw_uid;
	return pw != NULL;
}

/* The file's bytes (at most OWNERS_MAX_BYTES, cut at the last whole line)
 * in *buf, or false with a warning. */
static bool read_trusted(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			log_info("%s: none; no subordinate uids", path);
		else
			log_warn("%s: cannot open: %s; no subordinate uids",
			         path, strerror(errno));
		return false;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		log_warn("%s: not a regular file of root's that only root may "
		         "write (owner uid %u, mode %04o); no subordinate uids",
		         path, (unsigned)st.st_uid,
		         (unsigned)st.st_mode & 07777);
		close(fd);
		return false;
	}
	*buf = malloc(OWNERS_MAX_BYTES);
	*len = 0;
	ssize_t r = 1;
	while (*buf && *len < OWNERS_MAX_BYTES && r > 0) {
		r = read(fd, *buf + *len, OWNERS_MAX_BYTES - *len);
		if (r > 0)
			*len += (size_t)r;
	}
	close(fd);
	if (!*buf || r < 0) {
		log_warn("%s: cannot read: %s; no subordinate uids", path,
		         *buf ? strerror(errno) : "out of memory");
		free(*buf);
		return false;
	}
	if (*len == OWNERS_MAX_BYTES) {
		log_warn("%s: read up to %u bytes only", path,
		         OWNERS_MAX_BYTES);
		while (*len > 0 && (*buf)[*len - 1] != '\n')
			(*len)--;
	}
	return true;
}

bool owner_map_load(struct owner_map *m, const char *path)
{
	owner_map_free(m);
	char *buf = NULL;
	size_t len = 0;
	if (!path[0] || !read_trusted(path, &buf, &len))
		return true;
	bool ok = owner_map_parse(m, buf, len, path, resolve_passwd, NULL);
	free(buf);
	if (ok)
		log_info("%s: %zu subordinate-uid ranges", path, m->n);
	return ok;
}

uid_t owner_of(const struct owner_map *m, uid_t uid)
{
	size_t at = insert_at(m, (uint32_t)uid);
	if (at > 0 && (uint32_t)uid <= m->ranges[at - 1].last)
		return m->ranges[at - 1].owner;
	return uid;
}

void owner_map_free(struct owner_map *m)
{
	free(m->ranges);
	*m = (struct owner_map){0};
}
