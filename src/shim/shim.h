/* The API-neutral half of the shim: what the OpenGL preload and the Vulkan
 * layer both call at Present. Everything here runs inside someone else's
 * game, so (docs/architecture.md, "The frame path is sacred"):
 * - per frame: read the control block, predict, maybe sleep, write one ring
 *   record; no locks, no allocation, no syscalls beyond clock reads and the
 *   sleep;
 * - libc, libdl and libpthread only; every symbol hidden except the hooks;
 *   silent unless BATON_LOG asks;
 * - fail open: no daemon means free running (or BATON_FPS); a daemon that
 *   dies leaves the last target in force; registration and reconnection
 *   happen on a background thread and never block a frame.
 *
 * Environment (read once, at the first Present):
 *   BATON_FPS=N        pin N FPS locally; works with no daemon at all
 *   BATON_CAP=C        cap the GPU time per second at C of one GPU, in
 *                      (0, 1]; works with no daemon at all; with a cap
 *                      from batond too, the smaller one holds
 *   BATON_SLA=N        SLA to register with batond (0/unset: its default);
 *                      the game runs at N from its first frame until
 *                      batond's control block says otherwise (unpaced if
 *                      registration fails: no daemon, no pacing)
 *   BATON_NAME=S       tenant name (default: the program's name)
 *   BATON_SOCKET=PATH  the daemon's socket (default: see ipc/socket_path.h)
 *   BATON_DISABLE=1    do nothing at all
 *   BATON_LOG=LEVEL    error|warn|info|debug, to stderr
 *   BATON_VRAM_LIMIT=SIZE  Vulkan: device-local allocations past SIZE
 *                      fail (read at vkCreateInstance; vulkan/vram.c)
 *   BATON_GL_GPU_TIME=timer|fence|swap  for tests and diagnosis: how GL
 *                      frames are timed (gl/gl_timer.c)
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum shim_api {
	SHIM_API_GL = 0,
	SHIM_API_VULKAN = 1,
};

/* Called by a front-end right before it calls the real Present. The first
 * call sets the shim up and registers the process (so launchers that only
 * inherit the preload never become tenants). Paces: returns after the sleep.
 * Returns the frame's sequence number (1, 2, ...), or 0 if the shim is
 * disabled, in which case shim_frame_end must not be called. */
uint64_t shim_frame_begin(enum shim_api api);

/* Called right after the real Present returns; writes the ring record. */
void shim_frame_end(uint64_t frame);

/* A GPU-time measurement for an earlier frame, from the front-end's
 * timestamp queries or fence waiter. Safe from any thread, lock-free: the
 * latest report wins and is picked up by the next frame. */
void shim_gpu_time(uint64_t frame, int64_t gpu_ns, bool from_fence);

/* The process presents from a software rasterizer (llvmpipe, lavapipe),
 * whose "GPU" is the CPU cores every tenant shares. From then on the GPU
 * time the shim reports to batond is the frame's cost on that device: the
 * process's CPU time per frame, pacing wait excluded, over the cores it may
 * run on. The front-end's own reports (the swap call's duration, a fence's
 * latency) still feed the pacer's prediction of when the frame shows. */
void shim_set_software_device(const char *why);

/* The device the process renders on has this UUID (Vulkan's deviceUUID,
 * 16 bytes): the hello sends it, and batond puts the tenant on the GPU
 * of that UUID (daemon/gpus.h). The first call wins. */
void shim_set_gpu_uuid(const unsigned char uuid[16]);
