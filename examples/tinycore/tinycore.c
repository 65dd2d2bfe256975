/* tinycore: the smallest program that drives Baton's policy core.
 *
 * batond and the simulator do what this file does, with more around it:
 * each control epoch they measure every game, hand the measurements to
 * core_controller_tick, and apply the pacing targets it returns. Here the
 * "games" are a toy plant of three lines of arithmetic, so the loop is all
 * there is to read:
 *
 *     fill core_tenant inputs  ->  core_controller_tick  ->  apply target_fps
 *
 * The plant: each game costs a fixed GPU time per frame and would run at a
 * fixed rate on its own (its CPU's limit). A target under that rate paces
 * it (the shim would sleep before Present); when the games together ask
 * the GPU for more than one second per second, it shares the GPU and every
 * game slows in proportion.
 *
 * Usage: tinycore [none|sa|esa] [epochs]. It prints the rates of the first
 * epochs and every 25th, then one "final" line per game that the tests
 * read. SA holds each game at its SLA (plus a margin); ESA gives all the
 * same rate, the highest that fills util_target of the GPU; none shows
 * the racer under its SLA while the others take the GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/controller.h"
#include "core/reach.h"

#define N_GAMES 3

struct toy_game {
	const char *name;
	double gpu_s;    /* GPU seconds one frame costs */
	double free_fps; /* the rate it reaches alone, unpaced */
	double sla_fps;  /* the rate it was promised */
};

static const struct toy_game games[N_GAMES] = {
    {"racer", 0.009, 120.0, 60.0},
    {"shooter", 0.004, 250.0, 60.0},
    {"puzzle", 0.002, 400.0, 30.0},
};

/* The rate a game asks for: its target if paced under its free rate. */
static double demand_fps(const struct toy_game *g, double target_fps)
{
	if (target_fps > 0.0 && target_fps < g->free_fps)
		return target_fps;
	return g->free_fps;
}

/* One epoch of the plant at the targets in t[]: writes what a shim would
 * report (F_out, frames, GPU time, pacing sleep) into each tenant, and
 * returns the GPU's busy fraction. */
static double plant_run(struct core_tenant *t, double dt)
{
	double load = 0.0; /* GPU seconds asked per second */
	for (int i = 0; i < N_GAMES; i++)
		load += demand_fps(&games[i], t[i].target_fps) * games[i].gpu_s;
	double slow = load > 1.0 ? load : 1.0; /* shared GPU: all slow down */

	for (int i = 0; i < N_GAMES; i++) {
		const struct toy_game *g = &games[i];
		double fps = demand_fps(g, t[i].target_fps) / slow;
		uint32_t frames = (uint32_t)lround(fps * dt);
		/* A frame's own work takes slow / free_fps; the pacer sleeps
		 * the rest of the frame interval, if any. */
		double sleep = 1.0 / fps - slow / g->free_fps;
		if (sleep < 1e-9)
			sleep = 0.0;
		t[i].fps = fps;
		t[i].frames = frames;
		t[i].gpu_busy_s = frames * g->gpu_s;
		t[i].paced_frames = sleep > 0.0 ? frames : 0;
		t[i].sleep_s = frames * sleep;
	}
	return load < 1.0 ? load : 1.0;
}

static void print_header(const char *policy)
{
	printf("policy %s: %d games sharing one GPU\n", policy, N_GAMES);
	printf("%6s", "epoch");
	for (int i = 0; i < N_GAMES; i++)
		printf(" %9s fps/target", games[i].name);
	printf("  gpu\n");
}

static void print_row(int epoch, const struct core_tenant *t, double util)
{
	printf("%6d", epoch);
	for (int i = 0; i < N_GAMES; i++)
		printf(" %9.1f /%7.1f  ", t[i].fps, t[i].target_fps);
	printf("  %3.0f%%\n", util * 100.0);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "esa";
	int epochs = argc > 2 ? atoi(argv[2]) : 100;
	const struct core_policy *policy = core_policy_find(name);
	if (!policy || epochs < 1) {
		fprintf(stderr, "usage: tinycore [none|sa|esa] [epochs]\n");
		return 2;
	}

	/* The core's defaults: a 100 ms epoch, ESA filling 95% of the GPU.
	 * The core keeps its state in these structs and nowhere else; a
	 * zeroed tenant with its inputs set is a new one. */
	struct core_params params = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[N_GAMES] = {0};
	for (int i = 0; i < N_GAMES; i++)
		t[i].sla_fps = games[i].sla_fps;

	print_header(policy->name);
	for (int epoch = 0; epoch < epochs; epoch++) {
		/* Measure: run the plant for one epoch at the last targets. */
		gpu.util = plant_run(t, params.epoch_s);
		/* Decide: every stage of the core, in order (controller.h). */
		core_controller_tick(policy, &params, &gpu, t, N_GAMES);
		/* Apply: the plant reads t[i].target_fps next epoch, as a
		 * shim reads it from its control block. */
		if (epoch < 4 || epoch % 25 == 0 || epoch == epochs - 1)
			print_row(epoch, t, gpu.util);
	}

	/* What the policy promised, next to what the plant ran at. */
	for (int i = 0; i < N_GAMES; i++)
		printf("final %s sla %.1f sla_ref %.2f fps %.2f target %.2f\n",
		       games[i].name, t[i].sla_fps,
		       core_sla_ref(&params, &t[i]), t[i].fps, t[i].target_fps);
	printf("final gpu util %.3f target %.3f common %.2f\n", gpu.util,
	       params.util_target, gpu.common_fps);
	return 0;
}
