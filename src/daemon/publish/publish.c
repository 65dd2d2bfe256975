/* The publisher (publish.h): the handoff from the control loop, the
 * thread and the log limit; the back-off is publish_backoff.c. Agones:
 * publish_agones.c; Kubernetes: publish_k8s.c; HTTP: publish_http.c. */
#include "daemon/publish/publish.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/caps.h"
#include "daemon/publish/publish_int.h"
#include "util/log.h"

#define PUBLISH_POLL_NS 100000000L

struct publisher {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	atomic_ullong busy; /* handoffs skipped: the lock was held */
	struct publish_input in_agones, in_k8s; /* under lock */
	struct publish_stats stats;             /* under lock */
	bool agones_on, k8s_on;
	struct publish_agones agones; /* the thread's */
	struct publish_k8s k8s;       /* the thread's */
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The thread: looks every PUBLISH_POLL_NS (changes, Health, refreshes,
 * back-offs falling due), copies the inputs and does the HTTP work
 * outside the lock; only publisher_stop wakes it. */
static void *run(void *arg)
{
	struct publisher *p = arg;
	struct publish_stats stats = {0};
	p->agones.peer.stats = &stats;
	p->k8s.peer.stats = &stats;
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct publish_input a = p->in_agones, k = p->in_k8s;
		pthread_mutex_unlock(&p->lock);
		int64_t now = now_ns();
		if (p->agones_on)
			publish_agones_step(&p->agones, &a, now);
		if (p->k8s_on)
			publish_k8s_step(&p->k8s, &k, now_ns());
		pthread_mutex_lock(&p->lock);
		p->stats = stats;
		if (p->stop)
			continue;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += PUBLISH_POLL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct publisher *publisher_start(const struct daemon_publish_config *cfg,
                                  char *err, size_t errlen)
{
	err[0] = '\0';
	if (!cfg->agones.enabled && !cfg->k8s.enabled)
		return NULL;
	struct publisher *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->agones_on = cfg->agones.enabled;
	p->k8s_on = cfg->k8s.enabled;
	if ((p->agones_on &&
	     !publish_agones_init(&p->agones, cfg, err, errlen)) ||
	    (p->k8s_on && !publish_k8s_init(&p->k8s, cfg, err, errlen))) {
		free(p);
		return NULL;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	p->agones.peer.h = p->agones_on ? curl_easy_init() : NULL;
	p->k8s.peer.h = p->k8s_on ? curl_easy_init() : NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&p->lock, NULL);
	if ((p->agones_on && !p->agones.peer.h) ||
	    (p->k8s_on && !p->k8s.peer.h) ||
	    pthread_create(&p->thread, NULL, run, p) != 0) {
		snprintf(err, errlen, "cannot start the publisher thread");
		curl_easy_cleanup(p->agones.peer.h);
		curl_easy_cleanup(p->k8s.peer.h);
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	return p;
}

void publisher_stop(struct publisher *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	curl_easy_cleanup(p->agones.peer.h);
	curl_easy_cleanup(p->k8s.peer.h);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* trylock: the loop never waits for the publisher thread, which may have
 * been preempted while it held the lock (two busy cores are enough). A
 * handoff skipped is made at the next tick. */
void publisher_update(struct publisher *p, const struct publish_input *agones,
                      const struct publish_input *k8s)
{
	if (pthread_mutex_trylock(&p->lock) != 0) {
		atomic_fetch_add_explicit(&p->busy, 1, memory_order_relaxed);
		return;
	}
	if (agones)
		p->in_agones = *agones;
	if (k8s)
		p->in_k8s = *k8s;
	/* No signal: a wake-up is a futex call on the loop's time (measured:
	 * 14-17 us a tick, median, docs/benchmarks.md); the thread looks
	 * every PUBLISH_POLL_NS, and a change waits that long at most. */
	pthread_mutex_unlock(&p->lock);
}

void publisher_stats(struct publisher *p, struct publish_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->stats;
	pthread_mutex_unlock(&p->lock);
	out->handoffs_skipped =
	    atomic_load_explicit(&p->busy, memory_order_relaxed);
}
