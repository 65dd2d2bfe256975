#include "fake_tenant.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ipc/control.h"
#include "ipc/fdpass.h"
#include "ipc/ring.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = {t / 1000000000LL, t % 1000000000LL};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* libbaton's frame path (src/sdk/quality.c) in short: the level at a
 * frame boundary, then the sums under the seqlock. */
static int64_t game_frame(struct fake_tenant *t,
                          const struct ipc_control_values *ctl)
{
	const struct fake_game *g = t->game;
	struct baton_quality *a = t->shm.quality;
	uint32_t lv =
	    ctl->quality_level > 0 && ctl->quality_level <= g->n_levels
	        ? ctl->quality_level - 1
	        : g->default_level;
	atomic_store(&t->level, lv);
	uint32_t s = atomic_load_explicit(&a->obj_seq, memory_order_relaxed);
	atomic_store_explicit(&a->obj_seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	a->level_in_use = lv;
	a->frames++;
	a->active_sum[0] += g->objects;
	a->potential_sum[0] += g->objects;
	atomic_store_explicit(&a->obj_seq, s + 2, memory_order_release);
	return (int64_t)(g->gpu_ms[lv] * 1e6);
}

static void *render(void *arg)
{
	struct fake_tenant *t = arg;
	int64_t base = (int64_t)(1e9 / t->base_fps);
	int64_t last = now_ns();
	struct ipc_control_values ctl = {0};
	while (!atomic_load(&t->stop)) {
		/* Like the shim: one seqlock try per frame, else keep the
		 * last values. */
		ipc_control_read(t->shm.control, &ctl);
		int64_t period = (ctl.flags & BATON_CONTROL_VALID)
		                     ? ctl.target_period_ns
		                     : 0;
		atomic_store(&t->period_ns, period);
		atomic_store(&t->epoch, ctl.policy_epoch);
		int64_t next = last + (period > base ? period : base);
		sleep_until(next);
		int64_t present = now_ns();
		uint64_t seq = atomic_load(&t->frames) + 1;
		struct baton_frame f = {
		    .present_ns = present,
		    .cpu_ns = base / 2,
		    .sleep_ns = period > base ? period - base : 0,
		    .target_period_ns = period,
		    .gpu_ns = t->game ? game_frame(t, &ctl) : 2000000,
		    .gpu_frame = seq,
		};
		ipc_ring_push(t->shm.ring, t->shm.records, &f);
		atomic_store(&t->frames, seq);
		last = next;
	}
	return NULL;
}

/* Registers with the hello line given (role and fields). */
static bool register_hello(struct fake_tenant *t, const char *socket_path,
                           const char *hello, int n, char *err, size_t errlen);

bool fake_tenant_register(struct fake_tenant *t, const char *socket_path,
                          const char *name, double sla_fps, char *err,
                          size_t errlen)
{
	char hello[256];
	int n = snprintf(hello, sizeof(hello),
	                 "{\"type\":\"hello\",\"version\":1,\"role\":"
	                 "\"tenant\",\"name\":\"%s\",\"sla_fps\":%g,"
	                 "\"fixed_fps\":0,\"api\":\"gl\"}\n",
	                 name, sla_fps);
	return register_hello(t, socket_path, hello, n, err, errlen);
}

bool fake_be_register(struct fake_tenant *t, const char *socket_path,
                      const char *name, const char *extra, char *err,
                      size_t errlen)
{
	char hello[320];
	int n = snprintf(hello, sizeof(hello),
	                 "{\"type\":\"hello\",\"version\":1,\"role\":"
	                 "\"be\",\"name\":\"%s\"%s%s}\n",
	                 name, extra[0] ? "," : "", extra);
	return register_hello(t, socket_path, hello, n, err, errlen);
}

void fake_be_launch(struct fake_tenant *t, int64_t gpu_ns, int64_t wait_ns,
                    int64_t units, uint32_t flags)
{
	uint64_t seq = atomic_load(&t->frames) + 1;
	struct baton_frame f = {
	    .present_ns = now_ns(),
	    .cpu_ns = units,
	    .sleep_ns = wait_ns,
	    .gpu_ns = gpu_ns,
	    .gpu_frame = seq,
	    .flags = flags,
	};
	ipc_ring_push(t->shm.ring, t->shm.records, &f);
	atomic_store(&t->frames, seq);
}

static bool register_hello(struct fake_tenant *t, const char *socket_path,
                           const char *hello, int n, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->memfd = ipc_shm_create((uint32_t)getpid(), &t->shm);
	if (t->memfd < 0) {
		snprintf(err, errlen, "memfd: %s", strerror(-t->memfd));
		return false;
	}
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", socket_path);
	t->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (connect(t->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(err, errlen, "connect: %s", strerror(errno));
		goto fail;
	}
	if (ipc_send_with_fd(t->sock, hello, (size_t)n, t->memfd) != n) {
		snprintf(err, errlen, "send hello failed");
		goto fail;
	}
	char reply[512];
	struct pollfd p = {.fd = t->sock, .events = POLLIN};
	ssize_t got = poll(&p, 1, 5000) == 1
	                  ? recv(t->sock, reply, sizeof(reply) - 1, 0)
	                  : -1;
	if (got <= 0) {
		snprintf(err, errlen, "no welcome");
		goto fail;
	}
	reply[got] = '\0';
	const char *id = strstr(reply, "\"id\":");
	if (!strstr(reply, "\"welcome\"") || !id) {
		snprintf(err, errlen, "%s", reply);
		goto fail;
	}
	t->id = atoll(id + 5);
	struct ipc_control_values v;
	if (ipc_control_read(t->shm.control, &v)) {
		t->start_valid = (v.flags & BATON_CONTROL_VALID) != 0;
		t->start_period_ns = v.target_period_ns;
	}
	t->registered = true;
	return true;
fail:
	close(t->sock);
	close(t->memfd);
	ipc_shm_unmap(&t->shm);
	return false;
}

bool fake_tenant_start(struct fake_tenant *t, const char *socket_path,
                       const char *name, double sla_fps, double base_fps,
                       char *err, size_t errlen)
{
	if (!fake_tenant_register(t, socket_path, name, sla_fps, err, errlen))
		return false;
	t->base_fps = base_fps;
	if (pthread_create(&t->thread, NULL, render, t) != 0) {
		snprintf(err, errlen, "pthread_create failed");
		fake_tenant_stop(t);
		return false;
	}
	t->running = true;
	return true;
}

bool fake_tenant_start_game(struct fake_tenant *t, const char *socket_path,
                            const char *name, double sla_fps, double base_fps,
                            const struct fake_game *game, char *err,
                            size_t errlen)
{
	if (!fake_tenant_register(t, socket_path, name, sla_fps, err, errlen))
		return false;
	struct baton_quality *a = t->shm.quality;
	snprintf(a->game_id, sizeof(a->game_id), "%s", game->id);
	a->n_levels = game->n_levels;
	a->default_level = game->default_level;
	for (uint32_t l = 0; l < game->n_levels; l++)
		snprintf(a->level_names[l], sizeof(a->level_names[l]), "l%u",
		         l);
	a->n_types = 1;
	a->types[0] = (struct baton_quality_type){.id = 1, .vertices = 1000};
	atomic_store_explicit(&a->decl_seq, 1u, memory_order_release);
	t->game = game;
	atomic_store(&t->level, game->default_level);
	t->base_fps = base_fps;
	if (pthread_create(&t->thread, NULL, render, t) != 0) {
		snprintf(err, errlen, "pthread_create failed");
		fake_tenant_stop(t);
		return false;
	}
	t->running = true;
	return true;
}

void fake_tenant_stop(struct fake_tenant *t)
{
	if (t->running) {
		atomic_store(&t->stop, true);
		pthread_join(t->thread, NULL);
		t->running = false;
	}
	if (!t->registered)
		return;
	close(t->sock);
	close(t->memfd);
	ipc_shm_unmap(&t->shm);
	t->registered = false;
}
