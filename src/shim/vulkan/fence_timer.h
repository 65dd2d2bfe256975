/* Per-frame GPU time from fences, for the shim's budget and predictor.
 *
 * At each present, before the pacing sleep, the layer submits an empty batch
 * with a layer-owned fence on the presenting queue. The fence signals when
 * everything queued before it has finished, that is when the frame being
 * presented is done on the GPU. A waiter thread (one per device) blocks on
 * the fences in submission order and reports
 *
 *     gpu_ns = signal - max(submit, previous signal)
 *
 * "signal - previous signal" alone would count the idle gap the pacing sleep
 * leaves between frames, so a paced game would always look as expensive as
 * its frame period. "signal - submit" alone would undercount a GPU-bound
 * game, whose frame starts only when the previous one ends, long before our
 * submit. The GPU is busy with this frame from the later of the two until the
 * fence signals. What remains uncounted is work the app queued and the GPU
 * started between the app's vkQueueSubmit and its vkQueuePresentKHR, which is
 * why the fence is submitted first thing in present, before the sleep.
 *
 * Only the presenting queue is measured: an app that renders on one queue
 * and presents on another gets the present queue's time. The pool has a few
 * fences; when all are in flight the frame goes unmeasured rather than
 * blocking the present.
 */
#pragma once

#include <stdint.h>
#include <vulkan/vulkan.h>

struct fence_timer;

/* Creates the fences and starts the waiter; NULL if anything fails (the
 * device then runs paced but unmeasured). */
struct fence_timer *fence_timer_create(VkDevice device,
                                       PFN_vkGetDeviceProcAddr gdpa);

/* Stops the waiter and destroys the fences; call before the device goes.
 * Accepts NULL. */
void fence_timer_destroy(struct fence_timer *timer);

/* Submits a fence behind the work queued so far on queue (which the caller
 * holds, as vkQueuePresentKHR does). Returns a ticket for fence_timer_attach,
 * or -1 when no fence is free. Never blocks. */
int64_t fence_timer_mark(struct fence_timer *timer, VkQueue queue);

/* Names the shim frame a marked fence measures (0: report nothing). Must be
 * called exactly once per ticket. */
void fence_timer_attach(struct fence_timer *timer, int64_t ticket,
                        uint64_t frame);
