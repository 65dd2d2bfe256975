#include "shim/shim_hello.h"

#include <stdatomic.h>
#include <stdio.h>

#include "ipc/json_escape.h"
#include "ipc/proto.h"

/* A frame rate as a JSON number with three decimals. By hand, because
 * printf's %g follows the game's LC_NUMERIC and would write "59,94". */
static void format_fps(char *out, size_t len, double fps)
{
	long long milli = (long long)(fps * 1000.0 + 0.5);
	snprintf(out, len, "%lld.%03lld", milli / 1000, milli % 1000);
}

/* Set from the thread that creates the device, read by the one that
 * presents: the hex digits first, then the flag (release). */
static char gpu_uuid[33];
static atomic_int gpu_uuid_state; /* 0 none, 1 being written, 2 set */

void shim_set_gpu_uuid(const unsigned char uuid[16])
{
	int none = 0, zero = 1;
	for (int i = 0; i < 16; i++)
		zero &= uuid[i] == 0;
	/* all zeros: a driver that filled no ID properties */
	if (zero || !atomic_compare_exchange_strong(&gpu_uuid_state, &none, 1))
		return;
	for (int i = 0; i < 16; i++)
		snprintf(gpu_uuid + 2 * i, 3, "%02x", uuid[i]);
	atomic_store_explicit(&gpu_uuid_state, 2, memory_order_release);
}

size_t shim_hello_format(char *buf, size_t len, const struct shim_config *cfg,
                         enum shim_api api)
{
	/* Six bytes per character at worst. */
	char name[SHIM_NAME_MAX * 6 + 1];
	if (!ipc_json_escape(name, sizeof(name),
	                     cfg->name[0] ? cfg->name : "?"))
		return 0;
	char sla[32], fixed[32], cap[48] = "";
	format_fps(sla, sizeof(sla), cfg->sla_fps);
	format_fps(fixed, sizeof(fixed), cfg->fixed_fps);
	/* BATON_CAP, when set, is published to batond too (status, the
	 * capacity stage); shim_config already refused values outside
	 * (0, 1]. Six decimals by hand, as format_fps. */
	if (cfg->cap > 0.0 && cfg->cap <= 1.0) {
		long long micro = (long long)(cfg->cap * 1e6 + 0.5);
		if (micro < 1)
			micro = 1;
		snprintf(cap, sizeof(cap), ",\"cap\":%lld.%06lld",
		         micro / 1000000, micro % 1000000);
	}
	/* BATON_GPU (`baton run --gpu`): the GPU batond should count it on */
	char gpu[sizeof(cfg->gpu) * 6 + 16] = "";
	char gesc[sizeof(cfg->gpu) * 6 + 1];
	if (cfg->gpu[0] && ipc_json_escape(gesc, sizeof(gesc), cfg->gpu))
		snprintf(gpu, sizeof(gpu), ",\"gpu\":\"%s\"", gesc);
	/* the device's UUID (hex digits only: nothing to escape) */
	char uuid[64] = "";
	if (atomic_load_explicit(&gpu_uuid_state, memory_order_acquire) == 2)
		snprintf(uuid, sizeof(uuid), ",\"gpu_uuid\":\"%s\"", gpu_uuid);
	int n =
	    snprintf(buf, len,
	             "{\"type\":\"hello\",\"version\":%d,\"role\":\"tenant\","
	             "\"name\":\"%s\",\"sla_fps\":%s,\"fixed_fps\":%s,"
	             "\"api\":\"%s\"%s%s%s}\n",
	             BATON_PROTO_VERSION, name, sla, fixed,
	             api == SHIM_API_VULKAN ? "vulkan" : "gl", cap, gpu, uuid);
	if (n < 0 || (size_t)n >= len || (size_t)n > BATON_MSG_MAX)
		return 0;
	return (size_t)n;
}
