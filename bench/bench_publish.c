/* The publishing path's cost on the control loop (publish.h): what
 * publish_offer, called at the end of every daemon_tick, costs the loop
 * with 64 tenants registered. With the publisher off (one NULL test),
 * and on with its Agones peer slow (a socket that accepts connections
 * into its backlog and never answers: every request of the publisher
 * thread waits out its 2 s timeout) or refusing connections; with the
 * inputs unchanged from one tick to the next (the usual case: no wake-up)
 * and changing every tick (a wake-up each time). The HTTP work itself
 * runs on the publisher thread only: the loop's share is the copy under
 * the mutex and core_caps_admit for each profile. Calls are GAP_US apart
 * (a tick every 1 ms, 100 times batond's default rate, so that each run
 * lasts 3 s: the slow peer's first 2 s timeout falls inside it). Prints
 * median, p99 and max in ns over CALLS calls, and the publisher's
 * requests and failures (counted when a step ends). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_time.h"
#include "daemon/daemon.h"
#include "daemon/tick/tick_publish.h"

enum { TENANTS = 64, CALLS = 3000, GAP_US = 1000 };

/* A loopback port: listening (slow peer) or closed (refusing). */
static unsigned port(bool listening, int *fd)
{
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(*fd, (struct sockaddr *)&a, &len) != 0 ||
	    (listening && listen(*fd, 64) != 0))
		exit(1);
	if (!listening) {
		close(*fd);
		*fd = -1;
	}
	return ntohs(a.sin_port);
}

static void run(const char *label, int peer, bool changing)
{
	struct daemon_config cfg;
	daemon_config_defaults(&cfg);
	cfg.metrics_on = false;
	snprintf(cfg.apps[0].name, sizeof(cfg.apps[0].name), "game");
	cfg.apps[0].cost_ms = 4.0;
	cfg.apps[0].sla_fps = 30.0;
	cfg.n_apps = 1;
	struct daemon d;
	if (!daemon_init(&d, &cfg))
		exit(1);
	static struct ipc_shm shim[TENANTS];
	static int fds[TENANTS];
	int64_t now = 1000LL * 1000000000LL;
	for (int i = 0; i < TENANTS; i++) {
		fds[i] = ipc_shm_create((uint32_t)i, &shim[i]);
		struct ipc_shm mine;
		char err[128];
		if (fds[i] < 0 || !ipc_shm_map(fds[i], &mine, err, sizeof(err)))
			exit(1);
		if (!daemon_add_tenant(&d, "game", 1000 + i, 1000, 30, 0, &mine,
		                       now))
			exit(1);
	}
	daemon_tick(&d, now + 100000000LL);
	int sock = -1;
	if (peer) {
		cfg.publish.agones.enabled = true;
		cfg.publish.agones.port = port(peer == 1, &sock);
		char err[256];
		d.publisher = publisher_start(&cfg.publish, err, sizeof(err));
		d.publish_agones_app = &d.cfg.apps[0];
		if (!d.publisher) {
			fprintf(stderr, "bench_publish: %s\n", err);
			exit(1);
		}
		/* the thread in its first request or back-off */
		usleep(200000);
	}
	static double cost[CALLS];
	for (int k = 0; k < CALLS; k++) {
		if (changing)
			d.gpus[0].gpu.caps.severe = k & 1;
		double t0 = now_s();
		publish_offer(&d);
		cost[k] = (now_s() - t0) * 1e9;
		usleep(GAP_US);
	}
	struct publish_stats st = {0};
	if (d.publisher)
		publisher_stats(d.publisher, &st);
	publisher_stop(d.publisher);
	d.publisher = NULL;
	if (sock >= 0)
		close(sock);
	daemon_finish(&d);
	for (int i = 0; i < TENANTS; i++) {
		ipc_shm_unmap(&shim[i]);
		close(fds[i]);
	}
	qsort(cost, CALLS, sizeof(cost[0]), cmp_double);
	printf("publish_offer %-22s %-9s tenants=%d median_ns=%.0f "
	       "p99_ns=%.0f max_ns=%.0f requests=%llu failures=%llu "
	       "skipped=%llu\n",
	       label, changing ? "changing" : "steady", TENANTS,
	       cost[CALLS / 2], cost[CALLS * 99 / 100], cost[CALLS - 1],
	       (unsigned long long)st.requests, (unsigned long long)st.failures,
	       (unsigned long long)st.handoffs_skipped);
}

int main(void)
{
	run("off", 0, false);
	run("on_peer_slow", 1, false);
	run("on_peer_slow", 1, true);
	run("on_peer_refusing", 2, false);
	run("on_peer_refusing", 2, true);
	return 0;
}
