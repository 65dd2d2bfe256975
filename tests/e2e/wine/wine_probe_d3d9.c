/* Direct3D 9 frames: a clear to a colour that changes each frame, then
 * Present with no wait for vertical blank. Under Wine, d3d9.dll is
 * WineD3D drawing with the host's OpenGL, and Present ends in the X11
 * driver's glXSwapBuffers. */
#include <d3d9.h>

#include "wine_probe.h"

static int render(IDirect3DDevice9 *dev, int64_t *t, int n)
{
	for (int i = 0; i < n; i++) {
		probe_pump();
		D3DCOLOR c = D3DCOLOR_XRGB(i & 0xff, (i * 3) & 0xff, 0x40);
		HRESULT hr = IDirect3DDevice9_Clear(
		    dev, 0, NULL, D3DCLEAR_TARGET, c, 1.0f, 0);
		if (SUCCEEDED(hr))
			hr = IDirect3DDevice9_BeginScene(dev);
		if (SUCCEEDED(hr))
			hr = IDirect3DDevice9_EndScene(dev);
		if (SUCCEEDED(hr))
			hr = IDirect3DDevice9_Present(dev, NULL, NULL, NULL,
			                              NULL);
		if (FAILED(hr))
			return probe_fail("IDirect3DDevice9 frame", hr);
		t[i] = probe_now_us();
	}
	return 0;
}

int probe_run_d3d9(int64_t *t, int n)
{
	HWND w = probe_window("wine_probe d3d9");
	if (!w)
		return probe_fail("CreateWindow", (long)GetLastError());
	IDirect3D9 *d3d = Direct3DCreate9(D3D_SDK_VERSION);
	if (!d3d)
		return probe_fail("Direct3DCreate9", 0);
	D3DPRESENT_PARAMETERS pp;
	ZeroMemory(&pp, sizeof(pp));
	pp.Windowed = TRUE;
	pp.SwapEffect = D3DSWAPEFFECT_DISCARD;
	pp.BackBufferFormat = D3DFMT_X8R8G8B8;
	pp.BackBufferWidth = PROBE_WIDTH;
	pp.BackBufferHeight = PROBE_HEIGHT;
	pp.hDeviceWindow = w;
	pp.PresentationInterval = D3DPRESENT_INTERVAL_IMMEDIATE;
	IDirect3DDevice9 *dev = NULL;
	HRESULT hr = IDirect3D9_CreateDevice(
	    d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, w,
	    D3DCREATE_SOFTWARE_VERTEXPROCESSING, &pp, &dev);
	if (FAILED(hr)) {
		IDirect3D9_Release(d3d);
		return probe_fail("IDirect3D9_CreateDevice", hr);
	}
	int rc = render(dev, t, n);
	IDirect3DDevice9_Release(dev);
	IDirect3D9_Release(d3d);
	DestroyWindow(w);
	return rc;
}
