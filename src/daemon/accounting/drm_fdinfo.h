/* One DRM file descriptor's usage statistics, as the kernel prints them
 * in /proc/PID/fdinfo/FD (the "DRM client usage stats" format of the
 * kernel's Documentation/gpu/drm-usage-stats.rst): "key:<TAB>value"
 * lines, among them
 *
 *   drm-driver: <name>            drm-pdev: <PCI slot>
 *   drm-client-id: <uint>         (several fds may share one client)
 *   drm-engine-<e>: <uint> ns     busy time of engine class e
 *   drm-engine-capacity-<e>: <n>  engines of that class (default 1)
 *   drm-cycles-<e>: <uint>        busy cycles, where a driver counts those
 *   drm-total-cycles-<e>: <uint>  the engine's cycles in all (xe)
 *   drm-maxfreq-<e>: <uint> [Hz|kHz|MHz]
 *   drm-total-<region>: <uint> [KiB|MiB]     drm-resident-<region>: ...
 *   drm-memory-<region>: <uint> [KiB|MiB]    (amdgpu, before 6.7)
 *
 * The text is a tenant's process's to shape (how many fds, which
 * drivers; the kernel writes the values): parsed as hostile input,
 * bounded, with nothing kept of a line it does not understand. Pure: no
 * I/O. What each driver's engine names mean is in drm_engine_class. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRM_FDINFO_NAME_MAX    24
#define DRM_FDINFO_PDEV_MAX    32
#define DRM_FDINFO_MAX_ENGINES 16
/* A longer line is no line of the format (a key is short, a value a
 * number and a unit): skipped whole. */
#define DRM_FDINFO_LINE_MAX 256

/* What an engine class does, for Baton: the game's own rendering (3D,
 * compute), the video engines (encode, decode), or anything else
 * (copy, DMA). */
enum drm_engine_class {
	DRM_ENGINE_OTHER,
	DRM_ENGINE_RENDER,
	DRM_ENGINE_VIDEO,
};

struct drm_engine {
	char name[DRM_FDINFO_NAME_MAX];
	uint64_t busy_ns;      /* drm-engine-<e> */
	uint64_t cycles;       /* drm-cycles-<e> */
	uint64_t total_cycles; /* drm-total-cycles-<e> */
	uint64_t maxfreq_hz;   /* drm-maxfreq-<e>, 0 = none */
	unsigned capacity;     /* drm-engine-capacity-<e>, >= 1 */
	bool has_busy, has_cycles, has_total;
};

struct drm_fdinfo {
	char driver[DRM_FDINFO_NAME_MAX];
	char pdev[DRM_FDINFO_PDEV_MAX]; /* "" = none given */
	uint64_t client_id;
	bool has_client_id;
	struct drm_engine engines[DRM_FDINFO_MAX_ENGINES];
	unsigned n_engines;
	uint64_t resident_bytes; /* drm-resident-*, else drm-memory-* */
	uint64_t total_bytes;    /* drm-total-* */
};

/* Parses the text of one fdinfo file (len bytes, not necessarily
 * terminated). true if it is a DRM client's: it names its driver and its
 * client id. Engines past DRM_FDINFO_MAX_ENGINES and malformed or
 * over-long lines are left out. */
bool drm_fdinfo_parse(const char *text, size_t len, struct drm_fdinfo *out);

/* The class of engine `engine` of driver `driver` (amdgpu, i915, xe,
 * panthor, msm); DRM_ENGINE_OTHER for an engine or a driver it does not
 * know. */
enum drm_engine_class drm_engine_class(const char *driver, const char *engine);

/* The busy nanoseconds an engine's counters stand for, per engine of its
 * class: drm-engine-<e>'s time, else its cycles at drm-maxfreq-<e> (a
 * lower bound on the time: the engine may have run slower). false if it
 * gives neither (xe counts cycles against total cycles instead: a share
 * of the epoch, gpu_account.h). */
bool drm_engine_busy_ns(const struct drm_engine *e, uint64_t *ns);
