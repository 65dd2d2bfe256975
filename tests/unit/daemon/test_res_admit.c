/* batond's encoder and VRAM each tick (daemon/tick/tick_res.h) and the
 * admission every asker shares (daemon_gpu_admit: the capacity request,
 * /metrics' admissible sessions, the Agones and Kubernetes publishers):
 * a GPU's figures from NVML (the stub libnvidia-ml, scripted), else the
 * config's VRAM; the count is the smallest of the 3D engine's, the
 * encoder's and VRAM's, and the reason names the one that refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/caps.h"
#include "daemon/accounting/nvml_video.h"
#include "daemon/daemon.h"
#include "daemon/tick/tick_res.h"
#include "nvml_script.h"

#define MIB (1024ull * 1024ull)
#define T0  1000000000000LL

/* A daemon of one GPU, "gpu0", whose 3D engine admits: its capacity
 * stage sampled, quiet, at load 0.1 under U_l 0.7. */
static void start(struct daemon *d, double vram_mb)
{
	struct daemon_config cfg;
	daemon_config_defaults(&cfg);
	cfg.metrics_on = false;
	cfg.n_gpus = 1;
	cfg.gpus[0] =
	    (struct daemon_gpu_conf){.name = "gpu0", .vram_mb = vram_mb};
	assert_true(daemon_init(d, &cfg));
	nvml_video_close(d->nvml_video); /* the driver's, if any: not here */
	d->nvml_video = NULL;
	d->sysfs_root = "/nonexistent";
	struct core_caps_gpu *c = &d->gpus[0].gpu.caps;
	c->sampled = true;
	c->quiet = c->periods = d->cfg.params.cap_quiet;
	c->total_load = 0.1;
}

/* NVML's figures reach the GPU matched by its UUID, once a second. */
static void test_nvml_gpu(void **state)
{
	(void)state;
	static struct daemon d;
	start(&d, 0);
	d.nvml_video = nvml_video_open(getenv("BATON_STUB_NVML"));
	assert_non_null(d.nvml_video);
	/* the stub's second device */
	daemon_gpus_uuid_norm("GPU-6a1c4f2e-0000-1111-2222-333344445552",
	                      d.gpus[0].uuid, sizeof(d.gpus[0].uuid));
	nvml_script_write("0 encoder 90\n"
	                  "1 encoder 55\n1 decoder 20\n"
	                  "1 memory 8589934592 6442450944\n");
	daemon_res_tick(&d, T0, 0.1);
	const struct gpu_res *r = &d.gpus[0].res;
	assert_string_equal(r->encoder_source, "nvml");
	assert_float_equal(r->encoder_util, 0.55, 1e-12);
	assert_true(r->has_decoder);
	assert_float_equal(r->decoder_util, 0.20, 1e-12);
	assert_string_equal(r->vram_source, "nvml");
	assert_int_equal(r->core.vram_total, 8192 * MIB);
	assert_int_equal(r->core.vram_used, 6144 * MIB);
	/* within the second: NVML is not read again */
	nvml_script_write("1 encoder 10\n");
	daemon_res_tick(&d, T0 + 500000000LL, 0.1);
	assert_float_equal(r->encoder_util, 0.55, 1e-12);
	daemon_res_tick(&d, T0 + 1000000000LL, 0.1);
	assert_float_equal(r->encoder_util, 0.10, 1e-12);
	/* memory gone from NVML, no sysfs, no config: unknown */
	assert_string_equal(r->vram_source, "none");
	assert_int_equal(r->core.vram_total, 0);
	daemon_finish(&d);
}

/* The smallest count, whichever binds; the reason names it. */
static void test_admit_smallest(void **state)
{
	(void)state;
	static struct daemon d;
	start(&d, 4096);
	daemon_res_tick(&d, T0, 0.1); /* no tenants: 0 of 4096 MiB used */
	struct gpu_res *r = &d.gpus[0].res;
	assert_string_equal(r->vram_source, "config");
	assert_string_equal(r->encoder_source, "none");
	assert_int_equal(r->core.vram_total, 4096 * MIB);
	/* 0.5 ms at 10 FPS: 0.005 each, (0.7 - 0.1) / 0.005 -> 119 */
	struct daemon_app app = {
	    .name = "s", .cost_ms = 0.5, .sla_fps = 10, .vram_mb = 1024};
	struct core_res_need need = daemon_app_need(&app);
	assert_int_equal(need.vram_bytes, 1024 * MIB);
	struct core_admit a = daemon_gpu_admit(&d, 0, 0.5e-3, 10, &need);
	assert_true(a.fits);
	assert_int_equal(a.more_3d, 119);
	assert_int_equal(a.more_vram, 4);
	assert_int_equal(a.more_encoder, UINT32_MAX); /* unmeasured */
	assert_int_equal(a.more, 4);
	/* the encoder measured (as fdinfo's sum would be): 0.5 busy */
	r->core.has_encoder = true;
	r->core.encoder_load = 0.5;
	need.encoder = 0.15; /* (0.9 - 0.5) / 0.15 -> 2 */
	a = daemon_gpu_admit(&d, 0, 0.5e-3, 10, &need);
	assert_int_equal(a.more_encoder, 2);
	assert_int_equal(a.more, 2);
	need.encoder = 0.5;
	a = daemon_gpu_admit(&d, 0, 0.5e-3, 10, &need);
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_ENCODER);
	need.encoder = 0.1;
	r->core.vram_used = 3584 * MIB;
	a = daemon_gpu_admit(&d, 0, 0.5e-3, 10, &need);
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_VRAM);
	/* the 3D engine's own refusal comes first */
	d.gpus[0].gpu.caps.total_load = 0.7;
	a = daemon_gpu_admit(&d, 0, 0.5e-3, 10, &need);
	assert_int_equal(a.why, CORE_ADMIT_LOAD);
	daemon_finish(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nvml_gpu),
	    cmocka_unit_test(test_admit_smallest),
	};
	return cmocka_run_group_tests(tests, nvml_script_setup,
	                              nvml_script_teardown);
}
