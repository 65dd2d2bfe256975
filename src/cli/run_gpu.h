/* baton run --gpu NAME (run_gpu.c). */
#pragma once

/* Picks GPU gpu for the command baton run starts: BATON_GPU set, and the
 * process confined to the GPU's CPUs when it is a core set. 0, or the
 * exit status for baton run (1: no such GPU or it cannot be applied, 2:
 * a malformed name), said on stderr. Without batond it warns and sets
 * BATON_GPU only. */
int run_gpu_select(const char *gpu);
