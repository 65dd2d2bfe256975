/* The DRM usage-stats parser (daemon/accounting/drm_fdinfo.h) on each
 * driver's format (fixtures in fdinfo/, README there says where each
 * format comes from), and the reader of a tenant's DRM clients
 * (gpu_account.h) on a fake /proc tree: deduplication, counters that go
 * backwards, fds that vanish, another user's process, malformed and
 * over-long lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/accounting/drm_fdinfo.h"
#include "daemon/accounting/gpu_account.h"

#define MS 1000000LL

static size_t read_fixture(const char *name, char *buf, size_t size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", FDINFO_FIXTURES, name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

static const struct drm_engine *find(const struct drm_fdinfo *f,
                                     const char *name)
{
	for (unsigned i = 0; i < f->n_engines; i++)
		if (strcmp(f->engines[i].name, name) == 0)
			return &f->engines[i];
	return NULL;
}

static void parse_fixture(const char *name, struct drm_fdinfo *f)
{
	char buf[4096];
	size_t n = read_fixture(name, buf, sizeof(buf));
	assert_true(drm_fdinfo_parse(buf, n, f));
}

static void test_amdgpu(void **state)
{
	(void)state;
	struct drm_fdinfo f;
	parse_fixture("amdgpu", &f);
	assert_string_equal(f.driver, "amdgpu");
	assert_string_equal(f.pdev, "0000:03:00.0");
	assert_int_equal(f.client_id, 18);
	assert_int_equal(find(&f, "gfx")->busy_ns, 1234567890);
	assert_int_equal(find(&f, "enc")->busy_ns, 125000000);
	/* resident gtt + vram */
	assert_int_equal(f.resident_bytes, (2392 + 44564) * 1024ULL);
	assert_int_equal(f.total_bytes, (2392 + 44564) * 1024ULL);
	assert_int_equal(drm_engine_class("amdgpu", "gfx"), DRM_ENGINE_RENDER);
	assert_int_equal(drm_engine_class("amdgpu", "enc"), DRM_ENGINE_VIDEO);
	assert_int_equal(drm_engine_class("amdgpu", "dma"), DRM_ENGINE_OTHER);
	/* before 6.7: drm-memory-* */
	parse_fixture("amdgpu-6.1", &f);
	assert_int_equal(f.client_id, 5);
	assert_int_equal(f.resident_bytes, (44564 + 2392) * 1024ULL);
	assert_int_equal(find(&f, "gfx")->busy_ns, 987654321);
}

static void test_i915(void **state)
{
	(void)state;
	struct drm_fdinfo f;
	parse_fixture("i915", &f);
	assert_string_equal(f.driver, "i915");
	assert_int_equal(f.client_id, 7);
	assert_int_equal(find(&f, "render")->busy_ns, 9288864723ULL);
	const struct drm_engine *v = find(&f, "video");
	assert_int_equal(v->capacity, 2);
	uint64_t ns;
	assert_true(drm_engine_busy_ns(v, &ns));
	assert_int_equal(ns, 200000000); /* per engine of the class */
	assert_int_equal(f.resident_bytes, 8ULL << 20);
	assert_int_equal(drm_engine_class("i915", "render"), DRM_ENGINE_RENDER);
	assert_int_equal(drm_engine_class("i915", "video-enhance"),
	                 DRM_ENGINE_VIDEO);
	assert_int_equal(drm_engine_class("i915", "copy"), DRM_ENGINE_OTHER);
}

static void test_xe(void **state)
{
	(void)state;
	struct drm_fdinfo f;
	parse_fixture("xe", &f);
	assert_string_equal(f.driver, "xe");
	const struct drm_engine *r = find(&f, "rcs");
	assert_true(r->has_cycles && r->has_total && !r->has_busy);
	assert_int_equal(r->cycles, 28257900);
	assert_int_equal(r->total_cycles, 7655183225ULL);
	assert_int_equal(find(&f, "ccs")->capacity, 4);
	uint64_t ns;
	assert_false(drm_engine_busy_ns(r, &ns)); /* no time, no maxfreq */
	assert_int_equal(f.resident_bytes, (192 + 23992) * 1024ULL);
	assert_int_equal(drm_engine_class("xe", "rcs"), DRM_ENGINE_RENDER);
	assert_int_equal(drm_engine_class("xe", "vcs"), DRM_ENGINE_VIDEO);
}

static void test_panthor(void **state)
{
	(void)state;
	struct drm_fdinfo f;
	parse_fixture("panthor", &f);
	assert_string_equal(f.pdev, ""); /* a platform device */
	const struct drm_engine *e = find(&f, "panthor");
	assert_int_equal(e->maxfreq_hz, 1000000000);
	assert_int_equal(drm_engine_class("panthor", "panthor"),
	                 DRM_ENGINE_RENDER);
	/* cycles at maxfreq stand in for time where no ns are given */
	struct drm_engine c = *e;
	c.has_busy = false;
	uint64_t ns;
	assert_true(drm_engine_busy_ns(&c, &ns));
	assert_int_equal(ns, 94439687187ULL);
	c.maxfreq_hz = 500000000;
	assert_true(drm_engine_busy_ns(&c, &ns));
	assert_int_equal(ns, 2 * 94439687187ULL);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct drm_fdinfo f;
	/* no client id, or no driver: not a DRM client */
	const char *a = "drm-driver:\tamdgpu\ndrm-engine-gfx:\t5 ns\n";
	assert_false(drm_fdinfo_parse(a, strlen(a), &f));
	const char *b = "drm-client-id:\t3\n";
	assert_false(drm_fdinfo_parse(b, strlen(b), &f));
	/* malformed values are left out, the rest kept */
	const char *c = "drm-driver:\tamdgpu\ndrm-client-id:\t1\n"
	                "drm-engine-gfx:\t12x ns\n"
	                "drm-engine-compute:\t-4 ns\n"
	                "drm-engine-dec:\t99999999999999999999 ns\n"
	                "drm-engine-enc:\t7 ms\n"
	                "drm-resident-vram:\t5 PiB\n"
	                "drm-resident-gtt:\t3 KiB\n"
	                ":\n\n::::\ndrm-engine-:\t5 ns\n"
	                "drm-engine-jpeg:\t8 ns";
	assert_true(drm_fdinfo_parse(c, strlen(c), &f));
	assert_int_equal(f.n_engines, 1);
	assert_int_equal(find(&f, "jpeg")->busy_ns, 8);
	assert_int_equal(f.resident_bytes, 3072);
	/* an over-long line is skipped whole, even with a key in it */
	char big[1024];
	int n = snprintf(big, sizeof(big),
	                 "drm-driver:\ti915\ndrm-client-id:\t2\n"
	                 "drm-engine-render:\t%0300d ns\n"
	                 "drm-engine-copy:\t4 ns\n",
	                 1);
	assert_true(drm_fdinfo_parse(big, (size_t)n, &f));
	assert_null(find(&f, "render"));
	assert_int_equal(find(&f, "copy")->busy_ns, 4);
	/* a driver name with a space is no name */
	const char *d = "drm-driver:\tam dgpu\ndrm-client-id:\t1\n";
	assert_false(drm_fdinfo_parse(d, strlen(d), &f));
	/* more engines than fit: the first ones kept */
	char many[4096];
	size_t len = (size_t)snprintf(many, sizeof(many),
	                              "drm-driver:\txe\ndrm-client-id:\t9\n");
	for (int i = 0; i < 40; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len,
		                        "drm-engine-e%d:\t%d ns\n", i, i);
	assert_true(drm_fdinfo_parse(many, len, &f));
	assert_int_equal(f.n_engines, DRM_FDINFO_MAX_ENGINES);
}

/* A fake /proc: ROOT/PID/fd/N links to a render node, ROOT/PID/fdinfo/N
 * in amdgpu's format (the fixture's keys). */
struct tree {
	char root[64];
	pid_t pid;
};

static void tree_dir(struct tree *t, const char *sub)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%d%s", t->root, (int)t->pid, sub);
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void tree_init(struct tree *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/baton-test-fdinfo-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	t->pid = 4321;
	tree_dir(t, "");
	tree_dir(t, "/fd");
	tree_dir(t, "/fdinfo");
}

static void tree_link(struct tree *t, int fd, const char *target)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%d/fd/%d", t->root, (int)t->pid, fd);
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

/* fd of client id, its gfx and enc engines' busy ns in all. */
static void tree_fd(struct tree *t, int fd, unsigned id, uint64_t gfx_ns,
                    uint64_t enc_ns)
{
	char path[160], tmp[170];
	tree_link(t, fd, "/dev/dri/renderD128");
	snprintf(path, sizeof(path), "%s/%d/fdinfo/%d", t->root, (int)t->pid,
	         fd);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f,
	        "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\n"
	        "drm-client-id:\t%u\ndrm-pdev:\t0000:03:00.0\n"
	        "drm-resident-vram:\t1024 KiB\n"
	        "drm-engine-gfx:\t%llu ns\ndrm-engine-enc:\t%llu ns\n",
	        id, (unsigned long long)gfx_ns, (unsigned long long)enc_ns);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

static void tree_rm_fd(struct tree *t, int fd)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%d/fdinfo/%d", t->root, (int)t->pid,
	         fd);
	assert_int_equal(unlink(path), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void tree_done(struct tree *t)
{
	nftw(t->root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

struct reader {
	struct tree tree;
	struct gpu_account acct;
	struct gpu_account_who who;
	int64_t now;
};

static int setup(void **state)
{
	struct reader *r = calloc(1, sizeof(*r));
	tree_init(&r->tree);
	r->who = (struct gpu_account_who){.proc_root = r->tree.root,
	                                  .pid = r->tree.pid,
	                                  .uid = getuid(),
	                                  .pdev = ""};
	r->now = 1000 * MS;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct reader *r = *state;
	tree_done(&r->tree);
	free(r);
	return 0;
}

/* One 100 ms epoch; scans as due. */
static bool epoch(struct reader *r)
{
	unsigned scans = 1;
	r->now += 100 * MS;
	return gpu_account_epoch(&r->acct, &r->who, r->now, 0.1, &scans);
}

/* Two fds of one client count once; another client adds; the first
 * epoch takes the base; a socket and a file are not DRM devices. */
static void test_reader_dedup(void **state)
{
	struct reader *r = *state;
	tree_fd(&r->tree, 3, 7, 1000 * MS, 0);
	tree_fd(&r->tree, 4, 7, 1000 * MS, 0); /* dup of 3 */
	tree_fd(&r->tree, 9, 8, 50 * MS, 0);
	tree_link(&r->tree, 5, "socket:[1234]");
	tree_link(&r->tree, 6, "/home/game/level.pak");
	assert_false(epoch(r)); /* the base */
	assert_int_equal(r->acct.state, GPU_ACCOUNT_OK);
	/* three DRM fds found, one read a tick per client until the next
	 * scan */
	assert_int_equal(r->acct.n_fds, 2);
	assert_int_equal(r->acct.n_clients, 2);
	tree_fd(&r->tree, 3, 7, 1030 * MS, 5 * MS);
	tree_fd(&r->tree, 4, 7, 1030 * MS, 5 * MS);
	tree_fd(&r->tree, 9, 8, 60 * MS, 0);
	assert_true(epoch(r));
	assert_float_equal(r->acct.busy_s, 0.040, 1e-9);
	assert_float_equal(r->acct.video_s, 0.005, 1e-9);
	assert_int_equal(r->acct.resident_bytes, 2 * 1024 * 1024);
	/* more than the epoch: one GPU gives at most the epoch */
	tree_fd(&r->tree, 3, 7, 2030 * MS, 5 * MS);
	tree_fd(&r->tree, 4, 7, 2030 * MS, 5 * MS);
	assert_true(epoch(r));
	assert_float_equal(r->acct.busy_s, 0.1, 1e-9);
	/* another GPU's clients are not this one's */
	r->who.pdev = "0000:04:00.0";
	assert_false(epoch(r));
	assert_int_equal(r->acct.state, GPU_ACCOUNT_NONE);
}

/* A counter that goes backwards (or wraps) counts 0, never negative
 * time, and is the new base. */
static void test_reader_backwards(void **state)
{
	struct reader *r = *state;
	tree_fd(&r->tree, 3, 7, 5000 * MS, 0);
	epoch(r);
	tree_fd(&r->tree, 3, 7, 1000 * MS, 0);
	assert_true(epoch(r));
	assert_float_equal(r->acct.busy_s, 0.0, 0.0);
	tree_fd(&r->tree, 3, 7, 1020 * MS, 0);
	assert_true(epoch(r));
	assert_float_equal(r->acct.busy_s, 0.020, 1e-9);
	tree_fd(&r->tree, 3, 7, 9999999999999999999ULL, 0);
	assert_true(epoch(r));
	tree_fd(&r->tree, 3, 7, 3 * MS, 0); /* wrapped */
	assert_true(epoch(r));
	assert_float_equal(r->acct.busy_s, 0.0, 0.0);
}

/* An fd that vanishes mid-read (closed, or the process exited) drops its
 * client; one that comes back is new: it counts from the next epoch,
 * never against an old base. A process gone: nothing counted. */
static void test_reader_vanishing(void **state)
{
	struct reader *r = *state;
	tree_fd(&r->tree, 3, 7, 1000 * MS, 0);
	tree_fd(&r->tree, 4, 8, 1000 * MS, 0);
	epoch(r);
	tree_rm_fd(&r->tree, 4);
	tree_fd(&r->tree, 3, 7, 1010 * MS, 0);
	assert_true(epoch(r));
	assert_float_equal(r->acct.busy_s, 0.010, 1e-9);
	tree_fd(&r->tree, 4, 8, 5000 * MS, 0);
	tree_fd(&r->tree, 3, 7, 1020 * MS, 0);
	assert_true(epoch(r));
	assert_float_equal(r->acct.busy_s, 0.010, 1e-9);
	tree_done(&r->tree);
	assert_false(epoch(r));
	assert_false(r->acct.state == GPU_ACCOUNT_OK);
	r->now += 2000 * MS; /* the rescan finds no process */
	assert_false(epoch(r));
	assert_int_equal(r->acct.state, GPU_ACCOUNT_GONE);
}

/* A /proc directory that is not the tenant's uid's (its pid now names
 * another user's process) is not read. */
static void test_reader_other_user(void **state)
{
	struct reader *r = *state;
	tree_fd(&r->tree, 3, 7, 1000 * MS, 0);
	r->who.uid = getuid() + 1;
	assert_false(epoch(r));
	assert_int_equal(r->acct.state, GPU_ACCOUNT_OTHER_USER);
	assert_int_equal(r->acct.n_fds, 0);
}

/* xe counts cycles against the engine's clock: busy is their ratio of
 * the epoch; ccs's four engines share one clock. */
static void test_reader_xe_cycles(void **state)
{
	struct reader *r = *state;
	char path[160];
	for (int step = 0; step < 2; step++) {
		tree_link(&r->tree, 3, "/dev/dri/renderD128");
		snprintf(path, sizeof(path), "%s/%d/fdinfo/3", r->tree.root,
		         (int)r->tree.pid);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f,
		        "drm-driver:\txe\ndrm-client-id:\t45\n"
		        "drm-cycles-rcs:\t%d\ndrm-total-cycles-rcs:\t%d\n"
		        "drm-cycles-ccs:\t%d\ndrm-total-cycles-ccs:\t%d\n"
		        "drm-engine-capacity-ccs:\t4\n",
		        step * 250, 1000 + step * 1000, step * 400,
		        1000 + step * 1000);
		fclose(f);
		epoch(r);
	}
	/* rcs 250 of 1000 cycles, ccs 400 / 4 of 1000: 0.35 of 100 ms */
	assert_float_equal(r->acct.busy_s, 0.035, 1e-9);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_amdgpu),    cmocka_unit_test(test_i915),
	    cmocka_unit_test(test_xe),        cmocka_unit_test(test_panthor),
	    cmocka_unit_test(test_bad_input), T(test_reader_dedup),
	    T(test_reader_backwards),         T(test_reader_vanishing),
	    T(test_reader_other_user),        T(test_reader_xe_cycles),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
