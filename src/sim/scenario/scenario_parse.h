/* The scenario parser's parts, shared by the scenario*.c files and by no
 * one else: the limits of the schema and the readers of its sections. The
 * public entry points are in scenario.h; the typed field readers they are
 * built on in scenario_fields.h. */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/params_table.h"
#include "sim/scenario/scenario_types.h"
#include "sim/scenario/sim_error.h"
#include "sim/scenario/scenario_fields.h"

/* Limits that keep a scenario within what the simulator can hold in memory
 * and what a person can mean; documented in docs/scenarios.md. */
#define MAX_TENANTS      1024
#define MAX_SCENES       4096
#define MAX_SWEEP        256
#define MAX_DURATION_S   86400.0
#define MAX_IN_FLIGHT    16
#define MAX_TRACE_FRAMES (16u * 1024u * 1024u)
#define MAX_FILE_BYTES   ((size_t)16 * 1024 * 1024)
#define MAX_TRACE_BYTES  ((size_t)512 * 1024 * 1024)

/* The top-level groups and list of a scenario (scenario_gpu.c,
 * scenario_policy.c, scenario_tenants.c): each sets its defaults, then
 * reads what the file gives, false with c->err set on the first error. */
bool sim_scenario_parse_gpu(struct sim_cfg_ctx *c, const config_setting_t *root,
                            struct sim_scenario *sc);
bool sim_scenario_parse_policy(struct sim_cfg_ctx *c,
                               const config_setting_t *root,
                               struct sim_scenario *sc);
bool sim_scenario_parse_tenants(struct sim_cfg_ctx *c,
                                const config_setting_t *root,
                                struct sim_scenario *sc);

/* A tenant's trace file (setting s names it as rel, relative to
 * c->base_dir) read into t's frames (scenario_trace.c). */
bool sim_scenario_read_trace(struct sim_cfg_ctx *c, const config_setting_t *s,
                             const char *rel, struct sim_tenant_spec *t);

/* The whole of a regular file of at most max bytes, NUL-terminated, to
 * free(); NULL with err set naming the file (scenario_load.c). */
char *sim_scenario_read_file(const char *path, size_t max,
                             struct sim_error *err);

/* Member s of a group, when its key is one of the parameter table's of
 * group (an old key warns and names the new one): read with the table's
 * type and range into params (scenario_params.c). *known: it was one. */
bool sim_cfg_param(struct sim_cfg_ctx *c, const config_setting_t *s,
                   enum core_param_group group, void *params, bool *known);
/* Every member of g: the table's keys of group into params; the names in
 * the NULL-terminated others are the caller's to read; anything else is an
 * unknown field. */
bool sim_cfg_params(struct sim_cfg_ctx *c, const config_setting_t *g,
                    enum core_param_group group, void *params,
                    const char *const *others);
