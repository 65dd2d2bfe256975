/* The validators batond's settings share between the command line
 * (config.c) and the config file (config_file.c). Each returns false,
 * leaving cfg as it was, for a value out of range. */
#pragma once

#include <stdbool.h>

#include "daemon/config.h"

bool daemon_config_set_policy(struct daemon_config *cfg, const char *name);
bool daemon_config_set_sla(struct daemon_config *cfg, double v);
bool daemon_config_set_epoch(struct daemon_config *cfg, long long ms);
bool daemon_config_set_socket(struct daemon_config *cfg, const char *path);
/* "off", "baton" (Baton's budget and exact reassignment) or "paper"
 * (dJay's 33 ms, greedy): params.quality_on / quality_paper / quality. */
bool daemon_config_set_quality(struct daemon_config *cfg, const char *mode);
/* An absolute directory path that fits models_dir. */
bool daemon_config_set_models(struct daemon_config *cfg, const char *dir);
/* The history file: a path of 1 to 255 bytes, or "off" (none). */
bool daemon_config_set_record(struct daemon_config *cfg, const char *path);
/* The subordinate-uid file (owners.h): an absolute path under 256 bytes,
 * or "off" (none). */
bool daemon_config_set_subuid(struct daemon_config *cfg, const char *path);
/* An absolute path, or "off". */
bool daemon_config_set_mps(struct daemon_config *cfg, const char *path);
/* A group name, or a gid written as a number. */
bool daemon_config_set_admin_group(struct daemon_config *cfg, const char *name);
