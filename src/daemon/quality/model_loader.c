/* The quality models' loader thread (model_loader.h). */
#include "daemon/quality/model_loader.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/quality/quality_models.h"
#include "quality/model_file.h"
#include "util/log.h"

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_LOADING, SLOT_DONE };

struct slot {
	enum slot_state state;
	uint64_t tenant_id;
	/* What the load needs of the declaration, copied at the request. */
	struct daemon_quality decl;
	char who[96];
	struct quality_model_set *models;
};

struct model_loader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	char dir[512];
	struct slot slots[MODEL_LOADER_SLOTS];
};

/* The next queued slot, marked loading; NULL when none. Under the lock. */
static struct slot *next_queued(struct model_loader *l)
{
	for (unsigned i = 0; i < MODEL_LOADER_SLOTS; i++)
		if (l->slots[i].state == SLOT_QUEUED) {
			l->slots[i].state = SLOT_LOADING;
			return &l->slots[i];
		}
	return NULL;
}

static void *loader_main(void *arg)
{
	struct model_loader *l = arg;
	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		struct slot *s = next_queued(l);
		if (!s) {
			pthread_cond_wait(&l->wake, &l->lock);
			continue;
		}
		/* The slot is ours while it is loading: read the file
		 * without the lock, so that the tick never waits on I/O. */
		pthread_mutex_unlock(&l->lock);
		daemon_quality_load_models(&s->decl, l->dir, s->who);
		pthread_mutex_lock(&l->lock);
		s->models = s->decl.models;
		s->decl.models = NULL;
		s->state = SLOT_DONE;
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct model_loader *model_loader_start(const char *dir)
{
	struct model_loader *l = calloc(1, sizeof(*l));
	if (!l) {
		log_error("quality models: no memory for the loader");
		return NULL;
	}
	snprintf(l->dir, sizeof(l->dir), "%s", dir);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	/* Every signal blocked in the worker: batond takes its signals
	 * through a signalfd (server.h), which only works while no thread
	 * leaves them open. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int err = pthread_create(&l->thread, NULL, loader_main, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		log_error("quality models: cannot start the loader: %s",
		          strerror(err));
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->wake);
		free(l);
		return NULL;
	}
	return l;
}

void model_loader_stop(struct model_loader *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	for (unsigned i = 0; i < MODEL_LOADER_SLOTS; i++) {
		free(l->slots[i].models);
		free(l->slots[i].decl.models);
	}
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->wake);
	free(l);
}

bool model_loader_request(struct model_loader *l, uint64_t tenant_id,
                          const struct daemon_quality *q, const char *who)
{
	bool queued = false;
	pthread_mutex_lock(&l->lock);
	for (unsigned i = 0; i < MODEL_LOADER_SLOTS && !queued; i++) {
		struct slot *s = &l->slots[i];
		if (s->state != SLOT_FREE)
			continue;
		*s =
		    (struct slot){.state = SLOT_QUEUED, .tenant_id = tenant_id};
		s->decl.declared = q->declared;
		memcpy(s->decl.game_id, q->game_id, sizeof(s->decl.game_id));
		s->decl.n_levels = q->n_levels;
		s->decl.n_types = q->n_types;
		snprintf(s->who, sizeof(s->who), "%s", who);
		queued = true;
	}
	if (queued)
		pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	return queued;
}

unsigned model_loader_take(struct model_loader *l,
                           struct model_loader_done *out, unsigned max)
{
	unsigned n = 0;
	pthread_mutex_lock(&l->lock);
	for (unsigned i = 0; i < MODEL_LOADER_SLOTS && n < max; i++) {
		struct slot *s = &l->slots[i];
		if (s->state != SLOT_DONE)
			continue;
		out[n++] = (struct model_loader_done){.tenant_id = s->tenant_id,
		                                      .models = s->models};
		*s = (struct slot){.state = SLOT_FREE};
	}
	pthread_mutex_unlock(&l->lock);
	return n;
}
