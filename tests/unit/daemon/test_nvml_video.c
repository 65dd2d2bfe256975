/* The encoder and VRAM sources (daemon/accounting/): NVML's video and
 * memory figures through the stub libnvidia-ml (stub_nvml_video.c,
 * scripted by a file), and amdgpu's sysfs VRAM files on a fake tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/accounting/gpu_res.h"
#include "daemon/accounting/nvml_video.h"
#include "nvml_script.h"

/* Both devices' figures; what a device has no line for is unsupported
 * there, its flag false. */
static void test_nvml_figures(void **state)
{
	(void)state;
	nvml_script_write("0 encoder 40\n0 decoder 15\n"
	                  "0 memory 8589934592 2147483648\n"
	                  "0 session 4242 1920 1080 60\n"
	                  "0 session 4343 1280 720 30\n"
	                  "1 memory 17179869184 0\n");
	struct nvml_video *n = nvml_video_open(getenv("BATON_STUB_NVML"));
	assert_non_null(n);
	struct nvml_video_gpu g[4];
	assert_int_equal(nvml_video_read(n, g, 4), 2);
	assert_string_equal(g[0].uuid,
	                    "GPU-6a1c4f2e-0000-1111-2222-333344445551");
	assert_true(g[0].has_encoder);
	assert_float_equal(g[0].encoder_util, 0.40, 1e-12);
	assert_true(g[0].has_decoder);
	assert_float_equal(g[0].decoder_util, 0.15, 1e-12);
	assert_true(g[0].has_memory);
	assert_int_equal(g[0].memory_total, 8589934592ull);
	assert_int_equal(g[0].memory_used, 2147483648ull);
	assert_int_equal(g[0].n_sessions, 2);
	assert_int_equal(g[0].sessions[0].pid, 4242);
	assert_float_equal(g[0].sessions[0].pixels_per_s, 1920.0 * 1080 * 60,
	                   0.0);
	assert_float_equal(g[0].sessions[1].pixels_per_s, 1280.0 * 720 * 30,
	                   0.0);
	/* device 1: memory only */
	assert_false(g[1].has_encoder);
	assert_false(g[1].has_decoder);
	assert_true(g[1].has_memory);
	assert_int_equal(g[1].memory_total, 17179869184ull);
	assert_int_equal(g[1].n_sessions, 0);
	/* the script changes: the next read says so (no caching) */
	nvml_script_write("0 encoder 100\n0 encoder 101\n");
	assert_int_equal(nvml_video_read(n, g, 1), 1);
	assert_false(g[0].has_memory);
	/* the last line wins in the stub: 101 % is no utilization */
	assert_false(g[0].has_encoder);
	nvml_video_close(n);
}

/* More encoder sessions than batond reads: NVML says
 * INSUFFICIENT_SIZE, the list stays empty, the utilization counts. */
static void test_nvml_too_many_sessions(void **state)
{
	(void)state;
	char text[64 * (NVML_VIDEO_MAX_SESSIONS + 2)];
	int len = snprintf(text, sizeof(text), "0 encoder 90\n");
	for (int i = 0; i < NVML_VIDEO_MAX_SESSIONS + 1; i++)
		len += snprintf(text + len, sizeof(text) - (size_t)len,
		                "0 session %d 640 360 30\n", 1000 + i);
	nvml_script_write(text);
	struct nvml_video *n = nvml_video_open(getenv("BATON_STUB_NVML"));
	assert_non_null(n);
	struct nvml_video_gpu g[2];
	assert_int_equal(nvml_video_read(n, g, 2), 2);
	assert_true(g[0].has_encoder);
	assert_int_equal(g[0].n_sessions, 0);
	nvml_video_close(n);
}

static void test_nvml_absent(void **state)
{
	(void)state;
	assert_null(nvml_video_open("/nonexistent/libnvidia-ml.so.1"));
	assert_int_equal(nvml_video_read(NULL, NULL, 0), 0);
	nvml_video_close(NULL);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* amdgpu's mem_info_vram_total and _used under a fake sysfs. */
static void test_sysfs_vram(void **state)
{
	(void)state;
	char root[] = "/tmp/baton-sysfs-XXXXXX", dir[256], path[320];
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/bus", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/bus/pci", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/0000:03:00.0", root);
	mkdir(dir, 0755);
	uint64_t total = 0, used = 0;
	assert_false(gpu_res_sysfs_vram(root, "0000:03:00.0", &total, &used));
	snprintf(path, sizeof(path), "%s/mem_info_vram_total", dir);
	put_file(path, "17163091968\n");
	assert_false(gpu_res_sysfs_vram(root, "0000:03:00.0", &total, &used));
	char used_path[320];
	snprintf(used_path, sizeof(used_path), "%s/mem_info_vram_used", dir);
	put_file(used_path, "1073741824\n");
	assert_true(gpu_res_sysfs_vram(root, "0000:03:00.0", &total, &used));
	assert_int_equal(total, 17163091968ull);
	assert_int_equal(used, 1073741824ull);
	/* malformed, no PCI slot, a slot that is a path */
	put_file(used_path, "lots\n");
	assert_false(gpu_res_sysfs_vram(root, "0000:03:00.0", &total, &used));
	put_file(used_path, "12x\n");
	assert_false(gpu_res_sysfs_vram(root, "0000:03:00.0", &total, &used));
	assert_false(gpu_res_sysfs_vram(root, "", &total, &used));
	assert_false(gpu_res_sysfs_vram(root, "../../x", &total, &used));
	unlink(path);
	unlink(used_path);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/bus/pci", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/bus", root);
	rmdir(dir);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nvml_figures),
	    cmocka_unit_test(test_nvml_too_many_sessions),
	    cmocka_unit_test(test_nvml_absent),
	    cmocka_unit_test(test_sysfs_vram),
	};
	return cmocka_run_group_tests(tests, nvml_script_setup,
	                              nvml_script_teardown);
}
