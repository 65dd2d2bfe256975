/* The libxcb image requests the frame-time probes stamp: xcb_put_image and
 * xcb_shm_put_image, the way Mesa's software WSI (EGL on X11, lavapipe
 * without the Present extension) hands a frame to the X server. One copy
 * for both probes (bench/swap_probe.c, tests/e2e/daemon/xcb_probe.c).
 *
 * Include it once, after defining stamp() and PROBE_NEXT(name), which
 * finds the next definition of a symbol (dlsym(RTLD_NEXT, name), or a
 * lookup that survives another preload's dlsym hook). Declared without the
 * xcb headers: the cookie is a struct of one unsigned int, returned in a
 * register, and every argument is an integer or a pointer passed through
 * untouched. */
#pragma once

#include <stdint.h>

#ifndef EXPORT
#define EXPORT __attribute__((visibility("default")))
#endif

typedef struct {
	unsigned int sequence;
} probe_xcb_cookie;

#define XCB_PUT_ARGS                                                           \
	void *c, uint8_t format, uint32_t drawable, uint32_t gc,               \
	    uint16_t width, uint16_t height, int16_t dst_x, int16_t dst_y,     \
	    uint8_t left_pad, uint8_t depth, uint32_t data_len,                \
	    const uint8_t *data
#define XCB_PUT_CALL                                                           \
	c, format, drawable, gc, width, height, dst_x, dst_y, left_pad, depth, \
	    data_len, data
typedef probe_xcb_cookie (*xcb_put_fn)(XCB_PUT_ARGS);

EXPORT probe_xcb_cookie xcb_put_image(XCB_PUT_ARGS);
EXPORT probe_xcb_cookie xcb_put_image(XCB_PUT_ARGS)
{
	static xcb_put_fn real;
	if (!real)
		real = (xcb_put_fn)PROBE_NEXT("xcb_put_image");
	stamp();
	return real(XCB_PUT_CALL);
}

#define XCB_SHM_PUT_ARGS                                                       \
	void *c, uint32_t drawable, uint32_t gc, uint16_t total_width,         \
	    uint16_t total_height, uint16_t src_x, uint16_t src_y,             \
	    uint16_t src_width, uint16_t src_height, int16_t dst_x,            \
	    int16_t dst_y, uint8_t depth, uint8_t format, uint8_t send_event,  \
	    uint32_t shmseg, uint32_t offset
#define XCB_SHM_PUT_CALL                                                       \
	c, drawable, gc, total_width, total_height, src_x, src_y, src_width,   \
	    src_height, dst_x, dst_y, depth, format, send_event, shmseg,       \
	    offset
typedef probe_xcb_cookie (*xcb_shm_put_fn)(XCB_SHM_PUT_ARGS);

EXPORT probe_xcb_cookie xcb_shm_put_image(XCB_SHM_PUT_ARGS);
EXPORT probe_xcb_cookie xcb_shm_put_image(XCB_SHM_PUT_ARGS)
{
	static xcb_shm_put_fn real;
	if (!real)
		real = (xcb_shm_put_fn)PROBE_NEXT("xcb_shm_put_image");
	stamp();
	return real(XCB_SHM_PUT_CALL);
}
