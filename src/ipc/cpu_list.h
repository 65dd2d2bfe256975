/* CPU lists as the kernel writes them ("0-3,8"; cpuset(7)): batond's
 * logical GPUs (daemon/gpus.h) and `baton run --gpu`. libc only. */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* Parses list ("0", "0-3,8,10-11") into *out; false with the reason in
 * why if it is empty, malformed or names a CPU past CPU_SETSIZE. */
bool ipc_cpu_list_parse(const char *list, cpu_set_t *out, char *why,
                        size_t whylen);

/* *set as a list into out (len); cut short at a whole entry. */
void ipc_cpu_list_format(const cpu_set_t *set, char *out, size_t len);
