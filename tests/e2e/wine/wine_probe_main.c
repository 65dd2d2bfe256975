/* wine_probe.exe: a Windows program that renders frames in a window and
 * prints when each one was presented, for the Wine end-to-end tests
 * (wine_e2e.py). Cross-built with mingw-w64; runs under Wine.
 *
 *   wine_probe.exe --d3d|--vulkan [--frames N]
 *
 * --d3d presents through Direct3D 9 (WineD3D, on the host's OpenGL),
 * --vulkan through vulkan-1.dll (winevulkan, on the host's Vulkan loader)
 * with a surface from vkCreateWin32SurfaceKHR. Neither waits for vertical
 * blank: unpaced, the program runs as fast as the device draws.
 *
 * Output, after the last frame: "frame US" per frame (the time Present
 * returned, QueryPerformanceCounter in microseconds, measured here,
 * outside any limiter), then "done MODE N". Exit status 0, 1 when the
 * device or window could not be set up (the line says which call
 * failed), 2 for a usage error. */
#include "wine_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FRAMES 300
#define MAX_FRAMES     100000

static LRESULT CALLBACK window_proc(HWND w, UINT msg, WPARAM wp, LPARAM lp)
{
	if (msg == WM_CLOSE)
		return 0; /* the test ends the program, not the window */
	return DefWindowProcA(w, msg, wp, lp);
}

HWND probe_window(const char *title)
{
	WNDCLASSA wc;
	memset(&wc, 0, sizeof(wc));
	wc.lpfnWndProc = window_proc;
	wc.hInstance = GetModuleHandleA(NULL);
	wc.lpszClassName = "baton_wine_probe";
	wc.hCursor = LoadCursor(NULL, IDC_ARROW);
	if (!RegisterClassA(&wc))
		return NULL;
	HWND w = CreateWindowA(wc.lpszClassName, title, WS_OVERLAPPEDWINDOW, 0,
	                       0, PROBE_WIDTH, PROBE_HEIGHT, NULL, NULL,
	                       wc.hInstance, NULL);
	if (w) {
		ShowWindow(w, SW_SHOW);
		UpdateWindow(w);
	}
	return w;
}

void probe_pump(void)
{
	MSG m;
	while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {
		TranslateMessage(&m);
		DispatchMessageA(&m);
	}
}

int64_t probe_now_us(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER t;
	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&t);
	return (int64_t)(t.QuadPart / freq.QuadPart * 1000000 +
	                 t.QuadPart % freq.QuadPart * 1000000 / freq.QuadPart);
}

int probe_fail(const char *what, long code)
{
	fprintf(stderr, "wine_probe: %s failed (0x%lx)\n", what,
	        (unsigned long)code);
	return 1;
}

static int usage(const char *why)
{
	fprintf(stderr,
	        "wine_probe: %s\n"
	        "usage: wine_probe.exe --d3d|--vulkan [--frames N]\n",
	        why);
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	long frames = DEFAULT_FRAMES;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--d3d") || !strcmp(argv[i], "--vulkan")) {
			mode = argv[i] + 2;
		} else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
			char *end;
			frames = strtol(argv[++i], &end, 10);
			if (*end || frames < 1 || frames > MAX_FRAMES)
				return usage("--frames wants 1 to 100000");
		} else if (!strcmp(argv[i], "--help")) {
			usage("renders frames and prints when each was "
			      "presented");
			return 0;
		} else {
			fprintf(stderr, "wine_probe: unknown argument '%s'\n",
			        argv[i]);
			return usage("bad arguments");
		}
	}
	if (!mode)
		return usage("--d3d or --vulkan is required");
	int64_t *t = calloc((size_t)frames, sizeof(*t));
	if (!t)
		return probe_fail("calloc", 0);
	int rc = !strcmp(mode, "d3d") ? probe_run_d3d9(t, (int)frames)
	                              : probe_run_vulkan(t, (int)frames);
	if (rc != 0)
		return rc;
	for (long i = 0; i < frames; i++)
		printf("frame %lld\n", (long long)t[i]);
	printf("done %s %ld\n", mode, frames);
	fflush(stdout);
	free(t);
	return 0;
}
