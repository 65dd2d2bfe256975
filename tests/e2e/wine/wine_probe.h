/* The parts of wine_probe.exe (wine_probe_main.c): a window, a clock,
 * and one renderer per presentation path. */
#ifndef BATON_WINE_PROBE_H
#define BATON_WINE_PROBE_H

#include <stdint.h>
#include <windows.h>

#define PROBE_WIDTH  320
#define PROBE_HEIGHT 240

/* A shown top-level window titled title; NULL on failure. */
HWND probe_window(const char *title);
/* Handles the window messages waiting, without blocking. */
void probe_pump(void);
/* QueryPerformanceCounter in microseconds. */
int64_t probe_now_us(void);
/* Prints "wine_probe: WHAT failed (0xCODE)" and returns 1. */
int probe_fail(const char *what, long code);

/* Render n frames, t[i] the time frame i's Present returned; 0, or the
 * exit status after a failure (already reported). */
int probe_run_d3d9(int64_t *t, int n);
int probe_run_vulkan(int64_t *t, int n);

#endif
