/* The fleet simulator (docs/fleet-results.md): many GPUs over
 * a day, game sessions arriving and leaving, placed by a fleet allocator. It
 * steps from session event to session event, never frame by frame: each
 * GPU is the sum of its sessions' demands, a session's demand being its
 * game's GPU seconds per frame at its quality level times its SLA rate
 * (GPU seconds per second, the unit of core_caps_admit's load).
 *
 * Arrivals are a non-homogeneous Poisson process (thinning) of rate
 *   lambda(t) = rate x (1 + amp x cos(2 pi (t - peak) / 1 day)),
 * session lengths exponential (sigma 0) or lognormal of the given mean,
 * games drawn by weight. The same arrivals are offered to each placement:
 *   - packed N: Agones' Packed on a static count of N sessions a GPU: the
 *     fullest GPU with fewer than N sessions;
 *   - distributed N: Agones' Distributed: the emptiest one;
 *   - baton: Baton's published capacity: a GPU whose capacity stage admits
 *     the session at its best level (core_caps_admit: quiet for cap_quiet
 *     periods since its last join or departure, load + demand < U_l),
 *     the fullest such GPU first;
 *   - baton-quality: the quality lever on as well: a GPU admits a session
 *     when it fits at the cheapest levels (core_caps_admit on the summed
 *     cheapest demands), and quality_join picks the levels (dJay §6.3);
 *     after a departure the survivors get the optimum (quality_reassign).
 * A session nobody admits is refused (lost, no queue). Below SLA: a GPU
 * whose summed demand exceeds its capacity (one GPU second a second)
 * cannot hold every session at its SLA; each of its sessions counts as
 * below SLA for as long as that lasts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/policy.h"
#include "core/quality_opt.h"

#define SIM_FLEET_MAX_GAMES   16
#define SIM_FLEET_MAX_COUNTS  8
#define SIM_FLEET_MAX_PER_GPU 32 /* sessions one GPU may hold */
#define SIM_FLEET_MAX_GPUS    1000000
#define SIM_FLEET_NAME_MAX    32
/* Expected arrivals (at the peak rate) one run may draw. */
#define SIM_FLEET_MAX_ARRIVALS 5e7

enum sim_fleet_placement {
	SIM_FLEET_PACKED = 0,
	SIM_FLEET_DISTRIBUTED,
	SIM_FLEET_BATON,
	SIM_FLEET_BATON_QUALITY,
	SIM_FLEET_N_PLACEMENTS
};

#define SIM_FLEET_MAX_RUNS (2 * SIM_FLEET_MAX_COUNTS + 2)

/* A game of the mix: its levels cheapest first (one level: no quality
 * lever), each a GPU cost per frame and an SSIM. */
struct sim_fleet_game {
	char name[SIM_FLEET_NAME_MAX];
	double weight;  /* share of arrivals (normalised over the mix) */
	double sla_fps; /* its SLA rate, the demand's weight */
	unsigned n_levels;
	double cost_s[QUALITY_MAX_LEVELS];
	double ssim[QUALITY_MAX_LEVELS];
};

struct sim_fleet_spec {
	bool on; /* the scenario has a fleet group */
	uint32_t gpus;
	double rate_per_s;     /* mean arrival rate over a day */
	double amplitude;      /* diurnal amplitude, [0, 1] */
	double peak_s;         /* time of day of the peak rate */
	double session_mean_s; /* mean session length */
	double session_sigma;  /* 0: exponential; else lognormal sigma */
	double gpu_capacity;   /* GPU seconds a second one GPU gives */
	uint32_t counts[SIM_FLEET_MAX_COUNTS]; /* static sessions per GPU */
	size_t n_counts;
	uint32_t placements; /* bit per enum sim_fleet_placement */
	double bin_s;        /* the time series' bin */
	struct sim_fleet_game games[SIM_FLEET_MAX_GAMES];
	size_t n_games;
};

/* One placement's day. */
struct sim_fleet_run {
	enum sim_fleet_placement placement;
	uint32_t per_gpu; /* static count; 0 for Baton's */
	uint64_t arrivals, served, refused;
	double session_s;   /* session-seconds served */
	double below_sla_s; /* session-seconds below SLA */
	double below_share; /* below_sla_s / session_s */
	double gpu_hours;   /* GPU time with at least one session */
	double served_per_gpu_hour;
	double density;   /* session-hours per GPU-hour */
	double mean_ssim; /* over session-seconds, at the levels held */
	uint32_t peak_sessions, peak_gpus;
	/* Time averages per bin of bin_s: sessions, and GPUs in use. */
	double *sessions_per_bin;
	double *gpus_per_bin;
	size_t n_bins;
};

struct sim_fleet_result {
	struct sim_fleet_run runs[SIM_FLEET_MAX_RUNS];
	size_t n_runs;
	uint64_t arrivals;          /* offered to each placement */
	double gpu_hours_simulated; /* gpus x duration x runs, for speed */
};

/* Defaults of a fleet group (sim_fleet_run.c): 100 GPUs, amplitude 0.5,
 * peak at 20:00, hour-long exponential sessions, a GPU's capacity 1,
 * static counts 2 and 3, every placement, 15-min bins; no games and no
 * rate (the scenario must give both). */
struct sim_fleet_spec sim_fleet_spec_default(void);

/* "packed", "distributed", "baton", "baton-quality"; NULL past the end. */
const char *sim_fleet_placement_name(enum sim_fleet_placement p);

/* The arrivals of a day: times (sorted), lengths and games, drawn from
 * seed; *n of them. False if out of memory. */
struct sim_fleet_arrivals {
	double *t_s;
	double *len_s;
	uint8_t *game;
	size_t n;
};
bool sim_fleet_arrivals_draw(const struct sim_fleet_spec *spec,
                             double duration_s, uint64_t seed,
                             struct sim_fleet_arrivals *out);
void sim_fleet_arrivals_free(struct sim_fleet_arrivals *a);
/* lambda(t) above, per second. */
double sim_fleet_rate(const struct sim_fleet_spec *spec, double t_s);

/* One placement over the given arrivals; p gives U_l, cap_quiet and
 * cap_period_s. False if out of memory. */
bool sim_fleet_place(const struct sim_fleet_spec *spec,
                     const struct core_params *p,
                     const struct sim_fleet_arrivals *a, double duration_s,
                     enum sim_fleet_placement placement, uint32_t per_gpu,
                     struct sim_fleet_run *out);

/* Every placement in spec->placements (the static ones once per count).
 * False if out of memory or nothing to run. */
bool sim_fleet_run(const struct sim_fleet_spec *spec,
                   const struct core_params *p, double duration_s,
                   uint64_t seed, struct sim_fleet_result *out);
void sim_fleet_result_free(struct sim_fleet_result *r);
