/* GPU time per frame for the shim's predictor (shim_gpu_time), measured in
 * the app's own context around each frame:
 *
 *  - timer queries (GL 3.3, ARB_timer_query, EXT_disjoint_timer_query on
 *    GLES): a GL_TIMESTAMP right after each swap returns and one right
 *    before the next swap; GPU time = end - start. The GPU stamps the start
 *    when it executes it, and the driver buffers it with the frame's first
 *    commands until they are flushed, so the time in which the CPU built
 *    the frame (or we slept) is mostly not counted.
 *  - else fences (GL 3.2, ARB_sync, GLES 3): a fence before the swap,
 *    polled without waiting at the next swaps; GPU time = when we saw it
 *    signalled - when it was submitted, an over-estimate by up to one
 *    polling interval (flagged BATON_FRAME_GPU_FENCE).
 *  - software rasterizers (llvmpipe, softpipe), whose timestamps are
 *    per tile: how long the real swap took, since their swap rasterizes
 *    the frame and returns when it is done (also flagged as a fence).
 *  - else nothing.
 *
 * Results are read back a frame or more later, only once the GL says they
 * are available: the app never stalls on our queries. The mode is chosen
 * once per context from its renderer, version and extensions. Our GL calls
 * change no binding and raise no GL error the app could see. */
#pragma once

#include <stdint.h>

#include "shim/gl/gl_real.h"

/* Before the process's first frame reaches the shim core (whose first
 * frame starts registration): the current context's device UUID
 * (GL_EXT_memory_object), so that it is in the hello. Once a process. */
void gl_timer_first_frame(enum gl_family family);
/* Right before the real swap of shim frame `frame`, with the app's context
 * current. Both calls come between shim_frame_begin and shim_frame_end,
 * which keep frames one at a time. */
void gl_timer_before_swap(enum gl_family family, uint64_t frame);
/* Right after the real swap of shim frame `frame` returned. */
void gl_timer_after_swap(enum gl_family family, uint64_t frame);
/* The app destroys ctx: drop what we hold for it (its query names die with
 * it, and a new context may get the same address). */
void gl_timer_forget_context(void *ctx);
