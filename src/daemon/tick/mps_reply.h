/* The MPS control daemon's reply to get_server_list (space_mps.c): the
 * process ids of the MPS servers running, one decimal number a line
 * (NVIDIA's "Multi-Process Service" guide, "nvidia-cuda-mps-control":
 * get_server_list "prints out a list of PIDs of all MPS servers").
 * Outside input: a line that is not a positive decimal pid is skipped,
 * and counted. Pure. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Parses the len bytes of text (no NUL needed) into up to max pids;
 * returns how many, the lines skipped in *bad. */
size_t daemon_mps_servers(const char *text, size_t len, pid_t *pids, size_t max,
                          size_t *bad);
