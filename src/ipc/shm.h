/* The daemon <-> shim data plane: one memfd per tenant, created and sealed
 * by the shim, handed to batond over the control socket (SCM_RIGHTS).
 *
 *   [struct baton_shm_header]  64 B   magic, version, sizes, offsets
 *   [struct baton_control]     64 B   written by batond, read by the shim
 *   [struct baton_ring]        64 B   ring header, head written by the shim
 *   [struct baton_frame] x cap        one record per frame, by the shim
 *   [struct baton_quality]  6464 B    version 2: the game SDK's quality
 *                                      declarations and object counts
 *
 * The shim owns the memory, so a daemon that dies or restarts loses
 * nothing: the shim keeps the last target and hands the same memfd to the
 * next daemon. The daemon must treat every byte as hostile: it checks the
 * seals (F_SEAL_SHRINK | F_SEAL_GROW, so the mapping cannot SIGBUS), the
 * size, magic, version and offsets, copies records out before it looks at
 * them, and validates every field (ipc/ring.h).
 *
 * Only fixed-size types, no pointers: the layout is the same in every
 * 64-bit process. Reserved fields are written as zero and ignored when
 * read, so a later version can use them without breaking this one. */
#pragma once

#include <stdatomic.h>
#include <stdint.h>

#define BATON_SHM_MAGIC   0x31534d484e544142ULL /* "BATNHMS1" little-endian */
#define BATON_SHM_VERSION 2u
/* The layout before the quality area; batond still maps it (an older
 * shim's memfd) and drives no quality for it. */
#define BATON_SHM_VERSION_V1 1u
#define BATON_RING_CAPACITY  256u /* frames; a power of two */

struct baton_shm_header {
	uint64_t magic;          /* BATON_SHM_MAGIC */
	uint32_t version;        /* BATON_SHM_VERSION */
	uint32_t header_size;    /* sizeof(struct baton_shm_header) */
	uint64_t total_size;     /* bytes of the whole memfd */
	uint32_t control_offset; /* of struct baton_control */
	uint32_t ring_offset;    /* of struct baton_ring */
	uint32_t records_offset; /* of the first struct baton_frame */
	uint32_t record_size;    /* sizeof(struct baton_frame) */
	uint32_t capacity;       /* records, a power of two */
	uint32_t pid;            /* the tenant's pid, informative only */
	/* Version 2 (version 1 wrote both as zero): of struct
	 * baton_quality, right after the records. */
	uint32_t quality_offset;
	uint32_t quality_size;
	uint64_t reserved[1];
};

/* Written by batond under a seqlock: seq is odd while a write is under way.
 * The shim reads seq, the fields, then seq again, and uses the fields only
 * if both reads of seq are equal and even; otherwise it keeps what it had.
 * It never waits for the writer. */
struct baton_control {
	_Atomic uint32_t seq;
	uint32_t version;         /* BATON_SHM_VERSION */
	int64_t target_period_ns; /* 0 = unpaced, run free */
	uint64_t policy_epoch;    /* batond's tick counter */
	uint32_t flags;           /* BATON_CONTROL_* */
	uint32_t cap_ns_per_s;    /* GPU-time cap: GPU ns per second of wall
	                             time, 1 to BATON_CAP_MAX_NS_PER_S; 0 =
	                             none (core/gate.h). For a best-effort
	                             tenant: its harvesting budget, 0 = none
	                             (wait) */
	int64_t be_window_ns;     /* best-effort tenants only: the longest
	                             sub-launch it may start now (Eq. 1 of
	                             GPU grid, core/harvest.h), 0 = wait for
	                             the next write; 0 for games */
	union {
		int64_t be_slot_start_ns; /* best-effort tenants, periodical
		                             mode: an occurrence of the span
		                             in which every game waits
		                             (core/harvest_slot.h), on
		                             CLOCK_MONOTONIC */
		int64_t present_phase_ns; /* games, with BATON_CONTROL_PHASE:
		                             a time on CLOCK_MONOTONIC its
		                             Presents should fall on, every
		                             target_period_ns
		                             (core/harvest_phase.h) */
	};
	uint32_t be_slot_len_ns;    /* its length; 0 = no slot: start any
	                               time the window allows */
	uint32_t be_slot_period_ns; /* it recurs every period */
	uint32_t quality_level;     /* games with the SDK's quality API:
	                               the level batond chose + 1; 0 = none,
	                               the game keeps its default */
	uint32_t partition;         /* space harvesting: the compute units
	                               (cores, on a software rasterizer) this
	                               tenant may use, BATON_PARTITION(first,
	                               count); 0 = the whole device */
};

/* partition took the control block's last reserved field, which every
 * daemon before it wrote as zero ("the whole device"): an older daemon
 * confines nobody, and an older client ignores it. Layout and
 * BATON_SHM_VERSION unchanged. Units are counted in the order of the
 * process's own CPU set as it started (core/harvest_space.h). */
#define BATON_PARTITION(first, count)                                          \
	((uint32_t)(((first)&0xffffu) << 16 | ((count)&0xffffu)))
#define BATON_PARTITION_FIRST(p) ((uint32_t)(p) >> 16)
#define BATON_PARTITION_COUNT(p) ((uint32_t)(p)&0xffffu)

/* quality_level took the control block's last reserved field, which every
 * daemon before it wrote as zero ("none chosen"): an older daemon leaves
 * every game at its default level. */

/* A cap of one whole GPU. The cap took the place of a reserved field
 * that every daemon before it wrote as zero ("no cap"), so the layout and
 * BATON_SHM_VERSION are unchanged: an older daemon caps nobody, and the
 * shim ignores a value above this (a scribble, or a later version's
 * multi-GPU cap) and keeps the cap it had. */
#define BATON_CAP_MAX_NS_PER_S 1000000000u

#define BATON_CONTROL_VALID 1u /* a daemon has written a target */
/* Best-effort tenants: the GPU is fully idle (GPU grid's continuous mode,
 * core/harvest.h): sub-launches of be_window_ns back to back. Clear:
 * periodical, one sub-launch per window, then the rest the budget asks. */
#define BATON_CONTROL_BE_CONTINUOUS 2u
/* Best-effort tenants whose device is this host's CPUs and whose hello
 * asked for it ("idle"): the idle-priority lane (core/harvest_idle.h).
 * Sub-launches of be_window_ns back to back, in and out of the slot, the
 * process's threads at SCHED_IDLE; the rest the budget asks. No slot is
 * written then. Only a client that asked gets it, so an older client
 * never sees it; an older daemon never sets it. */
#define BATON_CONTROL_BE_IDLE 4u
/* Games: present_phase_ns is set; the shim moves its pacing grid toward
 * it a step per frame (core_pacer_steer). A game's control block had the
 * field as be_slot_start_ns, always written as zero, and no daemon before
 * set the flag: an older shim ignores both and keeps its own phase.
 * Layout and BATON_SHM_VERSION unchanged. */
#define BATON_CONTROL_PHASE 8u

/* be_window_ns, like cap_ns_per_s, took a reserved field every daemon
 * before it wrote as zero: an older daemon never opens a window, and a
 * best-effort client that sees BATON_CONTROL_VALID with no window waits
 * (or, with no daemon at all, runs its own probe loop); a game ignores
 * both. Layout and BATON_SHM_VERSION unchanged. */

/* The slot took two more reserved fields: an older daemon writes no slot
 * (len 0), and an older client ignores it and starts when the window
 * allows, as before. Layout and BATON_SHM_VERSION unchanged. */

/* Single producer (the shim's frame path), single consumer (batond). */
struct baton_ring {
	_Atomic uint64_t head; /* records ever written; record i lives at
	                          index i % capacity */
	/* Best-effort tenants only (0 for games): when the sub-launch under
	 * way was released to the device (CLOCK_MONOTONIC ns; 0 = none under
	 * way), and the window it was given (ns). Written by the client:
	 * the window first, then the release (release order); the release
	 * cleared to 0 when it reports the sub-launch. batond reads them
	 * each tick to flag a hung kernel (docs/harvesting.md, "stuck"). */
	_Atomic int64_t be_inflight_ns;
	_Atomic int64_t be_inflight_window_ns;
	/* Best-effort tenants only: the blocks and the device ns of every
	 * sub-launch reported, in all (wrapping), stored before the
	 * sub-launch's record is pushed. batond counts work and GPU time
	 * from their growth: the records of a tenant that reports more
	 * than BATON_RING_CAPACITY sub-launches a tick overrun each other. */
	_Atomic uint64_t be_blocks_total;
	_Atomic uint64_t be_device_ns_total;
	uint64_t reserved[3];
};

/* be_inflight_ns and be_inflight_window_ns took two of the ring header's
 * reserved fields, which every writer before them wrote as zero ("nothing
 * under way"): an older daemon ignores them, and a newer daemon reading
 * an older client sees no sub-launch under way, so never a stuck one.
 * Layout and BATON_SHM_VERSION unchanged. batond takes them as hostile:
 * a release in the future, or a window of 0 or above
 * IPC_FRAME_MAX_PERIOD_NS, counts as none; a release before the tenant's
 * registration counts from the registration.
 *
 * be_blocks_total and be_device_ns_total took two more, the same way: an
 * older client leaves them 0, and batond counts from its records as
 * before. A newer client is known by a total above 0 (its first report
 * makes both so). batond takes their growth per tick as hostile: a total
 * that goes backwards counts nothing, and the GPU time is bounded by the
 * tick as a record's is. */

/* One frame, written at Present. Times are CLOCK_MONOTONIC nanoseconds. */
struct baton_frame {
	uint64_t seq;             /* i + 1 for record i; written last */
	int64_t present_ns;       /* when the real Present was called */
	int64_t cpu_ns;           /* frame start to Present, sleep excluded */
	int64_t sleep_ns;         /* wait before Present: the pacer's sleep or
	                             the budget gate's, whichever was later */
	int64_t target_period_ns; /* the period in force, 0 = unpaced */
	int64_t gpu_ns;           /* GPU time of frame gpu_frame, < 0 if none
	                             was measured this frame */
	uint64_t gpu_frame;       /* seq of the frame gpu_ns belongs to (GPU
	                             timings arrive a frame or two late) */
	uint32_t flags;           /* BATON_FRAME_* */
	uint32_t gate_us;         /* of sleep_ns, the part the budget gate
	                             decided: how far past the pacer's wake
	                             (or past the frame's start when unpaced)
	                             the gate held the frame, in microseconds,
	                             rounded up (any gate wait is >= 1),
	                             never more than sleep_ns rounded up.
	                             0: the gate did not delay it. */
};

/* gate_us took the place of the record's reserved field, which every shim
 * before it wrote as zero and every daemon before it ignored: an older
 * daemon reads no gate waits (it takes the whole wait for pacing, as it
 * always did), and a newer daemon reading an older shim sees none either.
 * So the layout and BATON_SHM_VERSION are unchanged. A count, not a flag:
 * batond takes the gate's share out of the pacing sleep (core/reach.h),
 * and a frame the pacer and the gate both held shows how much was whose. */

#define BATON_FRAME_GPU_FENCE 1u /* gpu_ns from a fence, not timestamps */
/* gpu_ns is a software rasterizer's cost: the process's CPU time for the
 * frame over the cores it may use (shim_set_software_device). */
#define BATON_FRAME_GPU_SOFTWARE 2u
/* A best-effort tenant's record: one sub-launch, not a frame. present_ns
 * is when it was released to the device, gpu_ns its measured device time
 * (gpu_frame = seq: measured before the record is written), sleep_ns how
 * long it waited for a window or its budget before release (gate_us 0),
 * cpu_ns the work units it completed (blocks, >= 0), target_period_ns 0.
 * Only a best-effort registration may write it, and it may write nothing
 * else: batond drops a record of the wrong kind (a game's BATON_FRAME_BE,
 * a best-effort tenant's frame), counts it and logs it at most once a
 * second, and goes on reading. sleep_ns is not bounded by the 10 s of a
 * frame's wait (a window may stay shut while the games fill the GPU);
 * batond counts at most the time since the tenant's previous record (or
 * its registration) of it. gpu_ns is bounded as a frame's (< 10 s). */
#define BATON_FRAME_BE 4u

/* The game SDK's half of the quality API (include/baton/baton.h), written
 * by libbaton.so in the game, read by batond as hostile. Version 2 only.
 *
 * Declarations: the SDK writes every field below decl_seq, then decl_seq
 * = 1 (release order). batond copies them once, after it sees 1, and
 * validates the copy; they never change afterwards.
 *
 * Object counts: the SDK adds each frame's counts to the running sums
 * under obj_seq (odd while it adds; it never waits). batond takes the
 * differences between two of its ticks over the frames between, and keeps
 * the last epoch's means when a read is torn or runs backwards. */
struct baton_quality_type {
	uint32_t id;
	uint32_t vertices;
};

#define BATON_QUALITY_LEVELS_MAX 8u
#define BATON_QUALITY_TYPES_MAX  256u
#define BATON_QUALITY_NAME_SIZE  32u /* a name of up to 31 bytes + NUL */

struct baton_quality {
	_Atomic uint32_t decl_seq; /* 0 until declared, then 1 */
	uint32_t n_levels;         /* 1 to BATON_QUALITY_LEVELS_MAX */
	uint32_t default_level;    /* < n_levels */
	uint32_t n_types;          /* 0 to BATON_QUALITY_TYPES_MAX */
	char game_id[BATON_QUALITY_NAME_SIZE];
	char level_names[BATON_QUALITY_LEVELS_MAX][BATON_QUALITY_NAME_SIZE];
	struct baton_quality_type types[BATON_QUALITY_TYPES_MAX];
	_Atomic uint32_t obj_seq; /* odd while the sums change */
	uint32_t level_in_use;    /* the level the game last read */
	uint64_t frames;          /* frames reported, in all */
	uint64_t active_sum[BATON_QUALITY_TYPES_MAX];
	uint64_t potential_sum[BATON_QUALITY_TYPES_MAX];
};

_Static_assert(sizeof(struct baton_quality) == 6464, "quality layout");
_Static_assert(sizeof(struct baton_quality) % 64 == 0, "quality alignment");

_Static_assert(sizeof(struct baton_shm_header) == 64, "header layout");
_Static_assert(sizeof(struct baton_control) == 64, "control layout");
_Static_assert(sizeof(struct baton_ring) == 64, "ring layout");
_Static_assert(sizeof(struct baton_frame) == 64, "record layout");

#define BATON_SHM_SIZE_V1                                                      \
	(sizeof(struct baton_shm_header) + sizeof(struct baton_control) +      \
	 sizeof(struct baton_ring) +                                           \
	 BATON_RING_CAPACITY * sizeof(struct baton_frame))
#define BATON_SHM_QUALITY_OFFSET BATON_SHM_SIZE_V1
#define BATON_SHM_SIZE           (BATON_SHM_SIZE_V1 + sizeof(struct baton_quality))
