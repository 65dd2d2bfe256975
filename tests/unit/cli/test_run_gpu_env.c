/* The environment baton run gives a program for one of batond's GPUs
 * (src/cli/run_gpu_env.c): an NVIDIA GPU (NVML's UUID) gets
 * CUDA_VISIBLE_DEVICES in NVML's GPU-8-4-4-4-12 form and the PRIME
 * render offload variables, a Mesa GPU with a PCI slot DRI_PRIME in the
 * pci-DDDD_BB_DD_F form, a core set BATON_GPU alone; malformed values
 * from the reply are dropped, not passed on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli/run_gpu_env.h"

static const char *get(const struct run_gpu_env *e, const char *key)
{
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->v[i].key, key) == 0)
			return e->v[i].value;
	return NULL;
}

static void nvidia(void **state)
{
	(void)state;
	struct run_gpu_target t = {.name = "gpu1",
	                           .pci = "0000:41:00.0",
	                           .uuid = "6a1c4f0e2b3d4c5e8f9a0b1c2d3e4f50",
	                           .kind = "hardware"};
	struct run_gpu_env e;
	run_gpu_env_for(&t, &e);
	assert_string_equal(get(&e, "BATON_GPU"), "gpu1");
	assert_string_equal(get(&e, "BATON_VK_DEVICE_UUID"),
	                    "6a1c4f0e2b3d4c5e8f9a0b1c2d3e4f50");
	assert_string_equal(get(&e, "CUDA_VISIBLE_DEVICES"),
	                    "GPU-6a1c4f0e-2b3d-4c5e-8f9a-0b1c2d3e4f50");
	assert_string_equal(get(&e, "__NV_PRIME_RENDER_OFFLOAD"), "1");
	assert_string_equal(get(&e, "__GLX_VENDOR_LIBRARY_NAME"), "nvidia");
	assert_string_equal(get(&e, "__VK_LAYER_NV_optimus"), "NVIDIA_only");
	assert_null(get(&e, "DRI_PRIME"));
	assert_string_equal(get(&e, "BATON_DEVICE_PCI"), "0000:41:00.0");
}

static void mesa(void **state)
{
	(void)state;
	struct run_gpu_target t = {.name = "gpu0",
	                           .pci = "0000:03:00.0",
	                           .uuid = "",
	                           .kind = "hardware"};
	struct run_gpu_env e;
	run_gpu_env_for(&t, &e);
	assert_int_equal(e.n, 3);
	assert_string_equal(get(&e, "DRI_PRIME"), "pci-0000_03_00_0");
	assert_string_equal(get(&e, "BATON_DEVICE_PCI"), "0000:03:00.0");
	assert_null(get(&e, "CUDA_VISIBLE_DEVICES"));
	assert_null(get(&e, "BATON_VK_DEVICE_UUID"));
}

/* sysfs writes slots in lowercase, udev's ID_PATH_TAG too: a slot given
 * in capitals (the config's device) still matches Mesa's tag. */
static void mesa_slot_in_capitals(void **state)
{
	(void)state;
	struct run_gpu_target t = {.name = "gpu0",
	                           .pci = "0000:0A:1F.7",
	                           .uuid = "",
	                           .kind = "hardware"};
	struct run_gpu_env e;
	run_gpu_env_for(&t, &e);
	assert_string_equal(get(&e, "DRI_PRIME"), "pci-0000_0a_1f_7");
}

static void core_set(void **state)
{
	(void)state;
	struct run_gpu_target t = {
	    .name = "left", .pci = "", .uuid = "", .kind = "cpus"};
	struct run_gpu_env e;
	run_gpu_env_for(&t, &e);
	assert_int_equal(e.n, 1);
	assert_string_equal(get(&e, "BATON_GPU"), "left");
}

/* A logical GPU given a UUID in the config (a Vulkan device to show):
 * the layer's filter, none of NVIDIA's variables. */
static void core_set_with_uuid(void **state)
{
	(void)state;
	struct run_gpu_target t = {.name = "lvp",
	                           .pci = "",
	                           .uuid = "00112233445566778899aabbccddeeff",
	                           .kind = "cpus"};
	struct run_gpu_env e;
	run_gpu_env_for(&t, &e);
	assert_string_equal(get(&e, "BATON_VK_DEVICE_UUID"),
	                    "00112233445566778899aabbccddeeff");
	assert_null(get(&e, "CUDA_VISIBLE_DEVICES"));
	assert_null(get(&e, "__GLX_VENDOR_LIBRARY_NAME"));
}

static void malformed_values_are_dropped(void **state)
{
	(void)state;
	static const char *const bad_pci[] = {
	    "0000:03:00.0;x", "0000-03-00.0", "000:003:00.0",
	    "0000:g3:00.0",   "0000:03:00.",  "../../etc/x",
	};
	for (size_t i = 0; i < sizeof(bad_pci) / sizeof(bad_pci[0]); i++) {
		struct run_gpu_target t = {.name = "g",
		                           .pci = bad_pci[i],
		                           .uuid = "",
		                           .kind = "hardware"};
		struct run_gpu_env e;
		run_gpu_env_for(&t, &e);
		if (get(&e, "DRI_PRIME") || get(&e, "BATON_DEVICE_PCI"))
			fail_msg("pci %s gave DRI_PRIME=%s", bad_pci[i],
			         get(&e, "DRI_PRIME"));
	}
	static const char *const bad_uuid[] = {
	    "6A1C4F0E2B3D4C5E8F9A0B1C2D3E4F50",
	    "6a1c4f0e",
	    "x",
	    "6a1c4f0e2b3d4c5e8f9a0b1c2d3e4f50aa",
	    "6a1c4f0e-2b3d-4c5e-8f9a-0b1c2d3e4f",
	};
	for (size_t i = 0; i < sizeof(bad_uuid) / sizeof(bad_uuid[0]); i++) {
		struct run_gpu_target t = {.name = "g",
		                           .pci = "",
		                           .uuid = bad_uuid[i],
		                           .kind = "hardware"};
		struct run_gpu_env e;
		run_gpu_env_for(&t, &e);
		assert_int_equal(e.n, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nvidia),
	    cmocka_unit_test(mesa),
	    cmocka_unit_test(mesa_slot_in_capitals),
	    cmocka_unit_test(core_set),
	    cmocka_unit_test(core_set_with_uuid),
	    cmocka_unit_test(malformed_values_are_dropped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
