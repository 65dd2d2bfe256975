/* Space harvesting's mechanism on an NVIDIA GPU through MPS
 * (docs/harvesting.md, "Space harvesting on NVIDIA"): the share of the
 * SMs the space stage (core/harvest_space.h) gives best-effort work
 * becomes the MPS active thread percentage of the clients made from
 * then on, set through the MPS control daemon's tool
 * (harvest config key mps_control, the path of nvidia-cuda-mps-control).
 *
 * The tool reads commands on its standard input, one a line, and
 * answers on its standard output (NVIDIA's "Multi-Process Service"
 * guide, "nvidia-cuda-mps-control"): get_server_list prints the running
 * servers' pids; set_default_active_thread_percentage P sets it for
 * servers started later; set_active_thread_percentage PID P for clients
 * that server makes later ("existing clients are not affected"). So a
 * client is held to the share in force when its context was made; the
 * CUDA gate reads that limit (src/sdk/cuda/space.c) and runs beside the
 * games only on a partition at least that large. Given back: when the
 * partition goes or shrinks, the percentage follows (100 with none) and
 * the gate's clients return to the time windows, which give the games
 * the whole device.
 *
 * batond runs the tool in a helper process (a fork, the tool a child of
 * it, both ended by an alarm after MPS_HELPER_S), so that the control
 * tick never waits for it; one at a time, reaped at the next ticks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MPS_HELPER_S 10

struct daemon_mps {
	int applied;      /* the percentage in force; 0: none set yet */
	int pending;      /* the one the helper is setting */
	pid_t helper;     /* 0: none running */
	int64_t retry_ns; /* after a failure, not before */
	bool failed_said; /* one warning per run of failures */
};

/* The active thread percentage for best-effort clients: their share of
 * the units (SMs), rounded down to a whole percent, at least 1; 100
 * with no partition (be_count 0). */
int daemon_mps_percent(uint32_t be_count, unsigned units);

/* Sets pct through the tool at control: get_server_list, then
 * set_default_active_thread_percentage and set_active_thread_percentage
 * for each server. Synchronous (the helper's body); 0, or -1 with the
 * reason in err. */
int daemon_mps_set(const char *control, int pct, char *err, size_t errlen);

/* Once a tick for a GPU: reaps the helper, and starts one when the
 * percentage that be_count of units asks differs from the one in force.
 * Nothing with control "" (off). */
void daemon_mps_tick(const char *control, struct daemon_mps *m, const char *gpu,
                     uint32_t be_count, unsigned units, int64_t now_ns);
