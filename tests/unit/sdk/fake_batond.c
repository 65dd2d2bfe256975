/* The fake batond of fake_batond.h. */
#include "fake_batond.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ipc/control.h"
#include "ipc/fdpass.h"

static void *serve(void *arg)
{
	struct fake_batond *b = arg;
	for (;;) {
		int fd = accept(b->listen_fd, NULL, NULL);
		if (fd < 0)
			return NULL;
		char buf[1024];
		int fds[IPC_RECV_MAX_FDS];
		size_t nfds = 0;
		ssize_t n =
		    ipc_recv_with_fds(fd, buf, sizeof(buf) - 1, fds, &nfds);
		char err[160];
		bool ok = n > 0 && nfds == 1;
		if (ok) {
			buf[n] = '\0';
			snprintf(b->hello, sizeof(b->hello), "%s", buf);
			ipc_shm_unmap(&b->shm);
			ok = ipc_shm_map(fds[0], &b->shm, err, sizeof(err));
		}
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		if (!ok) {
			close(fd);
			continue;
		}
		b->tail = atomic_load(&b->shm.ring->head);
		const char *reply =
		    b->answer == FAKE_SILENT ? ""
		    : b->answer == FAKE_REFUSE
		        ? "{\"type\":\"error\",\"code\":\"denied\","
		          "\"message\":\"no\"}\n"
		        : "{\"type\":\"welcome\",\"version\":1,\"id\":1}\n";
		if (write(fd, reply, strlen(reply)) < 0) {
			close(fd);
			continue;
		}
		atomic_store(&b->conn_fd, fd);
		atomic_fetch_add(&b->registered, 1);
	}
}

bool fake_batond_start(struct fake_batond *b, int answer)
{
	memset(b, 0, sizeof(*b));
	b->answer = answer;
	atomic_store(&b->conn_fd, -1);
	snprintf(b->dir, sizeof(b->dir), "/tmp/baton-sdk-XXXXXX");
	if (!mkdtemp(b->dir))
		return false;
	snprintf(b->sock, sizeof(b->sock), "%s/batond.sock", b->dir);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", b->sock);
	b->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (b->listen_fd < 0 ||
	    bind(b->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(b->listen_fd, 4) < 0)
		return false;
	return pthread_create(&b->thread, NULL, serve, b) == 0;
}

void fake_batond_stop(struct fake_batond *b)
{
	shutdown(b->listen_fd, SHUT_RDWR);
	pthread_join(b->thread, NULL);
	close(b->listen_fd);
	fake_batond_drop(b);
	ipc_shm_unmap(&b->shm);
	unlink(b->sock);
	rmdir(b->dir);
}

bool fake_batond_wait(struct fake_batond *b, int n)
{
	for (int i = 0; i < 500 && atomic_load(&b->registered) < n; i++) {
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	return atomic_load(&b->registered) >= n;
}

void fake_batond_control(struct fake_batond *b, int64_t window_ns,
                         uint32_t budget_ns_per_s, bool continuous)
{
	struct ipc_control_values v = {
	    .policy_epoch = ++b->epoch,
	    .flags = BATON_CONTROL_VALID |
	             (continuous ? BATON_CONTROL_BE_CONTINUOUS : 0u),
	    .cap_ns_per_s = budget_ns_per_s,
	    .be_window_ns = window_ns,
	};
	ipc_control_write(b->shm.control, &v);
}

void fake_batond_control_slot(struct fake_batond *b, int64_t window_ns,
                              uint32_t budget_ns_per_s, int64_t start_ns,
                              uint32_t len_ns, uint32_t period_ns)
{
	fake_batond_control_space(b, window_ns, budget_ns_per_s, start_ns,
	                          len_ns, period_ns, 0);
}

void fake_batond_control_space(struct fake_batond *b, int64_t window_ns,
                               uint32_t budget_ns_per_s, int64_t start_ns,
                               uint32_t len_ns, uint32_t period_ns,
                               uint32_t partition)
{
	struct ipc_control_values v = {
	    .policy_epoch = ++b->epoch,
	    .flags = BATON_CONTROL_VALID,
	    .cap_ns_per_s = budget_ns_per_s,
	    .be_window_ns = window_ns,
	    .be_slot_start_ns = start_ns,
	    .be_slot_len_ns = len_ns,
	    .be_slot_period_ns = period_ns,
	    .partition = partition,
	};
	ipc_control_write(b->shm.control, &v);
}

void fake_batond_control_idle(struct fake_batond *b, int64_t window_ns,
                              uint32_t budget_ns_per_s)
{
	struct ipc_control_values v = {
	    .policy_epoch = ++b->epoch,
	    .flags = BATON_CONTROL_VALID | BATON_CONTROL_BE_IDLE,
	    .cap_ns_per_s = budget_ns_per_s,
	    .be_window_ns = window_ns,
	};
	ipc_control_write(b->shm.control, &v);
}

void fake_batond_drop(struct fake_batond *b)
{
	int fd = atomic_exchange(&b->conn_fd, -1);
	if (fd >= 0)
		close(fd);
}

int fake_batond_records(struct fake_batond *b, struct baton_frame *out, int max)
{
	/* The client is trusted here: plain copies, no validation (that is
	 * the daemon's reader, tested in tests/unit/ipc). */
	uint64_t head = atomic_load(&b->shm.ring->head);
	int n = 0;
	for (; b->tail < head && n < max; b->tail++)
		out[n++] = b->shm.records[b->tail % b->shm.capacity];
	return n;
}
