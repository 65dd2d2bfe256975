/* arena: Baton's reference game for quality work. A seeded
 * world, a camera path driven by the frame number, three quality presets
 * whose level comes from batond through the game SDK, and capture of
 * every frame (PPM) and of its cost (CSV). See README.md. */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arena_sdk.h"
#include "capture.h"
#include "crash_report.h"
#include "render.h"

#define LOG_LAG 2 /* frames a GPU time query is read late */

struct options {
	uint64_t seed, start_frame, frames, capture_every;
	int level; /* -1: baton_quality_level() */
	int width, height;
	const char *capture_dir, *log_path;
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: arena [options]\n"
	    "  --seed S           world seed (default 1)\n"
	    "  --start-frame N    first frame of the camera path (default 0)\n"
	    "  --frames K         frames to draw (default %u, one loop)\n"
	    "  --level N          force quality level 0 low, 1 medium, 2 high\n"
	    "                     (default: the level batond picks)\n"
	    "  --width W          window width (default 640)\n"
	    "  --height H         window height (default 360)\n"
	    "  --capture DIR      write DIR/frame_NNNNNN.ppm (held in memory,\n"
	    "                     up to 1 GiB, and written after the frames)\n"
	    "  --capture-every N  capture every Nth frame (default 1)\n"
	    "  --log FILE         one CSV line per frame: frame, level, area,\n"
	    "                     gpu_ms (-1 if unknown), cpu_ms, cost_s "
	    "(on llvmpipe\n"
	    "                     CPU time / cores), finish_s, proc_cpu_s, "
	    "active per\n"
	    "                     counted type\n"
	    "With BATON_PROFILE_DIR=DIR in the environment (baton profile),\n"
	    "--capture defaults to DIR and --log to DIR/frames.csv.\n"
	    "  --help             this text\n",
	    ARENA_LOOP_FRAMES);
}

static int bad_arg(const char *name, const char *value, const char *why)
{
	fprintf(stderr, "arena: %s %s: %s (see --help)\n", name,
	        value ? value : "", why);
	return -1;
}

static int parse_u64(const char *name, const char *value, uint64_t lo,
                     uint64_t hi, uint64_t *out)
{
	if (!value)
		return bad_arg(name, NULL, "needs a value");
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-' || v < lo ||
	    v > hi) {
		char why[96];
		snprintf(why, sizeof(why),
		         "not an integer in %" PRIu64 "..%" PRIu64, lo, hi);
		return bad_arg(name, value, why);
	}
	*out = v;
	return 0;
}

/* Returns 0, 1 after --help, or -1 on a bad argument (already reported). */
static int parse_args(int argc, char **argv, struct options *o)
{
	*o = (struct options){.seed = 1,
	                      .frames = ARENA_LOOP_FRAMES,
	                      .capture_every = 1,
	                      .level = -1,
	                      .width = 640,
	                      .height = 360};
	for (int i = 1; i < argc; i++) {
		const int arg_index = i;
		const char *name = argv[i], *value = NULL;
		char buf[64];
		const char *eq = strchr(name, '=');
		if (eq && (size_t)(eq - name) < sizeof(buf)) {
			memcpy(buf, name, (size_t)(eq - name));
			buf[eq - name] = '\0';
			name = buf;
			value = eq + 1;
		}
		if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
			usage(stdout);
			return 1;
		}
		if (!value && i + 1 < argc)
			value = argv[++i];
		uint64_t v = 0;
		int err = 0;
		if (!strcmp(name, "--seed"))
			err = parse_u64(name, value, 0, UINT64_MAX, &o->seed);
		else if (!strcmp(name, "--start-frame"))
			err = parse_u64(name, value, 0, UINT32_MAX,
			                &o->start_frame);
		else if (!strcmp(name, "--frames"))
			err = parse_u64(name, value, 1, UINT32_MAX, &o->frames);
		else if (!strcmp(name, "--capture-every"))
			err = parse_u64(name, value, 1, UINT32_MAX,
			                &o->capture_every);
		else if (!strcmp(name, "--level")) {
			err = parse_u64(name, value, 0, ARENA_N_LEVELS - 1, &v);
			o->level = (int)v;
		} else if (!strcmp(name, "--width")) {
			err = parse_u64(name, value, 16, 8192, &v);
			o->width = (int)v;
		} else if (!strcmp(name, "--height")) {
			err = parse_u64(name, value, 16, 8192, &v);
			o->height = (int)v;
		} else if (!strcmp(name, "--capture") ||
		           !strcmp(name, "--log")) {
			if (!value || !*value)
				return bad_arg(name, NULL, "needs a value");
			*(name[2] == 'c' ? &o->capture_dir : &o->log_path) =
			    value;
		} else {
			return bad_arg(argv[arg_index], NULL, "unknown option");
		}
		if (err)
			return -1;
	}
	/* The profiling protocol (docs/quality.md): defaults only. */
	static char profile_log[4096];
	const char *dir = getenv("BATON_PROFILE_DIR");
	if (dir && *dir) {
		if (!o->capture_dir)
			o->capture_dir = dir;
		if (!o->log_path) {
			int n = snprintf(profile_log, sizeof(profile_log),
			                 "%s/frames.csv", dir);
			if (n < 0 || (size_t)n >= sizeof(profile_log))
				return bad_arg("BATON_PROFILE_DIR", dir,
				               "too long");
			o->log_path = profile_log;
		}
	}
	return 0;
}

static double clock_ms(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

struct run {
	const struct options *opt;
	struct world world;
	struct mesh_set meshes;
	struct renderer *renderer;
	FILE *log;
	uint8_t *rgb;
	struct capture_queue captures;
	bool software; /* render_software(): cost_s is CPU time / cores */
	double cores;
	struct log_row pending[LOG_LAG + 1];
};

static int run_frames(struct run *run)
{
	const struct options *o = run->opt;
	for (uint64_t k = 0; k < o->frames; k++) {
		uint64_t frame = o->start_frame + k;
		double t0 = now_ms();
		double p0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
		uint32_t level = arena_sdk_level();
		if (o->level >= 0)
			level = (uint32_t)o->level;
		if (level >= ARENA_N_LEVELS)
			level = ARENA_N_LEVELS - 1;
		struct camera cam;
		world_camera(frame, &cam);
		uint32_t active[ARENA_N_COUNTED], potential[ARENA_N_COUNTED];
		render_frame(run->renderer, &run->world, &cam, (int)level,
		             active, potential);
		arena_sdk_frame(active, potential);
		/* The profiling cost (cost_s), from the frame's start (before
		 * its draw calls) to glFinish returning, before the capture's
		 * read-back, which is not the game's cost. On a GPU, the wall
		 * time (finish_s). On a software rasterizer the "GPU" is the
		 * cores, and the cost is the process's CPU time over that span
		 * over the cores: the unit Baton's shim reports for such a
		 * device (GPU time = CPU time / cores), which the waits other
		 * processes cause on a shared machine do not inflate. Only
		 * when logging: glFinish stalls the pipeline. */
		double cost_ms = -1.0, finish_ms = -1.0, proc_ms = -1.0;
		if (run->log) {
			render_finish(run->renderer);
			finish_ms = now_ms() - t0;
			proc_ms = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - p0;
			cost_ms =
			    run->software ? proc_ms / run->cores : finish_ms;
		}
		if (o->capture_dir && k % o->capture_every == 0) {
			render_read_rgb(run->renderer, run->rgb);
			if (capture_queue_push(&run->captures, frame, run->rgb))
				return -1;
		}
		render_present(run->renderer);
		struct log_row *row = &run->pending[k % (LOG_LAG + 1)];
		*row = (struct log_row){.frame = frame,
		                        .level = (int)level,
		                        .area = world_area_name(cam.area),
		                        .cpu_ms = now_ms() - t0,
		                        .cost_ms = cost_ms,
		                        .finish_ms = finish_ms,
		                        .proc_cpu_ms = proc_ms};
		memcpy(row->active, active, sizeof(active));
		if (run->log && k >= LOG_LAG)
			capture_log_row(
			    run->log,
			    &run->pending[(k - LOG_LAG) % (LOG_LAG + 1)],
			    render_gpu_ms(run->renderer, LOG_LAG, 0));
	}
	/* The last rows: wait for their queries. */
	for (uint64_t lag = LOG_LAG; run->log && lag-- > 0;)
		if (o->frames > lag)
			capture_log_row(
			    run->log,
			    &run->pending[(o->frames - 1 - lag) %
			                  (LOG_LAG + 1)],
			    render_gpu_ms(run->renderer, (unsigned)lag, 1));
	return capture_queue_flush(&run->captures);
}

int main(int argc, char **argv)
{
	crash_report_install();
	struct options opt;
	int parsed = parse_args(argc, argv, &opt);
	if (parsed)
		return parsed > 0 ? 0 : 2;
	struct run run = {.opt = &opt,
	                  .captures = {.dir = opt.capture_dir,
	                               .width = opt.width,
	                               .height = opt.height}};
	int status = 1;
	if (world_generate(&run.world, opt.seed) ||
	    mesh_set_build(&run.meshes)) {
		fprintf(stderr, "arena: out of memory\n");
		goto out;
	}
	run.rgb = malloc((size_t)opt.width * (size_t)opt.height * 3);
	if (!run.rgb)
		goto out;
	if (opt.log_path) {
		run.log = fopen(opt.log_path, "w");
		if (!run.log) {
			fprintf(stderr, "arena: --log %s: %s\n", opt.log_path,
			        strerror(errno));
			goto out;
		}
		capture_log_header(run.log);
	}
	static const char *const level_names[ARENA_N_LEVELS] = {"low", "medium",
	                                                        "high"};
	arena_sdk_declare(level_names, ARENA_N_LEVELS, ARENA_N_LEVELS - 1,
	                  &run.meshes);
	run.renderer = render_open(opt.width, opt.height, &run.meshes);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	run.cores = cores > 0 ? (double)cores : 1.0;
	if (run.renderer)
		run.software = render_software(run.renderer);
	if (!run.renderer)
		goto out;
	if (run_frames(&run) == 0)
		status = 0;
out:
	render_close(run.renderer);
	if (run.log && fclose(run.log) != 0) {
		fprintf(stderr, "arena: --log %s: write failed\n",
		        opt.log_path);
		status = 1;
	}
	capture_queue_free(&run.captures);
	free(run.rgb);
	mesh_set_free(&run.meshes);
	world_free(&run.world);
	return status;
}
