/* Which GPU a tenant's DRM clients place it on (daemon/accounting/
 * gpu_pdev.h): one GPU's slot, several GPUs' (the most render time, a
 * tie), drm-pdev values that are no PCI slot or no GPU's; and an account
 * read across every device kept to one slot's clients
 * (gpu_account_keep_pdev). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "daemon/accounting/gpu_pdev.h"

static const char *const pci[] = {"0000:03:00.0", "0000:04:00.0", ""};
#define N_GPUS 3

static struct gpu_client client(const char *pdev, uint64_t id, uint64_t ns)
{
	struct gpu_client c = {.id = id, .render_ns = ns, .has_render = true};
	snprintf(c.pdev, sizeof(c.pdev), "%s", pdev);
	return c;
}

static void test_slot_shape(void **state)
{
	(void)state;
	assert_true(gpu_pdev_is_slot("0000:03:00.0"));
	assert_true(gpu_pdev_is_slot("10000:e1:1f.7")); /* a VMD domain */
	assert_false(gpu_pdev_is_slot(""));
	assert_false(gpu_pdev_is_slot("03:00.0"));
	assert_false(gpu_pdev_is_slot("0000:03:00.8"));
	assert_false(gpu_pdev_is_slot("0000:03:00.0x"));
	assert_false(gpu_pdev_is_slot("0000:003:00.0"));
	assert_false(gpu_pdev_is_slot("0000:03:00"));
	assert_false(gpu_pdev_is_slot("fb000000.gpu"));
	assert_false(gpu_pdev_is_slot("000000000:03:00.0"));
}

static void test_one_gpu(void **state)
{
	(void)state;
	/* two clients (a dup'ed fd, another context) on the second GPU,
	 * one of them with no render time yet: an open client counts */
	struct gpu_client c[] = {client("0000:04:00.0", 1, 0),
	                         client("0000:04:00.0", 2, 5000)};
	struct gpu_pdev_choice ch = gpu_pdev_choose(c, 2, pci, N_GPUS);
	assert_int_equal(ch.gpu, 1);
	assert_int_equal(ch.on, 1);
	assert_int_equal(ch.bad, -1);
	assert_int_equal(ch.unknown, -1);
	ch = gpu_pdev_choose(c, 1, pci, N_GPUS);
	assert_int_equal(ch.gpu, 1);
	/* upper-case hex names the same slot */
	c[0] = client("0000:03:00.0", 1, 0);
	const char *upper[] = {"0000:03:00.0", "0000:0A:00.0"};
	c[1] = client("0000:0a:00.0", 2, 1);
	ch = gpu_pdev_choose(&c[1], 1, upper, 2);
	assert_int_equal(ch.gpu, 1);
	/* none: no clients, and a GPU without a slot matches nothing */
	ch = gpu_pdev_choose(c, 0, pci, N_GPUS);
	assert_int_equal(ch.gpu, -1);
	assert_int_equal(ch.on, 0);
}

static void test_several_gpus(void **state)
{
	(void)state;
	/* PRIME: the display GPU's client beside the renderer's */
	struct gpu_client c[] = {client("0000:03:00.0", 1, 2000000),
	                         client("0000:04:00.0", 2, 90000000),
	                         client("0000:03:00.0", 3, 1000000)};
	struct gpu_pdev_choice ch = gpu_pdev_choose(c, 3, pci, N_GPUS);
	assert_int_equal(ch.gpu, 1);
	assert_int_equal(ch.on, 2);
	/* the sum over a GPU's clients decides */
	c[1].render_ns = 2500000;
	ch = gpu_pdev_choose(c, 3, pci, N_GPUS);
	assert_int_equal(ch.gpu, 0);
	/* a tie leaves it where it is */
	c[1].render_ns = 3000000;
	ch = gpu_pdev_choose(c, 3, pci, N_GPUS);
	assert_int_equal(ch.gpu, -1);
	assert_int_equal(ch.on, 2);
	/* so do clients with no time on either (xe counts cycles) */
	struct gpu_client z[] = {client("0000:03:00.0", 1, 0),
	                         client("0000:04:00.0", 2, 0)};
	assert_int_equal(gpu_pdev_choose(z, 2, pci, N_GPUS).gpu, -1);
	/* counters near 2^64 saturate, never wrap to a small sum */
	z[0].render_ns = UINT64_MAX;
	z[1].render_ns = UINT64_MAX - 1;
	struct gpu_client w[] = {z[0], z[0], z[1]};
	assert_int_equal(gpu_pdev_choose(w, 3, pci, N_GPUS).gpu, 0);
}

static void test_bad_pdev(void **state)
{
	(void)state;
	/* a slot no GPU has and values that are no slot count for nothing;
	 * the first of each is named for the log */
	struct gpu_client c[] = {
	    client("0000:09:00.0", 1, 900000000), client("", 2, 900000000),
	    client("0000:04:00.0", 3, 10), client("../../0000:03:00.0", 4, 9),
	    client("0000:03:00.0;", 5, 900000000)};
	struct gpu_pdev_choice ch = gpu_pdev_choose(c, 5, pci, N_GPUS);
	assert_int_equal(ch.gpu, 1);
	assert_int_equal(ch.on, 1);
	assert_int_equal(ch.bad, 1);
	assert_int_equal(ch.unknown, 0);
	/* only bad ones: no GPU */
	ch = gpu_pdev_choose(c, 2, pci, N_GPUS);
	assert_int_equal(ch.gpu, -1);
	assert_int_equal(ch.on, 0);
}

static void test_keep_pdev(void **state)
{
	(void)state;
	struct gpu_account a = {.based = true, .state = GPU_ACCOUNT_OK};
	a.clients[0] = client("0000:03:00.0", 1, 5);
	a.clients[0].fd = 3;
	a.clients[0].resident_bytes = 100;
	a.clients[1] = client("0000:04:00.0", 2, 7);
	a.clients[1].fd = 5;
	a.clients[1].resident_bytes = 1000;
	a.clients[2] = client("0000:04:00.0", 3, 9);
	a.clients[2].fd = 6;
	a.clients[2].resident_bytes = 10;
	a.n_clients = a.n_fds = 3;
	a.resident_bytes = 1110;
	gpu_account_keep_pdev(&a, "0000:04:00.0");
	assert_int_equal(a.n_clients, 2);
	assert_int_equal(a.n_fds, 2);
	assert_int_equal(a.fds[0], 5);
	assert_int_equal(a.fds[1], 6);
	assert_int_equal(a.clients[1].id, 3);
	assert_int_equal(a.resident_bytes, 1010);
	assert_true(a.based);
	/* "" keeps all */
	gpu_account_keep_pdev(&a, "");
	assert_int_equal(a.n_clients, 2);
	/* a slot none is on: nothing counted, no base */
	gpu_account_keep_pdev(&a, "0000:03:00.0");
	assert_int_equal(a.n_clients, 0);
	assert_int_equal(a.resident_bytes, 0);
	assert_false(a.based);
	assert_int_equal(a.state, GPU_ACCOUNT_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slot_shape),
	    cmocka_unit_test(test_one_gpu),
	    cmocka_unit_test(test_several_gpus),
	    cmocka_unit_test(test_bad_pdev),
	    cmocka_unit_test(test_keep_pdev),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
