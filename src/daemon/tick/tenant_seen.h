/* What batond sees of a tenant's GPU time: the one place where a tenant's
 * report (its records' gpu_ns, a best-effort tenant's be_device_ns_total)
 * becomes the GPU seconds every stage uses: the core's cost k, the
 * policies' utilization, capacity and admission, the Agones and
 * Kubernetes counts, the quality stage and the host's unreported load
 * (other_util). A report is a claim; what counts of it is bounded by
 * what batond measures itself:
 *
 * - the epoch: one GPU cannot give a tenant more than the epoch's length;
 * - a game's presents: one GPU runs a game's frames one after another, so
 *   its frames cannot take more GPU time than the time between their
 *   presents (summed: a frame's timing arrives a frame or two late);
 * - on a CPU device (a software rasterizer renders in the tenant's own
 *   threads), and for any tenant whose records say its GPU time is CPU
 *   time (BATON_FRAME_GPU_SOFTWARE): its process's CPU time (proc_cpu.h).
 *   A process whose CPU time batond cannot read (it exited and a child
 *   kept the connection; a pid namespace batond cannot see) counts no
 *   GPU time there: whoever can choose to be unmeasured cannot be
 *   trusted with the claim, and on a CPU device the load it really
 *   causes still shows as the host's unreported load.
 *
 * Each bound keeps a small credit (time measured and not yet claimed) so
 * that an honest tenant is not cut by timing: a record read in the tick
 * after its time was measured, /proc's 10 ms clock ticks. No credit
 * outlives an epoch and a few clock ticks after a claim: nothing is
 * banked. A game's frame may take longer than an epoch (a heavy scene on
 * a software rasterizer: 0.2 s of both cores a frame), and its cost
 * arrives in one record: the presents bound it, its CPU credit banks over
 * the epochs since its last records (at most SEEN_BANK_S), and what
 * counts beyond one epoch's length is counted in the epochs after, one
 * epoch's length at most each. Before, such a frame counted one epoch of
 * its cost: terrain at a cap of 0.30 read 22.6 % in status.
 *
 * Whether a GPU is a CPU device is batond's decision (gpus.h,
 * daemon_gpu_kind); on a GPU it cannot identify, a tenant's software flag
 * counts only while its CPU time covers what it reports (software). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/tick/proc_cpu.h"

struct tenant_seen {
	struct proc_cpu clock;   /* its process's CPU time */
	double cpu_credit_s;     /* measured CPU time not yet claimed */
	double wall_credit_s;    /* a game's time between presents, the same */
	int64_t last_present_ns; /* what the wall credit counted up to */
	double cpu_s;            /* CPU time it used last epoch (measured) */
	/* A game's frame longer than an epoch: the time since its last
	 * records (its CPU credit banks over it) and what counted of a claim
	 * beyond one epoch, counted in the epochs after */
	double unclaimed_s;
	double carry_s;
	/* tenants registered from its process, it included (daemon.c):
	 * they share the process's CPU time, or one process could claim it
	 * once per registration */
	unsigned same_pid;
	double claimed_s;     /* GPU time it claimed last epoch */
	double seen_s;        /* of it, what counts */
	double claimed_share; /* claimed per second, smoothed (status) */
	/* its records say software (BATON_FRAME_GPU_SOFTWARE) and its CPU
	 * time covered what they claimed: the last epoch that had records */
	bool software;
	bool unmeasured;        /* its CPU time cannot be read */
	bool unmeasured_logged; /* and batond said so (once) */
};

/* What one epoch's records (or a best-effort tenant's totals) claim. */
struct tenant_seen_claim {
	double gpu_s;     /* GPU time, summed */
	uint32_t records; /* records read (0: software stays as it was) */
	bool software;    /* one carried BATON_FRAME_GPU_SOFTWARE */
	int64_t last_present_ns; /* a game's last present this epoch, 0 for
	                            none or a best-effort tenant */
	bool game;               /* a game: its presents bound it */
};

/* Starts the measurements of process pid at its registration (now_ns),
 * its CPU time from proc_root ("/proc" unless a test says otherwise). */
void tenant_seen_open(struct tenant_seen *s, const char *proc_root, pid_t pid,
                      int64_t now_ns);

/* The tenant's peer connected at connected_boot_ns (CLOCK_BOOTTIME): if
 * the process tenant_seen_open found at its pid started later, that pid
 * was the peer's and has been reused since (the peer exited, a process
 * it left kept the connection): the tenant is unmeasured, as one whose
 * process cannot be read, never measured by someone else's CPU time. */
void tenant_seen_check_peer(struct tenant_seen *s, int64_t connected_boot_ns);

/* One epoch of length dt: samples the process's CPU time and returns the
 * GPU seconds that count of c, in [0, dt]. cpu_device: the tenant's GPU
 * is a CPU device (daemon_gpu_kind, or confirmed by a tenant's software
 * flag). */
double tenant_seen_epoch(struct tenant_seen *s,
                         const struct tenant_seen_claim *c, bool cpu_device,
                         double dt);
