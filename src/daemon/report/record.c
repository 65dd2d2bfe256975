/* The history file's queue and writer thread (record.h). */
#include "daemon/report/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/server/safe_dir.h"
#include "util/log.h"

/* One queued second: the snapshot with its arrays copied, owned. */
struct slot {
	struct metrics_snapshot snap;
	char policy[16];
	struct metrics_tenant *tenants;
	size_t cap;
	struct metrics_be *be;
	size_t cap_be;
	int64_t time_s;
	uint64_t dropped;
};

struct record {
	int fd;
	char path[256];
	pthread_t thread;
	bool started; /* the writer thread runs */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* The queue: slots [head, head + count) are the writer's, the next
	 * one the tick's to fill; only those two indices move under lock. */
	struct slot slots[RECORD_QUEUE_LEN];
	size_t head, count;
	bool stop;
	struct record_stats stats; /* under lock */
	/* the tick's own */
	int64_t last_s;
	/* the writer's own */
	bool torn;              /* a write stopped mid-line */
	int64_t warned_s;       /* monotonic second of the last warning */
	uint64_t failed_logged; /* failures already in a log line */
	uint64_t dropped_logged;
};

static int64_t mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The whole buffer, or false with errno set. */
static bool write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* At most one warning a RECORD_LOG_EVERY_S, saying what was lost since
 * the last one. */
static void complain(struct record *r, const char *why, uint64_t failed,
                     uint64_t dropped)
{
	int64_t now = mono_s();
	if (r->warned_s != 0 && now - r->warned_s < RECORD_LOG_EVERY_S)
		return;
	r->warned_s = now;
	log_warn("record %s: %s; %llu lines not written, %llu seconds "
	         "dropped (queue full) since the last warning; batond goes on",
	         r->path, why, (unsigned long long)(failed - r->failed_logged),
	         (unsigned long long)(dropped - r->dropped_logged));
	r->failed_logged = failed;
	r->dropped_logged = dropped;
}

static void write_slot(struct record *r, struct slot *s)
{
	size_t len = 0;
	char *line = record_format(&s->snap, s->time_s, s->dropped, &len);
	bool ok = line != NULL;
	int err = ENOMEM;
	/* A line cut short by an earlier failure is ended first, so that
	 * only it is lost: a reader skips it as one bad line. */
	if (ok && r->torn) {
		ok = write_all(r->fd, "\n", 1);
		err = errno;
		r->torn = !ok;
	}
	if (ok) {
		ok = write_all(r->fd, line, len);
		err = errno;
		r->torn = !ok;
	}
	free(line);
	pthread_mutex_lock(&r->lock);
	if (ok)
		r->stats.written++;
	else
		r->stats.failed++;
	uint64_t failed = r->stats.failed, dropped = r->stats.dropped;
	pthread_mutex_unlock(&r->lock);
	if (!ok)
		complain(r, strerror(err), failed, dropped);
	else if (dropped > r->dropped_logged)
		complain(r, "the writer fell behind", failed, dropped);
}

static void *writer(void *arg)
{
	struct record *r = arg;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (r->count == 0 && !r->stop)
			pthread_cond_wait(&r->wake, &r->lock);
		if (r->count == 0)
			break;
		struct slot *s = &r->slots[r->head];
		pthread_mutex_unlock(&r->lock);
		write_slot(r, s);
		pthread_mutex_lock(&r->lock);
		r->head = (r->head + 1) % RECORD_QUEUE_LEN;
		r->count--;
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Opens path for appending: a new file with O_EXCL (created 0600, ours
 * by construction), else the existing one, never through a symlink
 * (O_NOFOLLOW), nonblocking so that a FIFO put there cannot hang the
 * start. -1 with errno set. */
static int open_file(const char *path)
{
	int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int fd = open(path, flags | O_CREAT | O_EXCL, 0600);
	if (fd >= 0 || errno != EEXIST)
		return fd;
	return open(path, flags);
}

/* Why the file open at fd may not be written, or NULL: it must be a
 * regular file of root's or ours, with no other name (a hard link) and
 * writable by no one else, so that nobody else can read what batond
 * writes through another name or add lines `baton report` would show. */
static const char *unfit_file(int fd, char *buf, size_t len)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return strerror(errno);
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (!safe_owner_ok(&st))
		snprintf(buf, len,
		         "owned by uid %u, not root or batond's user (uid %u)",
		         (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_nlink != 1)
		snprintf(buf, len, "it has %ju hard links",
		         (uintmax_t)st.st_nlink);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(buf, len, "writable by group or others (mode %04o)",
		         (unsigned)(st.st_mode & 07777));
	else
		return NULL;
	return buf;
}

/* The file at path, checked, or -1 with the reason in err. */
static int open_checked(const char *path, char *err, size_t errlen)
{
	char dir[sizeof(((struct record *)0)->path)], why[512];
	safe_dir_of(path, dir, sizeof(dir));
	if (!safe_dir_check("record directory", dir, why, sizeof(why))) {
		snprintf(err, errlen, "cannot record to %s: %s", path, why);
		return -1;
	}
	int fd = open_file(path);
	const char *bad = NULL;
	if (fd < 0)
		bad = errno == ELOOP   ? "it is a symbolic link"
		      : errno == ENXIO ? "not a regular file" /* a FIFO */
		                       : strerror(errno);
	else
		bad = unfit_file(fd, why, sizeof(why));
	/* Blocking writes from here on: the writer thread waits for them. */
	if (!bad && fcntl(fd, F_SETFL, O_APPEND) != 0)
		bad = strerror(errno);
	if (!bad)
		return fd;
	snprintf(err, errlen, "cannot record to %s: %s", path, bad);
	if (fd >= 0)
		close(fd);
	return -1;
}

struct record *record_open(const char *path, char *err, size_t errlen)
{
	struct record *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (snprintf(r->path, sizeof(r->path), "%s", path) >=
	    (int)sizeof(r->path)) {
		snprintf(err, errlen, "record file name over %zu bytes",
		         sizeof(r->path) - 1);
		free(r);
		return NULL;
	}
	r->fd = open_checked(path, err, errlen);
	if (r->fd < 0) {
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	r->last_s = INT64_MIN;
	return r;
}

bool record_start(struct record *r, char *err, size_t errlen)
{
	int rc = pthread_create(&r->thread, NULL, writer, r);
	if (rc != 0) {
		snprintf(err, errlen, "cannot record to %s: no thread: %s",
		         r->path, strerror(rc));
		return false;
	}
	r->started = true;
	return true;
}

/* Grows *p to n elements of size sz; false when out of memory. */
static bool reserve(void **p, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap)
		return true;
	void *q = realloc(*p, n * sz);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

static bool fill(struct slot *s, const struct metrics_snapshot *snap)
{
	if (!reserve((void **)&s->tenants, &s->cap, snap->n,
	             sizeof(*s->tenants)) ||
	    !reserve((void **)&s->be, &s->cap_be, snap->n_be, sizeof(*s->be)))
		return false;
	snprintf(s->policy, sizeof(s->policy), "%s",
	         snap->policy ? snap->policy : "none");
	s->snap = *snap;
	s->snap.policy = s->policy;
	if (snap->n)
		memcpy(s->tenants, snap->tenants,
		       snap->n * sizeof(*s->tenants));
	if (snap->n_be)
		memcpy(s->be, snap->be, snap->n_be * sizeof(*s->be));
	s->snap.tenants = s->tenants;
	s->snap.be = s->be;
	return true;
}

bool record_offer(struct record *r, const struct metrics_snapshot *s,
                  int64_t wall_ns)
{
	int64_t sec = wall_ns / 1000000000LL;
	if (sec == r->last_s)
		return true;
	r->last_s = sec;
	double t0 = mono_now();
	pthread_mutex_lock(&r->lock);
	bool full = r->count == RECORD_QUEUE_LEN;
	size_t idx = (r->head + r->count) % RECORD_QUEUE_LEN;
	uint64_t dropped = r->stats.dropped;
	pthread_mutex_unlock(&r->lock);
	/* The slot past the writer's is the tick's alone: filled unlocked. */
	struct slot *slot = &r->slots[idx];
	bool ok = !full && fill(slot, s);
	if (ok) {
		slot->time_s = sec;
		slot->dropped = dropped;
	}
	double cost = mono_now() - t0;
	pthread_mutex_lock(&r->lock);
	if (ok) {
		r->count++;
		r->stats.queued++;
		r->stats.offer_sum_s += cost;
		if (cost > r->stats.offer_max_s)
			r->stats.offer_max_s = cost;
		pthread_cond_signal(&r->wake);
	} else {
		r->stats.dropped++;
	}
	pthread_mutex_unlock(&r->lock);
	return ok;
}

void record_get_stats(struct record *r, struct record_stats *out)
{
	pthread_mutex_lock(&r->lock);
	*out = r->stats;
	pthread_mutex_unlock(&r->lock);
}

void record_close(struct record *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	if (r->started)
		pthread_join(r->thread, NULL);
	if (close(r->fd) != 0)
		log_warn("record %s: %s", r->path, strerror(errno));
	for (size_t i = 0; i < RECORD_QUEUE_LEN; i++) {
		free(r->slots[i].tenants);
		free(r->slots[i].be);
	}
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
