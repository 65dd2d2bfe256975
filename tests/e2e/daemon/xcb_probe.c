/* bench/swap_probe.c's counterpart for Vulkan on lavapipe: a preload that
 * timestamps each frame as Mesa's X11 WSI hands it to the X server, outside
 * the Baton layer. lavapipe presents through the Present extension
 * (xcb_present_pixmap, MIT-SHM pixmaps) or, without it, xcb_put_image or
 * xcb_shm_put_image (bench/xcb_put_hooks.h, shared with swap_probe.c);
 * both are calls from Mesa into libxcb, so a preload sees them.
 *
 * Same file format as swap_probe.c, so the tests read both alike: the file
 * named by BATON_PROBE_OUT holds a uint64 count and then int64
 * CLOCK_MONOTONIC times in ns, in a shared mapping that survives the
 * process being killed. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../../bench/probe_file.h"

#define EXPORT __attribute__((visibility("default")))

#define PROBE_NEXT(name) dlsym(RTLD_NEXT, name)
#include "../../../bench/xcb_put_hooks.h"

/* xcb_void_cookie_t (xcb_put_hooks.h says how it is declared) */
typedef probe_xcb_cookie cookie_t;

#define PRESENT_ARGS                                                           \
	void *c, uint32_t window, uint32_t pixmap, uint32_t serial,            \
	    uint32_t valid, uint32_t update, int16_t x_off, int16_t y_off,     \
	    uint32_t target_crtc, uint32_t wait_fence, uint32_t idle_fence,    \
	    uint32_t options, uint64_t target_msc, uint64_t divisor,           \
	    uint64_t remainder, uint32_t notifies_len, const void *notifies
#define PRESENT_CALL                                                           \
	c, window, pixmap, serial, valid, update, x_off, y_off, target_crtc,   \
	    wait_fence, idle_fence, options, target_msc, divisor, remainder,   \
	    notifies_len, notifies

typedef cookie_t (*present_fn)(PRESENT_ARGS);

EXPORT cookie_t xcb_present_pixmap(PRESENT_ARGS);
EXPORT cookie_t xcb_present_pixmap(PRESENT_ARGS)
{
	static present_fn real;
	if (!real)
		real = (present_fn)dlsym(RTLD_NEXT, "xcb_present_pixmap");
	stamp();
	return real(PRESENT_CALL);
}

EXPORT cookie_t xcb_present_pixmap_checked(PRESENT_ARGS);
EXPORT cookie_t xcb_present_pixmap_checked(PRESENT_ARGS)
{
	static present_fn real;
	if (!real)
		real =
		    (present_fn)dlsym(RTLD_NEXT, "xcb_present_pixmap_checked");
	stamp();
	return real(PRESENT_CALL);
}
