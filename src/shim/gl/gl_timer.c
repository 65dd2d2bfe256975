#include "shim/gl/gl_timer.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim.h"
#include "shim/shim_clock.h"
#include "shim/shim_config.h"

/* Enum values from the Khronos registry (gl.xml), so that the preload
 * needs no GL headers. */
#define GL_EXTENSIONS                 0x1F03
#define GL_RENDERER                   0x1F01
#define GL_VERSION                    0x1F02
#define GL_NUM_EXTENSIONS             0x821D
#define GL_QUERY_RESULT               0x8866
#define GL_QUERY_RESULT_AVAILABLE     0x8867
#define GL_TIMESTAMP                  0x8E28
#define GL_SYNC_GPU_COMMANDS_COMPLETE 0x9117
#define GL_ALREADY_SIGNALED           0x911A
#define GL_CONDITION_SATISFIED        0x911C
#define EGL_OPENGL_ES_API             0x30A0
#define EGL_OPENGL_API                0x30A2
#define GL_DEVICE_UUID_EXT            0x9597 /* GL_EXT_memory_object */
#define GL_UUID_SIZE_EXT              16

/* Frames in flight we can measure. The GPU rarely runs more than 2-3
 * frames behind; a slot still pending when it comes round again is
 * dropped, not waited for. */
#define SLOTS 4
/* Contexts we keep state for; the least recently used one is dropped. */
#define CONTEXTS 4

enum mode {
	MODE_NONE = 0,
	MODE_TIMER,
	MODE_FENCE,
	MODE_SWAP, /* a software rasterizer: the swap call's duration */
};

struct gl_fns {
	const unsigned char *(*GetString)(unsigned name);
	const unsigned char *(*GetStringi)(unsigned name, unsigned index);
	void (*GetIntegerv)(unsigned pname, int *data);
	void (*GenQueries)(int n, unsigned *ids);
	void (*QueryCounter)(unsigned id, unsigned target);
	void (*GetQueryObjectuiv)(unsigned id, unsigned pname, unsigned *v);
	void (*GetQueryObjectui64v)(unsigned id, unsigned pname, uint64_t *v);
	void *(*FenceSync)(unsigned condition, unsigned flags);
	unsigned (*ClientWaitSync)(void *sync, unsigned flags, uint64_t ns);
	void (*DeleteSync)(void *sync);
};

struct slot {
	uint64_t frame; /* shim frame measured, 0: free */
	int64_t submit_ns;
	void *sync;
};

struct ctx_state {
	void *ctx; /* NULL: unused entry */
	enum mode mode;
	struct gl_fns fn;
	unsigned q[2 * SLOTS]; /* start, end per slot */
	struct slot slot[SLOTS];
	unsigned next;      /* slot of the frame being built */
	uint64_t start_for; /* timer mode: frame whose start stamp is in slot
	                       next; swap mode: frame whose swap began; 0:
	                       none */
	int64_t swap_ns;    /* MODE_SWAP: when the real swap was called */
	uint64_t used;
};

/* One table for all threads (a context is current on one thread at a time,
 * but may move), taken with a try-lock: a frame that finds it taken goes
 * unmeasured rather than waiting. */
static atomic_flag table_lock = ATOMIC_FLAG_INIT;
static atomic_bool probed_any; /* gl_timer_first_frame ran */
static struct ctx_state table[CONTEXTS];
static uint64_t use_clock;

/* The context of the frame between gl_timer_before_swap and
 * gl_timer_after_swap, so that the current context is asked for once per
 * frame. The shim holds one frame at a time (shim_frame_begin's busy flag)
 * and the hooks call both inside it. */
static void *frame_ctx;
static uint64_t frame_id;

static void *current_context(enum gl_family family)
{
	static _Atomic(void *) get_ctx[2];
	static _Atomic(void *) query_api;
	void *(*get)(void) = atomic_load(&get_ctx[family]);
	if (!get) {
		get = gl_real_lookup(family, family == GL_FAMILY_EGL
		                                 ? "eglGetCurrentContext"
		                                 : "glXGetCurrentContext");
		if (!get)
			return NULL;
		atomic_store(&get_ctx[family], (void *)get);
	}
	if (family == GL_FAMILY_EGL) {
		/* An OpenVG context has no GL to time. */
		unsigned (*api)(void) = atomic_load(&query_api);
		if (!api) {
			api = gl_real_lookup(family, "eglQueryAPI");
			if (!api)
				return NULL;
			atomic_store(&query_api, (void *)api);
		}
		unsigned a = api();
		if (a != EGL_OPENGL_API && a != EGL_OPENGL_ES_API)
			return NULL;
	}
	return get();
}

static void *proc(enum gl_family family, const char *name)
{
	gl_proc (*gpa)(const char *) = gl_real(
	    family == GL_FAMILY_EGL ? GL_HOOK_EGL_GPA : GL_HOOK_GLX_GPA_ARB);
	return gpa ? (void *)gpa(name) : NULL;
}

/* Whole-word search in a space-separated extension string. */
static bool in_list(const char *list, const char *ext)
{
	size_t n = strlen(ext);
	for (const char *p = list; (p = strstr(p, ext)); p += n) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	}
	return false;
}

static bool has_ext(const struct gl_fns *fn, bool indexed, const char *ext)
{
	if (!indexed) {
		const unsigned char *list = fn->GetString(GL_EXTENSIONS);
		return list && in_list((const char *)list, ext);
	}
	/* GL 3.0+: GetString(GL_EXTENSIONS) is an error in core profiles. */
	int count = 0;
	fn->GetIntegerv(GL_NUM_EXTENSIONS, &count);
	for (int i = 0; i < count; i++) {
		const unsigned char *e =
		    fn->GetStringi(GL_EXTENSIONS, (unsigned)i);
		if (e && strcmp((const char *)e, ext) == 0)
			return true;
	}
	return false;
}

/* BATON_GL_GPU_TIME=timer|fence|swap (docs/shim.md, for tests and
 * diagnosis): the mode to use whatever the renderer, MODE_NONE when unset
 * or invalid (the default choice). A forced mode's numbers are what batond
 * is told, also on a software rasterizer, so that the modes can be set
 * against each other on the same machine. */
static enum mode forced_mode(void)
{
	static const char *const names[] = {"", "timer", "fence", "swap"};
	const char *s = getenv("BATON_GL_GPU_TIME");
	if (!s)
		return MODE_NONE;
	for (int m = MODE_TIMER; m <= MODE_SWAP; m++)
		if (strcmp(s, names[m]) == 0)
			return (enum mode)m;
	shim_log(SHIM_LOG_WARN,
	         "ignoring BATON_GL_GPU_TIME=%s: not timer, fence or swap", s);
	return MODE_NONE;
}

static bool try_timer(struct ctx_state *st, enum gl_family family, bool es,
                      int v, bool indexed)
{
	struct gl_fns *fn = &st->fn;
	bool timer = es ? has_ext(fn, false, "GL_EXT_disjoint_timer_query")
	                : v >= 33 || has_ext(fn, indexed, "GL_ARB_timer_query");
	if (!timer)
		return false;
	const char *sfx = es ? "EXT" : "";
	char name[48];
#define GET(field, fname)                                                      \
	(snprintf(name, sizeof(name), "%s%s", fname, sfx),                     \
	 fn->field = proc(family, name))
	GET(GenQueries, "glGenQueries");
	GET(QueryCounter, "glQueryCounter");
	GET(GetQueryObjectuiv, "glGetQueryObjectuiv");
	GET(GetQueryObjectui64v, "glGetQueryObjectui64v");
#undef GET
	if (!fn->GenQueries || !fn->QueryCounter || !fn->GetQueryObjectuiv ||
	    !fn->GetQueryObjectui64v)
		return false;
	fn->GenQueries(2 * SLOTS, st->q);
	st->mode = MODE_TIMER;
	return true;
}

static bool try_fence(struct ctx_state *st, enum gl_family family, bool es,
                      int v, bool indexed)
{
	struct gl_fns *fn = &st->fn;
	if (!(es ? v >= 30 : (v >= 32 || has_ext(fn, indexed, "GL_ARB_sync"))))
		return false;
	fn->FenceSync = proc(family, "glFenceSync");
	fn->ClientWaitSync = proc(family, "glClientWaitSync");
	fn->DeleteSync = proc(family, "glDeleteSync");
	if (!fn->FenceSync || !fn->ClientWaitSync || !fn->DeleteSync)
		return false;
	st->mode = MODE_FENCE;
	return true;
}

/* The queries every probe makes; false when the context lacks them. */
static bool query_fns(struct gl_fns *fn, enum gl_family family)
{
	fn->GetString = proc(family, "glGetString");
	fn->GetStringi = proc(family, "glGetStringi");
	fn->GetIntegerv = proc(family, "glGetIntegerv");
	return fn->GetString && fn->GetIntegerv;
}

/* The context's version string ver as *es and *v (major x 10 + minor);
 * whether its extensions are listed one by one (GetStringi). */
static bool parse_version(const struct gl_fns *fn, const char *ver, bool *es,
                          int *v)
{
	*es = strncmp(ver, "OpenGL ES", 9) == 0;
	int major = 0, minor = 0;
	/* "4.5 (Compatibility Profile) Mesa", "OpenGL ES 3.2 Mesa"; GLES 1
	 * ("OpenGL ES-CM 1.1") parses as 0.0 and gets nothing. */
	sscanf(*es ? ver + 9 : ver, "%d.%d", &major, &minor);
	*v = major * 10 + minor;
	return !*es && *v >= 30 && fn->GetStringi;
}

/* The device the context renders on, for batond (shim_set_gpu_uuid):
 * GL_EXT_memory_object's GL_DEVICE_UUID_EXT is the deviceUUID Vulkan
 * reports for the same device (the extension exists to share memory
 * with Vulkan), so a GL game lands on its GPU as a Vulkan one does. */
static void report_device(enum gl_family family)
{
	void (*get)(unsigned target, unsigned index, unsigned char *data) =
	    proc(family, "glGetUnsignedBytei_vEXT");
	if (!get)
		return;
	unsigned char uuid[GL_UUID_SIZE_EXT] = {0};
	get(GL_DEVICE_UUID_EXT, 0, uuid);
	shim_set_gpu_uuid(uuid); /* all zero (an error): not sent */
}

/* Chooses timer queries, fences or nothing for the current context. */
static void probe(struct ctx_state *st, enum gl_family family)
{
	struct gl_fns *fn = &st->fn;
	st->mode = MODE_NONE;
	if (!query_fns(fn, family))
		return;
	const char *ver = (const char *)fn->GetString(GL_VERSION);
	if (!ver)
		return;
	bool es;
	int v;
	bool indexed = parse_version(fn, ver, &es, &v);
	enum mode forced = forced_mode();
	/* llvmpipe and softpipe stamp a timestamp query in every tile they
	 * rasterize, keeping each thread's last: two stamps around a frame
	 * then measure one tile (microseconds), not the frame. A fence
	 * before the swap would tell the truth but flush the frame early, at
	 * some 30 us a frame. Their swap, though, rasterizes the frame and
	 * returns when it is on its way to the screen: its duration is how
	 * long a frame takes to show once released, which is what the pacer
	 * predicts. What the frame costs the shared cores is the process's
	 * CPU time, which shim_core measures once told. */
	const char *renderer = (const char *)fn->GetString(GL_RENDERER);
	bool software = renderer && (strstr(renderer, "llvmpipe") ||
	                             strstr(renderer, "softpipe"));
	if (forced == MODE_SWAP || (software && forced == MODE_NONE)) {
		st->mode = MODE_SWAP;
		if (forced == MODE_NONE)
			shim_set_software_device(renderer);
	} else if (forced != MODE_FENCE &&
	           try_timer(st, family, es, v, indexed)) {
		shim_log(SHIM_LOG_INFO, "GPU time: timer queries (%s)", ver);
	} else if (forced != MODE_TIMER &&
	           try_fence(st, family, es, v, indexed)) {
		shim_log(SHIM_LOG_INFO, "GPU time: fences (%s)", ver);
	} else {
		shim_log(SHIM_LOG_INFO, "GPU time: not measurable (%s)", ver);
	}
}

/* The state of ctx, set up on first sight. Called with table_lock held. */
static struct ctx_state *state_of(void *ctx, enum gl_family family)
{
	struct ctx_state *victim = &table[0];
	for (int i = 0; i < CONTEXTS; i++) {
		if (table[i].ctx == ctx) {
			table[i].used = ++use_clock;
			return &table[i];
		}
		if (table[i].used < victim->used)
			victim = &table[i];
	}
	/* The victim's query names and fences belong to its own context,
	 * which need not be current now: they are left behind, a few names
	 * per context evicted. */
	memset(victim, 0, sizeof(*victim));
	victim->ctx = ctx;
	victim->used = ++use_clock;
	probe(victim, family);
	return victim;
}

static struct ctx_state *lock_state(void *ctx, enum gl_family family)
{
	if (!ctx || atomic_flag_test_and_set_explicit(&table_lock,
	                                              memory_order_acquire))
		return NULL;
	return state_of(ctx, family);
}

static void unlock(void)
{
	atomic_flag_clear_explicit(&table_lock, memory_order_release);
}

/* Reports every finished measurement; never waits for one. */
static void poll(struct ctx_state *st)
{
	for (unsigned i = 0; i < SLOTS; i++) {
		struct slot *s = &st->slot[i];
		if (!s->frame)
			continue;
		if (st->mode == MODE_FENCE) {
			unsigned r = st->fn.ClientWaitSync(s->sync, 0, 0);
			if (r != GL_ALREADY_SIGNALED &&
			    r != GL_CONDITION_SATISFIED)
				continue;
			shim_gpu_time(s->frame, shim_now_ns() - s->submit_ns,
			              true);
			st->fn.DeleteSync(s->sync);
			s->sync = NULL;
			s->frame = 0;
			continue;
		}
		unsigned a0 = 0, a1 = 0;
		st->fn.GetQueryObjectuiv(st->q[2 * i + 1],
		                         GL_QUERY_RESULT_AVAILABLE, &a1);
		if (!a1)
			continue;
		st->fn.GetQueryObjectuiv(st->q[2 * i],
		                         GL_QUERY_RESULT_AVAILABLE, &a0);
		if (!a0)
			continue;
		uint64_t t0 = 0, t1 = 0;
		st->fn.GetQueryObjectui64v(st->q[2 * i], GL_QUERY_RESULT, &t0);
		st->fn.GetQueryObjectui64v(st->q[2 * i + 1], GL_QUERY_RESULT,
		                           &t1);
		/* A disjoint event (GLES) or a reset can make nonsense;
		 * shim_gpu_time drops what is out of range. */
		if (t1 >= t0)
			shim_gpu_time(s->frame, (int64_t)(t1 - t0), false);
		s->frame = 0;
	}
}

/* Fence mode, before the swap: a fence behind the frame's commands. */
static void fence_mark(struct ctx_state *st, uint64_t frame)
{
	struct slot *s = &st->slot[st->next];
	poll(st);
	if (s->sync)
		st->fn.DeleteSync(s->sync);
	/* Before the call: creating a fence flushes, and the frame's work
	 * may start (or, on some drivers, finish) inside it. */
	s->submit_ns = shim_now_ns();
	s->sync = st->fn.FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
	s->frame = s->sync ? frame : 0;
	st->next = (st->next + 1) % SLOTS;
}

/* Timer mode, before the swap: the end stamp, if our start stamp opened
 * this frame in this context. Otherwise the app changed contexts
 * mid-frame, and the pair would span someone else's work. */
static void timer_close(struct ctx_state *st, uint64_t frame)
{
	if (st->start_for != frame)
		return;
	st->fn.QueryCounter(st->q[2 * st->next + 1], GL_TIMESTAMP);
	st->slot[st->next].frame = frame;
	st->next = (st->next + 1) % SLOTS;
}

/* Timer mode, after the swap: the start stamp of the next frame in the
 * next slot, whatever that slot held being too old to wait for. */
static void timer_open(struct ctx_state *st, uint64_t frame)
{
	st->slot[st->next].frame = 0;
	st->fn.QueryCounter(st->q[2 * st->next], GL_TIMESTAMP);
	st->start_for = frame + 1;
}

void gl_timer_first_frame(enum gl_family family)
{
	if (atomic_load_explicit(&probed_any, memory_order_relaxed))
		return;
	atomic_store_explicit(&probed_any, true, memory_order_relaxed);
	struct gl_fns fn;
	const char *ver = NULL;
	if (!current_context(family) || !query_fns(&fn, family) ||
	    !(ver = (const char *)fn.GetString(GL_VERSION)))
		return;
	bool es;
	int v;
	bool indexed = parse_version(&fn, ver, &es, &v);
	if (has_ext(&fn, indexed, "GL_EXT_memory_object"))
		report_device(family);
}

void gl_timer_before_swap(enum gl_family family, uint64_t frame)
{
	frame_ctx = current_context(family);
	frame_id = frame;
	struct ctx_state *st = lock_state(frame_ctx, family);
	if (!st)
		return;
	switch (st->mode) {
	case MODE_SWAP:
		st->swap_ns = shim_now_ns();
		st->start_for = frame;
		break;
	case MODE_FENCE:
		fence_mark(st, frame);
		break;
	case MODE_TIMER:
		timer_close(st, frame);
		st->start_for = 0;
		break;
	case MODE_NONE:
		break;
	}
	unlock();
}

void gl_timer_after_swap(enum gl_family family, uint64_t frame)
{
	/* A swap does not change the current context. */
	struct ctx_state *st =
	    lock_state(frame_id == frame ? frame_ctx : NULL, family);
	if (!st)
		return;
	switch (st->mode) {
	case MODE_SWAP:
		/* Flagged as a fence: not from GPU timestamps. */
		if (st->start_for == frame)
			shim_gpu_time(frame, shim_now_ns() - st->swap_ns, true);
		st->start_for = 0;
		break;
	case MODE_FENCE:
		poll(st);
		break;
	case MODE_TIMER:
		poll(st);
		timer_open(st, frame);
		break;
	case MODE_NONE:
		break;
	}
	unlock();
}

void gl_timer_forget_context(void *ctx)
{
	if (!ctx)
		return;
	/* Not the frame path, and the holder is only ever a few GL calls
	 * away from letting go: waiting is fine here, and forgetting must
	 * not be skipped (the next context at this address would inherit
	 * query names that are not its own). */
	while (atomic_flag_test_and_set_explicit(&table_lock,
	                                         memory_order_acquire))
		sched_yield();
	for (int i = 0; i < CONTEXTS; i++) {
		if (table[i].ctx == ctx)
			memset(&table[i], 0, sizeof(table[i]));
	}
	unlock();
}
