/* The window and the 3.3 core context (GLX_ARB_create_context). */
#include "glx_window.h"

#include <GL/glx.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef GLX_CONTEXT_MAJOR_VERSION_ARB
#define GLX_CONTEXT_MAJOR_VERSION_ARB    0x2091
#define GLX_CONTEXT_MINOR_VERSION_ARB    0x2092
#define GLX_CONTEXT_PROFILE_MASK_ARB     0x9126
#define GLX_CONTEXT_CORE_PROFILE_BIT_ARB 0x00000001
#endif

typedef GLXContext (*create_context_attribs_fn)(Display *, GLXFBConfig,
                                                GLXContext, Bool, const int *);

struct glx_window {
	Display *dpy;
	Window win;
	Colormap cmap;
	GLXContext ctx;
};

static struct glx_window *fail(struct glx_window *w, const char *why)
{
	fprintf(stderr, "arena: %s\n", why);
	glx_window_close(w);
	return NULL;
}

struct glx_window *glx_window_open(int width, int height, const char *title)
{
	struct glx_window *w = calloc(1, sizeof(*w));
	if (!w)
		return fail(NULL, "out of memory");
	w->dpy = XOpenDisplay(NULL);
	if (!w->dpy)
		return fail(w, "cannot open the X display (is DISPLAY set?)");
	static const int fb_attribs[] = {GLX_X_RENDERABLE,
	                                 True,
	                                 GLX_DRAWABLE_TYPE,
	                                 GLX_WINDOW_BIT,
	                                 GLX_RENDER_TYPE,
	                                 GLX_RGBA_BIT,
	                                 GLX_RED_SIZE,
	                                 8,
	                                 GLX_GREEN_SIZE,
	                                 8,
	                                 GLX_BLUE_SIZE,
	                                 8,
	                                 GLX_DEPTH_SIZE,
	                                 24,
	                                 GLX_DOUBLEBUFFER,
	                                 True,
	                                 None};
	int n = 0;
	GLXFBConfig *cfgs =
	    glXChooseFBConfig(w->dpy, DefaultScreen(w->dpy), fb_attribs, &n);
	if (!cfgs || n < 1)
		return fail(w, "no GLX framebuffer config with RGB8 and depth");
	GLXFBConfig cfg = cfgs[0];
	XFree(cfgs);
	XVisualInfo *vi = glXGetVisualFromFBConfig(w->dpy, cfg);
	if (!vi)
		return fail(w, "no X visual for the GLX config");
	Window root = RootWindow(w->dpy, vi->screen);
	w->cmap = XCreateColormap(w->dpy, root, vi->visual, AllocNone);
	XSetWindowAttributes swa = {.colormap = w->cmap,
	                            .event_mask = StructureNotifyMask};
	w->win = XCreateWindow(w->dpy, root, 0, 0, (unsigned)width,
	                       (unsigned)height, 0, vi->depth, InputOutput,
	                       vi->visual, CWColormap | CWEventMask, &swa);
	XFree(vi);
	if (!w->win)
		return fail(w, "cannot create the window");
	XStoreName(w->dpy, w->win, title);
	XMapWindow(w->dpy, w->win);

	create_context_attribs_fn create =
	    (create_context_attribs_fn)glXGetProcAddressARB(
	        (const GLubyte *)"glXCreateContextAttribsARB");
	if (!create)
		return fail(w, "GLX_ARB_create_context is missing");
	static const int ctx_attribs[] = {GLX_CONTEXT_MAJOR_VERSION_ARB,
	                                  3,
	                                  GLX_CONTEXT_MINOR_VERSION_ARB,
	                                  3,
	                                  GLX_CONTEXT_PROFILE_MASK_ARB,
	                                  GLX_CONTEXT_CORE_PROFILE_BIT_ARB,
	                                  None};
	w->ctx = create(w->dpy, cfg, NULL, True, ctx_attribs);
	XSync(w->dpy, False);
	if (!w->ctx)
		return fail(w, "cannot create an OpenGL 3.3 core context");
	if (!glXMakeCurrent(w->dpy, w->win, w->ctx))
		return fail(w, "cannot make the OpenGL context current");
	return w;
}

void glx_window_swap(struct glx_window *w)
{
	glXSwapBuffers(w->dpy, w->win);
}

void glx_window_close(struct glx_window *w)
{
	if (!w)
		return;
	if (w->dpy) {
		if (w->ctx) {
			glXMakeCurrent(w->dpy, None, NULL);
			glXDestroyContext(w->dpy, w->ctx);
		}
		if (w->win)
			XDestroyWindow(w->dpy, w->win);
		if (w->cmap)
			XFreeColormap(w->dpy, w->cmap);
		XCloseDisplay(w->dpy);
	}
	free(w);
}
