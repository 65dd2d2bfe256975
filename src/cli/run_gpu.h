/* baton run's GPU: --gpu NAME, or where batond places the session
 * (run_gpu.c). */
#pragma once

/* Picks GPU gpu for the command baton run starts: its device-selection
 * environment set (run_gpu_env.h), and the process confined to the GPU's
 * CPUs when it is a core set. 0, or the exit status for baton run (1: no
 * such GPU or it cannot be applied, 2: a malformed name), said on stderr.
 * Without batond it warns and sets BATON_GPU only. */
int run_gpu_select(const char *gpu);

/* Without --gpu: asks batond where a session of profile (the tenant name;
 * NULL: its cost is unknown) goes, and applies that GPU as
 * run_gpu_select does. 0 also when batond is not running or cannot be
 * asked (the game starts unplaced); CLI_EXIT_NO_FIT (5) when no GPU
 * admits it, every GPU's reason on stderr; 1 when the GPU cannot be
 * applied. */
int run_gpu_place(const char *profile);
