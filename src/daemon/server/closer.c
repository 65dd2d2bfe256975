/* Closing peers' descriptors off the event loop (closer.h). */
#include "daemon/server/closer.h"

#include <errno.h>
#include <linux/sockios.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

/* A worker does nothing but close(): a small stack is plenty (more under
 * the sanitizers, which is still far below the default 8 MiB). */
#define WORKER_STACK (256u << 10)

struct lane {
	uid_t uid;
	int *fds; /* queued: fds[head..n) */
	size_t head, n, cap;
	size_t pending; /* queued + the one being closed */
	bool worker;    /* a thread drains this lane */
	struct lane *next;
};

struct closer {
	pthread_mutex_t mu;
	pthread_cond_t done; /* a worker ended */
	struct lane *lanes;
	size_t total;   /* pending, every lane */
	size_t workers; /* running */
};

struct worker_arg {
	struct closer *c;
	struct lane *lane;
};

struct closer *closer_new(void)
{
	struct closer *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->done, &ca);
	pthread_condattr_destroy(&ca);
	return c;
}

static struct lane *find(struct closer *c, uid_t uid)
{
	for (struct lane *l = c->lanes; l; l = l->next)
		if (l->uid == uid)
			return l;
	return NULL;
}

static void unlink_lane(struct closer *c, struct lane *dead)
{
	for (struct lane **pp = &c->lanes; *pp; pp = &(*pp)->next)
		if (*pp == dead) {
			*pp = dead->next;
			break;
		}
	free(dead->fds);
	free(dead);
}

static void *worker(void *p)
{
	struct worker_arg a = *(struct worker_arg *)p;
	free(p);
	struct closer *c = a.c;
	struct lane *l = a.lane;
	pthread_mutex_lock(&c->mu);
	while (l->head < l->n) {
		int fd = l->fds[l->head++];
		pthread_mutex_unlock(&c->mu);
		close(fd); /* may block: that is why we are here */
		pthread_mutex_lock(&c->mu);
		l->pending--;
		c->total--;
	}
	/* Empty, and no one else touches a lane with a worker. */
	unlink_lane(c, l);
	c->workers--;
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static bool start_worker(struct closer *c, struct lane *l)
{
	struct worker_arg *a = malloc(sizeof(*a));
	if (!a)
		return false;
	*a = (struct worker_arg){c, l};
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	pthread_t t;
	int rc = pthread_create(&t, &attr, worker, a);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		free(a);
		return false;
	}
	l->worker = true;
	c->workers++;
	return true;
}

static bool enqueue(struct lane *l, int fd)
{
	if (l->n == l->cap) {
		if (l->head > 0) {
			memmove(l->fds, l->fds + l->head,
			        (l->n - l->head) * sizeof(int));
			l->n -= l->head;
			l->head = 0;
		} else {
			size_t cap = l->cap ? l->cap * 2 : 16;
			int *f = realloc(l->fds, cap * sizeof(int));
			if (!f)
				return false;
			l->fds = f;
			l->cap = cap;
		}
	}
	l->fds[l->n++] = fd;
	return true;
}

void closer_put(struct closer *c, int fd, uid_t uid)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&c->mu);
	struct lane *l = find(c, uid);
	bool fresh = false;
	if (!l && (l = calloc(1, sizeof(*l)))) {
		l->uid = uid;
		l->next = c->lanes;
		c->lanes = l;
		fresh = true;
	}
	if (l && enqueue(l, fd)) {
		l->pending++;
		c->total++;
		/* A lane whose worker is gone is unlinked by it, so an
		 * existing lane always has one, or is fresh. */
		if (l->worker || start_worker(c, l)) {
			pthread_mutex_unlock(&c->mu);
			return;
		}
		l->n--;
		l->pending--;
		c->total--;
	}
	if (fresh)
		unlink_lane(c, l);
	pthread_mutex_unlock(&c->mu);
	log_error("cannot queue descriptor %d of uid %d for closing (out "
	          "of memory or threads): closing it on the loop thread",
	          fd, (int)uid);
	close(fd);
}

void closer_put_socket(struct closer *c, int fd, uid_t uid)
{
	if (fd < 0)
		return;
	int queued = -1;
	if (shutdown(fd, SHUT_RD) == 0 || errno == ENOTCONN) {
		if (ioctl(fd, SIOCINQ, &queued) < 0)
			queued = -1;
	}
	if (queued == 0)
		close(fd);
	else
		closer_put(c, fd, uid);
}

size_t closer_pending(struct closer *c, uid_t uid)
{
	pthread_mutex_lock(&c->mu);
	struct lane *l = find(c, uid);
	size_t n = l ? l->pending : 0;
	pthread_mutex_unlock(&c->mu);
	return n;
}

size_t closer_pending_total(struct closer *c)
{
	pthread_mutex_lock(&c->mu);
	size_t n = c->total;
	pthread_mutex_unlock(&c->mu);
	return n;
}

void closer_free(struct closer *c, int wait_ms)
{
	if (!c)
		return;
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += wait_ms / 1000;
	end.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->mu);
	while (c->workers > 0 &&
	       pthread_cond_timedwait(&c->done, &c->mu, &end) != ETIMEDOUT)
		;
	size_t left = c->workers, fds = c->total;
	pthread_mutex_unlock(&c->mu);
	if (left > 0) {
		log_warn("%zu descriptor(s) still closing at exit", fds);
		return;
	}
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->done);
	free(c);
}
