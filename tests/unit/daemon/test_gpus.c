/* batond's GPUs (src/daemon/gpus.c, config_gpus.c; ipc/cpu_list.c;
 * host_load per CPU): the `gpus` config list and its errors, CPU lists,
 * discovery of render nodes under a fake sysfs, the rules that put a
 * tenant on a GPU, and a logical GPU's load from its own CPUs' lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/config/config.h"
#include "daemon/config/config_gpus.h"
#include "daemon/gpus.h"
#include "daemon/tick/host_load.h"
#include "ipc/cpu_list.h"

static void test_cpu_lists(void **state)
{
	(void)state;
	cpu_set_t s;
	char why[128], out[64];
	assert_true(ipc_cpu_list_parse("0-3,8,10-11", &s, why, sizeof(why)));
	assert_int_equal(CPU_COUNT(&s), 7);
	assert_true(CPU_ISSET(8, &s) && CPU_ISSET(11, &s) && !CPU_ISSET(9, &s));
	ipc_cpu_list_format(&s, out, sizeof(out));
	assert_string_equal(out, "0-3,8,10-11");
	const char *bad[] = {"", "a", "1-", "3-1", "1,,2", "1 2", "-1", "0x1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(ipc_cpu_list_parse(bad[i], &s, why, sizeof(why)));
		assert_non_null(strstr(why, "not a CPU list"));
	}
	assert_false(ipc_cpu_list_parse("0-99999", &s, why, sizeof(why)));
	assert_non_null(strstr(why, "past the last"));
}

/* The list through batond's config file parser. */
static bool load(struct daemon_config *cfg, const char *text, char *err,
                 size_t len)
{
	char path[] = "/tmp/batond-gpus-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_true(daemon_config_defaults(cfg));
	bool ok = daemon_config_file(cfg, path, err, len);
	unlink(path);
	return ok;
}

static void test_config(void **state)
{
	(void)state;
	struct daemon_config cfg;
	char err[256];
	assert_true(load(&cfg,
	                 "gpus = ( { name = \"left\"; cpus = \"0\"; },\n"
	                 "  { name = \"right\"; cpus = \"1-3\"; },\n"
	                 "  { name = \"card\"; device = \"0000:41:00.0\"; } "
	                 ");\n",
	                 err, sizeof(err)));
	assert_int_equal(cfg.n_gpus, 3);
	assert_string_equal(cfg.gpus[1].name, "right");
	assert_string_equal(cfg.gpus[1].cpus, "1-3");
	assert_string_equal(cfg.gpus[2].device, "0000:41:00.0");
	static const struct {
		const char *text, *says;
	} bad[] = {
	    {"gpus = ();\n", "1 to 16 entries"},
	    {"gpus = ( { cpus = \"0\"; } );\n", "entry 1 needs name"},
	    {"gpus = ( { name = \"a b\"; } );\n", "entry 1 needs name"},
	    {"gpus = ( { name = \"a\"; }, { name = \"a\"; } );\n",
	     "\"a\" given twice"},
	    {"gpus = ( { name = \"a\"; cpus = \"0-\"; } );\n",
	     "GPU \"a\": cpus: \"0-\" is not a CPU list"},
	    {"gpus = ( { name = \"a\"; cpus = 3; } );\n", "cpus must be"},
	    {"gpus = ( { name = \"a\"; colour = \"red\"; } );\n",
	     "unknown key colour"},
	    {"gpus = { name = \"a\"; };\n", "must be a list"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(load(&cfg, bad[i].text, err, sizeof(err)));
		if (!strstr(err, bad[i].says) || !strstr(err, ":1: gpus"))
			fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].text, err,
			         bad[i].says);
	}
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Two render nodes under a fake sysfs (and a card node that is not one):
 * named in order, with their PCI slots; no sysfs at all, one gpu0. */
static void test_discovery(void **state)
{
	(void)state;
	char root[] = "/tmp/baton-sysfs-XXXXXX";
	assert_non_null(mkdtemp(root));
	char p[512];
	const char *nodes[] = {"renderD129", "renderD128", "card0"};
	const char *slots[] = {"0000:41:00.0", "0000:01:00.0", "0000:01:00.0"};
	snprintf(p, sizeof(p), "%s/class", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/class/drm", root);
	assert_int_equal(mkdir(p, 0700), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/class/drm/%s", root, nodes[i]);
		assert_int_equal(mkdir(p, 0700), 0);
		snprintf(p, sizeof(p), "%s/class/drm/%s/device", root,
		         nodes[i]);
		assert_int_equal(mkdir(p, 0700), 0);
		char text[128];
		snprintf(text, sizeof(text),
		         "DRIVER=amdgpu\nPCI_SLOT_NAME=%s\nMODALIAS=pci\n",
		         slots[i]);
		snprintf(p, sizeof(p), "%s/class/drm/%s/device/uevent", root,
		         nodes[i]);
		put_file(p, text);
	}
	static struct daemon_gpu gpus[DAEMON_MAX_GPUS];
	size_t n;
	char err[128];
	assert_true(daemon_gpus_setup(gpus, &n, NULL, 0, root, "/nonexistent",
	                              err, sizeof(err)));
	assert_int_equal(n, 2);
	assert_string_equal(gpus[0].name, "gpu0");
	assert_string_equal(gpus[0].device, "/dev/dri/renderD128");
	assert_string_equal(gpus[0].pci, "0000:01:00.0");
	assert_string_equal(gpus[1].device, "/dev/dri/renderD129");
	assert_string_equal(gpus[1].pci, "0000:41:00.0");
	/* a tenant's Vulkan device by PCI slot, any case */
	assert_int_equal(
	    daemon_gpu_for(gpus, n, "", NULL, "0000:41:00.0", NULL), 1);
	assert_int_equal(
	    daemon_gpu_for(gpus, n, NULL, NULL, "0000:01:00.0", NULL), 0);
	/* by device path */
	assert_int_equal(
	    daemon_gpu_for(gpus, n, "/dev/dri/renderD129", NULL, NULL, NULL),
	    1);

	/* NVML (a stub of the driver's library): its first GPU is the
	 * render node of slot 0000:41:00.0, which gets its UUID; its second
	 * has no render node here and is added, named by its UUID */
	const char *stub = getenv("BATON_STUB_NVML");
	assert_non_null(stub);
	assert_true(
	    daemon_gpus_setup(gpus, &n, NULL, 0, root, stub, err, sizeof(err)));
	assert_int_equal(n, 3);
	assert_string_equal(gpus[1].pci, "0000:41:00.0");
	assert_string_equal(gpus[1].uuid, "6a1c4f2e000011112222333344445551");
	assert_string_equal(gpus[0].uuid, "");
	assert_string_equal(gpus[2].name, "gpu2");
	assert_string_equal(gpus[2].pci, "0000:81:00.0");
	assert_string_equal(gpus[2].device,
	                    "GPU-6a1c4f2e-0000-1111-2222-333344445552");
	/* a Vulkan tenant's deviceUUID, as the shim sends it */
	assert_int_equal(daemon_gpu_for(gpus, n, "",
	                                "6A1C4F2E000011112222333344445552",
	                                NULL, NULL),
	                 2);
	assert_int_equal(daemon_gpu_for(gpus, n, "",
	                                "6a1c4f2e000011112222333344445551",
	                                NULL, NULL),
	                 1);
	/* named by its UUID in the config */
	struct daemon_gpu_conf byuuid = {
	    .name = "big",
	    .device = "GPU-6a1c4f2e-0000-1111-2222-333344445552"};
	assert_true(daemon_gpus_setup(gpus, &n, &byuuid, 1, NULL, NULL, err,
	                              sizeof(err)));
	assert_string_equal(gpus[0].uuid, "6a1c4f2e000011112222333344445552");

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -r %s", root);
	assert_int_equal(system(cmd), 0);

	/* nothing to find: one GPU, the machine's only device */
	assert_true(daemon_gpus_setup(gpus, &n, NULL, 0, "/nonexistent",
	                              "/nonexistent", err, sizeof(err)));
	assert_int_equal(n, 1);
	assert_string_equal(gpus[0].name, "gpu0");
	assert_false(gpus[0].has_cpus);
}

/* Two logical GPUs: by name, by the CPUs a tenant may run on, else the
 * first; a name batond does not have is -1. */
static void test_mapping(void **state)
{
	(void)state;
	struct daemon_gpu_conf conf[2] = {
	    {.name = "left", .cpus = "0"},
	    {.name = "right", .cpus = "1-3"},
	};
	static struct daemon_gpu gpus[DAEMON_MAX_GPUS];
	size_t n;
	char err[128];
	assert_true(daemon_gpus_setup(gpus, &n, conf, 2, "/nonexistent", NULL,
	                              err, sizeof(err)));
	assert_int_equal(n, 2);
	assert_true(gpus[1].has_cpus);
	assert_int_equal(gpus[1].n_cpus, 3);
	assert_int_equal(daemon_gpu_for(gpus, n, "right", NULL, NULL, NULL), 1);
	assert_int_equal(daemon_gpu_for(gpus, n, "nowhere", NULL, NULL, NULL),
	                 -1);
	cpu_set_t a;
	CPU_ZERO(&a);
	CPU_SET(2, &a);
	CPU_SET(3, &a);
	assert_int_equal(daemon_gpu_for(gpus, n, "", NULL, NULL, &a), 1);
	CPU_SET(0, &a); /* spans both: neither holds it */
	assert_int_equal(daemon_gpu_for(gpus, n, "", NULL, NULL, &a), 0);
	CPU_ZERO(&a);
	CPU_SET(0, &a);
	assert_int_equal(daemon_gpu_for(gpus, n, NULL, NULL, NULL, &a), 0);
	assert_int_equal(daemon_gpu_for(gpus, n, NULL, NULL, NULL, NULL), 0);
	/* only the last rule's answer is open to a tenant's DRM clients */
	bool fallback = false;
	assert_int_equal(
	    daemon_gpu_choose(gpus, n, NULL, NULL, NULL, NULL, &fallback), 0);
	assert_true(fallback);
	assert_int_equal(
	    daemon_gpu_choose(gpus, n, "left", NULL, NULL, NULL, &fallback), 0);
	assert_false(fallback);
	CPU_ZERO(&a);
	CPU_SET(2, &a);
	assert_int_equal(
	    daemon_gpu_choose(gpus, n, "", NULL, NULL, &a, &fallback), 1);
	assert_false(fallback);
	/* a config that does not parse is refused, naming the GPU */
	struct daemon_gpu_conf bad = {.name = "x", .cpus = "z"};
	assert_false(
	    daemon_gpus_setup(gpus, &n, &bad, 1, NULL, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "GPU \"x\""));
}

/* A logical GPU's load: only its CPUs' lines of /proc/stat. */
static void test_load_of_cpus(void **state)
{
	(void)state;
	char path[] = "/tmp/baton-stat-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	/* user nice system idle: cpu1 goes 100 busy of 200, cpu0 idle */
	put_file(path, "cpu  100 0 0 300\ncpu0 0 0 0 200\ncpu1 100 0 0 100\n"
	               "intr 1\n");
	struct host_load h;
	host_load_init(&h, path);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	host_load_set_cpus(&h, &one);
	double busy;
	assert_false(host_load_sample(&h, &busy)); /* primes */
	put_file(path, "cpu  200 0 0 400\ncpu0 0 0 0 300\ncpu1 200 0 0 100\n"
	               "intr 1\n");
	assert_true(host_load_sample(&h, &busy));
	assert_float_equal(busy, 1.0, 1e-12);
	/* all CPUs: (200-100) / (600-400) */
	struct host_load all;
	host_load_init(&all, path);
	put_file(path, "cpu  100 0 0 300\n");
	assert_false(host_load_sample(&all, &busy));
	put_file(path, "cpu  200 0 0 400\n");
	assert_true(host_load_sample(&all, &busy));
	assert_float_equal(busy, 0.5, 1e-12);
	/* no line of its CPUs: no reading */
	CPU_ZERO(&one);
	CPU_SET(7, &one);
	host_load_set_cpus(&h, &one);
	assert_false(host_load_sample(&h, &busy));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpu_lists),    cmocka_unit_test(test_config),
	    cmocka_unit_test(test_discovery),    cmocka_unit_test(test_mapping),
	    cmocka_unit_test(test_load_of_cpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
