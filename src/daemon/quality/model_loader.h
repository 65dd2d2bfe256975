/* Loading games' quality models off the control loop. A game declares its
 * levels through its quality area, which the tick reads; its models are a
 * file (DIR/GAME_ID.json) that may be large or sit on a slow disk. The
 * tick only queues a request and later takes the result: the file is
 * opened, read and parsed by this worker thread, never inside the tick.
 *
 * Bounded: at most MODEL_LOADER_SLOTS requests queued or done and not yet
 * taken; a request that finds no room is refused and asked again at the
 * next tick. The queue's mutex is never held across file I/O. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/quality/quality.h"

#define MODEL_LOADER_SLOTS 64u

struct model_loader;

/* The worker for models in dir; NULL (with a log line) when it cannot
 * start. */
struct model_loader *model_loader_start(const char *dir);
/* Stops the worker (waiting for the file it is reading) and frees every
 * result not taken. NULL is fine. */
void model_loader_stop(struct model_loader *l);

/* Queues the load of tenant id's models for the game q declared (its id,
 * level and type counts are copied). Never blocks on I/O. false when the
 * queue is full. who names the tenant in the worker's log lines. */
bool model_loader_request(struct model_loader *l, uint64_t tenant_id,
                          const struct daemon_quality *q, const char *who);

/* One finished load: the tenant it is for and its models (NULL: none, the
 * worker logged why). */
struct model_loader_done {
	uint64_t tenant_id;
	struct quality_model_set *models;
};

/* Moves up to max finished loads into out; returns how many. The caller
 * owns each models pointer. */
unsigned model_loader_take(struct model_loader *l,
                           struct model_loader_done *out, unsigned max);
