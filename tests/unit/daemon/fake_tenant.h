/* A stand-in for a game with the shim: creates and seals its memfd with
 * ipc_shim_lib, registers over the control socket, then "renders" at a
 * base rate on a thread, pacing itself to the control block's period as
 * the shim does and pushing one ring record per frame. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc/shm_layout.h"

struct fake_tenant {
	int sock;
	int memfd;
	struct ipc_shm shm;
	double base_fps; /* unpaced rate */
	pthread_t thread;
	bool registered; /* sock, memfd and shm are ours to close */
	bool running;    /* the render thread runs */
	atomic_bool stop;
	atomic_uint_fast64_t frames;
	atomic_int_fast64_t period_ns; /* last period read from the block */
	atomic_uint_fast64_t epoch;    /* last policy_epoch read */
	long long id;                  /* from the welcome */
	/* The control block as the welcome found it: valid, and its period */
	bool start_valid;
	int64_t start_period_ns;
	/* A game with quality levels (fake_tenant_start_game): the GPU ms
	 * a frame costs at each level, and the objects of its one type
	 * each frame reports, as libbaton would. */
	const struct fake_game *game;
	atomic_uint level; /* the level it draws at */
};

struct fake_game {
	const char *id; /* game id it declares */
	uint32_t n_levels, default_level;
	double gpu_ms[8];
	uint32_t objects; /* per frame, active and potential */
};

/* Registers as name (written into the JSON string as given, so escape
 * quotes) with sla_fps and starts rendering. false (with the
 * daemon's reply or the failure in err) if registration failed. */
bool fake_tenant_start(struct fake_tenant *t, const char *socket_path,
                       const char *name, double sla_fps, double base_fps,
                       char *err, size_t errlen);

/* The same for a game that declares game's levels and one object type,
 * reports its objects every frame and draws (reports GPU time) at the
 * level batond publishes, else its default. */
bool fake_tenant_start_game(struct fake_tenant *t, const char *socket_path,
                            const char *name, double sla_fps, double base_fps,
                            const struct fake_game *game, char *err,
                            size_t errlen);

/* Registers only: no frames, no thread (for many tenants at once). */
bool fake_tenant_register(struct fake_tenant *t, const char *socket_path,
                          const char *name, double sla_fps, char *err,
                          size_t errlen);

/* Stops rendering and closes the connection (the daemon should drop the
 * tenant). */
void fake_tenant_stop(struct fake_tenant *t);

/* A stand-in for a best-effort client (role "be"): registers with the
 * hello's extra fields (e.g. "\"weight\":2,\"cap\":0.5", or "" for
 * none) and the same sealed memfd; no thread: the test writes its
 * sub-launch records with fake_be_launch and reads its control block. */
bool fake_be_register(struct fake_tenant *t, const char *socket_path,
                      const char *name, const char *extra, char *err,
                      size_t errlen);

/* One sub-launch record (BATON_FRAME_BE, or flags as given): released
 * now after waiting wait_ns, gpu_ns of device time, units blocks. */
void fake_be_launch(struct fake_tenant *t, int64_t gpu_ns, int64_t wait_ns,
                    int64_t units, uint32_t flags);
