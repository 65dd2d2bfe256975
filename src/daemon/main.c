/* batond: the Baton daemon. Foreground; see daemon_usage() and
 * data/batond.service. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "daemon/config/config.h"
#include "daemon/daemon.h"
#include "daemon/server/listen.h"
#include "daemon/server/server.h"
#include "util/log.h"

/* Every tenant and every admin client holds a connection; descriptors
 * that peers send wait in the closer; and one message may bring
 * IPC_RECV_MAX_FDS of them, which must fit (server_budget). The usual
 * soft limit of 1024 would leave room for far fewer connections than
 * SERVER_MAX_CONNS: the soft limit goes up to what the full cap needs, as
 * far as the hard limit allows, and the caps follow what it got. */
static void raise_fd_limit(void)
{
	const rlim_t want =
	    SERVER_FD_FIXED + IPC_RECV_MAX_FDS + 2 * SERVER_MAX_CONNS;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max >= want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < want)
		log_warn("only %llu file descriptors (RLIMIT_NOFILE, %llu "
		         "wanted): fewer than %d connections are served%s",
		         (unsigned long long)rl.rlim_cur,
		         (unsigned long long)want, SERVER_MAX_CONNS,
		         rl.rlim_cur < SERVER_FD_FIXED + IPC_RECV_MAX_FDS + 32
		             ? ", and descriptors a peer sends may not fit"
		             : "");
}

/* Agones and Kubernetes (publish.h). A profile that does not resolve, or
 * a target with no address, is the configuration's fault: false. A peer
 * that does not answer is not: the publisher retries it. */
static bool start_publisher(struct daemon *d, const struct daemon_config *cfg)
{
	const struct daemon_publish_config *p = &cfg->publish;
	d->publish_agones_app =
	    daemon_config_publish_app(&d->cfg, p->agones.profile);
	d->publish_k8s_app = daemon_config_publish_app(&d->cfg, p->k8s.profile);
	if ((p->agones.enabled && !d->publish_agones_app) ||
	    (p->k8s.enabled && !d->publish_k8s_app)) {
		fprintf(stderr,
		        "batond: %s needs an app with cost_ms and sla in "
		        "apps (its profile: \"%s\")\n",
		        p->agones.enabled && !d->publish_agones_app
		            ? "agones"
		            : "kubernetes",
		        p->agones.enabled && !d->publish_agones_app
		            ? p->agones.profile
		            : p->k8s.profile);
		return false;
	}
	char err[256];
	d->publisher = publisher_start(p, err, sizeof(err));
	if (!d->publisher && err[0]) {
		fprintf(stderr, "batond: %s\n", err);
		return false;
	}
	if (d->publisher)
		log_info("publishing admission to%s%s",
		         p->agones.enabled ? " agones" : "",
		         p->k8s.enabled ? " kubernetes" : "");
	return true;
}

/* The history file (record.h) when cfg asks for one, *out NULL if not;
 * false, said on stderr, when it is refused. */
static bool open_record(const struct daemon_config *cfg, struct record **out)
{
	*out = NULL;
	if (!cfg->record_path[0])
		return true;
	char err[1024];
	*out = record_open(cfg->record_path, err, sizeof(err));
	if (!*out)
		fprintf(stderr, "batond: %s\n", err);
	return *out != NULL;
}

/* The Prometheus endpoint when cfg asks for it (d->metrics NULL if not).
 * A taken port is a warning, not a failed start: any local user can bind
 * 127.0.0.1:9477 first, and pacing matters more than metrics. */
static void start_metrics(struct daemon *d, const struct daemon_config *cfg)
{
	if (!cfg->metrics_on)
		return;
	char err[256];
	unsigned port = 0;
	d->metrics = metrics_start(cfg->metrics_host, cfg->metrics_port,
	                           cfg->metrics_names, &port, err, sizeof(err));
	bool v6 = strchr(cfg->metrics_host, ':') != NULL;
	if (!d->metrics) {
		/* Always, whatever the log level, as the line below: scripts
		 * and tests wait for one of the two. */
		fprintf(stderr,
		        "batond: warning: %s; running without "
		        "metrics\n",
		        err);
	} else {
		log_info("metrics on %s%s%s:%u", v6 ? "[" : "",
		         cfg->metrics_host, v6 ? "]" : "", port);
		/* Always, whatever the log level: scripts and tests find an
		 * ephemeral port here. */
		fprintf(stderr, "batond: metrics on http://%s%s%s:%u/metrics\n",
		        v6 ? "[" : "", cfg->metrics_host, v6 ? "]" : "", port);
	}
	fflush(stderr);
}

/* The history file's writer thread; without it batond goes on without
 * recording. */
static void start_record(struct daemon *d, const struct daemon_config *cfg)
{
	char err[256];
	if (d->record && !record_start(d->record, err, sizeof(err))) {
		fprintf(stderr,
		        "batond: warning: %s; running without recording\n",
		        err);
		record_close(d->record);
		d->record = NULL;
	} else if (d->record) {
		log_info("recording to %s, a line a second", cfg->record_path);
	}
	fflush(stderr);
}

/* Everything before the event loop: 0 to run it, else the exit status
 * (what was started is stopped again). */
static int start(struct daemon *d, struct server *s,
                 const struct daemon_config *cfg)
{
	char err[256];
	/* An unsafe socket directory is the configuration's fault: exit 2,
	 * as for a usage error, before anything is created in it. */
	if (!listener_check_dir(cfg->socket_path, err, sizeof(err))) {
		fprintf(stderr, "batond: %s\n", err);
		return 2;
	}
	/* So is a history file in a directory other users can write, or one
	 * that is not batond's own: exit 2, before anything is written to
	 * it. Its writer starts below. */
	struct record *rec = NULL;
	if (!open_record(cfg, &rec))
		return 2;
	if (!daemon_init(d, cfg) || !daemon_load_owners(d)) {
		log_error("out of memory");
		record_close(rec);
		daemon_finish(d);
		return 1;
	}
	d->record = rec;
	/* Before any thread exists: it blocks the signals we take from the
	 * signalfd, and the metrics thread inherits that mask. */
	if (!server_open(s, d, err, sizeof(err))) {
		fprintf(stderr, "batond: %s\n", err);
		record_close(d->record);
		daemon_finish(d);
		return 1;
	}
	start_metrics(d, cfg);
	/* After server_open, as the metrics thread: the writer thread
	 * inherits the signal mask. */
	start_record(d, cfg);
	/* After server_open, as the metrics thread: it inherits the mask. */
	if (!start_publisher(d, cfg)) {
		server_close(s);
		metrics_stop(d->metrics);
		record_close(d->record);
		daemon_finish(d);
		return 2;
	}
	return 0;
}

/* After the event loop: the threads stopped, the record's figures said. */
static void stop(struct daemon *d, struct server *s)
{
	publisher_stop(d->publisher);
	d->publisher = NULL;
	server_close(s);
	if (d->record) {
		struct record_stats rs;
		record_get_stats(d->record, &rs);
		log_info(
		    "record: %llu seconds queued (%.1f us each on average, "
		    "%.1f us at most), %llu dropped",
		    (unsigned long long)rs.queued,
		    rs.queued ? rs.offer_sum_s / (double)rs.queued * 1e6 : 0.0,
		    rs.offer_max_s * 1e6, (unsigned long long)rs.dropped);
	}
	record_close(d->record);
	d->record = NULL;
	metrics_stop(d->metrics);
	d->metrics = NULL;
	daemon_finish(d);
}

int main(int argc, char **argv)
{
	struct daemon_config cfg;
	switch (daemon_config_args(&cfg, argc, argv, stderr)) {
	case DAEMON_ARGS_RUN:
		break;
	case DAEMON_ARGS_EXIT_OK:
		return 0;
	case DAEMON_ARGS_USAGE:
		return 2;
	}

	raise_fd_limit();
	struct daemon d;
	struct server s;
	int rc = start(&d, &s, &cfg);
	if (rc != 0)
		return rc;
	log_info("listening on %s, policy %s, default SLA %g FPS, epoch %d ms",
	         cfg.socket_path, cfg.policy->name, cfg.default_sla,
	         cfg.epoch_ms);
	log_info("limits: %zu connections (%zu per uid), %zu descriptors "
	         "closing, hello within %d ms (RLIMIT_NOFILE %zu)",
	         s.lim.conn_cap, s.lim.per_uid, s.lim.pending_cap,
	         cfg.hello_timeout_ms, s.lim.nofile);
	rc = server_run(&s);
	stop(&d, &s);
	return rc;
}
