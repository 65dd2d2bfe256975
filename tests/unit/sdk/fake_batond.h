/* A fake batond for the BE SDK's tests: a thread that accepts be hellos,
 * maps the memfd that comes with each, answers welcome (or an error), and
 * holds the connection until the test drops it. The test writes the
 * control block and reads the records itself. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ipc/shm_layout.h"

struct fake_batond {
	char dir[64], sock[108];
	int listen_fd;
	pthread_t thread;
	int answer;            /* FAKE_WELCOME, FAKE_REFUSE, FAKE_SILENT */
	char hello[1024];      /* the last hello line */
	struct ipc_shm shm;    /* the client's region */
	_Atomic int conn_fd;   /* the held connection, -1 none */
	atomic_int registered; /* hellos taken */
	uint64_t tail;         /* next record to read */
	uint64_t epoch;
};

enum { FAKE_WELCOME, FAKE_REFUSE, FAKE_SILENT };
bool fake_batond_start(struct fake_batond *b, int answer);
void fake_batond_stop(struct fake_batond *b);
/* Waits (up to 5 s) for the n-th hello. */
bool fake_batond_wait(struct fake_batond *b, int n);
/* Publishes a control block: VALID, the window, the budget (GPU ns per
 * s) and the continuous flag; a new epoch each time. */
void fake_batond_control(struct fake_batond *b, int64_t window_ns,
                         uint32_t budget_ns_per_s, bool continuous);
/* The same, periodical, with a slot (shm.h): len_ns from start_ns, every
 * period_ns. */
void fake_batond_control_slot(struct fake_batond *b, int64_t window_ns,
                              uint32_t budget_ns_per_s, int64_t start_ns,
                              uint32_t len_ns, uint32_t period_ns);
/* The same with a space-harvesting partition (shm.h BATON_PARTITION). */
void fake_batond_control_space(struct fake_batond *b, int64_t window_ns,
                               uint32_t budget_ns_per_s, int64_t start_ns,
                               uint32_t len_ns, uint32_t period_ns,
                               uint32_t partition);
/* The idle lane (shm.h BATON_CONTROL_BE_IDLE): the window and budget,
 * no slot. */
void fake_batond_control_idle(struct fake_batond *b, int64_t window_ns,
                              uint32_t budget_ns_per_s);
/* Hangs up on the client, as a daemon that died. */
void fake_batond_drop(struct fake_batond *b);
/* Reads the records pushed since the last call; how many. */
int fake_batond_records(struct fake_batond *b, struct baton_frame *out,
                        int max);
