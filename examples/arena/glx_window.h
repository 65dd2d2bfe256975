/* An X11 window with an OpenGL 3.3 core GLX context made current. */
#pragma once

struct glx_window;

struct glx_window *glx_window_open(int width, int height, const char *title);
void glx_window_swap(struct glx_window *w);
void glx_window_close(struct glx_window *w);
