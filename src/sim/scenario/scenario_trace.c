/* A tenant's frame-cost trace: a CSV of "cpu_ms,gpu_ms" lines, read from
 * the file a scenario names (or, in the fuzzer's build, from the string
 * itself). */
#include "sim/scenario/scenario_parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses one trace line "cpu_ms,gpu_ms" (blanks around the numbers allowed,
 * '#' starts a comment). Returns 0 for a frame, 1 for nothing, -1 if bad. */
static int trace_line(char *line, double *cpu, double *gpu)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char *p = line;
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (!*p)
		return 1;
	char *end;
	errno = 0;
	*cpu = strtod(p, &end);
	if (end == p || errno)
		return -1;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != ',')
		return -1;
	*gpu = strtod(p, &end);
	if (end == p || errno)
		return -1;
	p = end;
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (*p)
		return -1;
	if (!isfinite(*cpu) || !isfinite(*gpu) || *cpu < 0 || *gpu < 0)
		return -1;
	return 0;
}

static bool trace_push(struct sim_tenant_spec *t, size_t *alloc, double cpu,
                       double gpu)
{
	if (t->n_trace == *alloc) {
		size_t n = *alloc ? *alloc * 2 : 256;
		double *a = realloc(t->trace_cpu_ms, n * sizeof(*a));
		if (!a)
			return false;
		t->trace_cpu_ms = a;
		double *b = realloc(t->trace_gpu_ms, n * sizeof(*b));
		if (!b)
			return false;
		t->trace_gpu_ms = b;
		*alloc = n;
	}
	t->trace_cpu_ms[t->n_trace] = cpu;
	t->trace_gpu_ms[t->n_trace] = gpu;
	t->n_trace++;
	return true;
}

/* Splits text (modified in place) into lines and appends their frames.
 * Errors name the trace (file) and its line, and the setting (field). */
static bool parse_trace(struct sim_error *err, const char *file,
                        const char *field, char *text,
                        struct sim_tenant_spec *t)
{
	size_t alloc = 0;
	int lineno = 0;

	for (char *line = text; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		double cpu, gpu;
		int r = trace_line(line, &cpu, &gpu);
		if (r < 0)
			return sim_cfg_fail_plain(
			    err, file, lineno, field,
			    "expected \"cpu_ms,gpu_ms\" with two "
			    "non-negative numbers");
		if (r == 0 && t->n_trace == MAX_TRACE_FRAMES)
			return sim_cfg_fail_plain(err, file, lineno, field,
			                          "more than %u frames",
			                          MAX_TRACE_FRAMES);
		if (r == 0 && !trace_push(t, &alloc, cpu, gpu))
			return sim_cfg_fail_plain(err, file, lineno, field,
			                          "out of memory");
		line = nl ? nl + 1 : NULL;
	}
	if (t->n_trace == 0)
		return sim_cfg_fail_plain(err, file, 0, field,
		                          "trace has no frames");
	for (size_t i = 0; i < t->n_trace; i++) {
		if (t->trace_cpu_ms[i] + t->trace_gpu_ms[i] > 0)
			return true;
	}
	/* Replayed in a loop, such a trace would never advance the clock. */
	return sim_cfg_fail_plain(err, file, 0, field,
	                          "every frame costs 0 ms");
}

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/* The fuzzer feeds arbitrary text, and a path in it must not make it read
 * (or block on) whatever file the path names. The string itself stands in
 * for the trace's contents instead, so the CSV reader is fuzzed as well. */
bool sim_scenario_read_trace(struct sim_cfg_ctx *c, const config_setting_t *s,
                             const char *rel, struct sim_tenant_spec *t)
{
	char field[sizeof(c->err->field)];

	sim_cfg_setting_path(s, field, sizeof(field));
	char *text = strdup(rel);
	if (!text)
		return sim_cfg_fail(c, s, NULL, "out of memory");
	bool ok = parse_trace(c->err, "<trace>", field, text, t);
	free(text);
	return ok;
}
#else
bool sim_scenario_read_trace(struct sim_cfg_ctx *c, const config_setting_t *s,
                             const char *rel, struct sim_tenant_spec *t)
{
	char path[4096], field[sizeof(c->err->field)];

	sim_cfg_setting_path(s, field, sizeof(field));
	if (rel[0] == '/' || !c->base_dir || !c->base_dir[0])
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", c->base_dir, rel);
	char *text = sim_scenario_read_file(path, MAX_TRACE_BYTES, c->err);
	if (!text) {
		/* sim_scenario_read_file named the file; say which setting
		 * wanted it. */
		sim_cfg_copy_str(c->err->field, sizeof(c->err->field), field);
		return false;
	}
	bool ok = parse_trace(c->err, path, field, text, t);
	free(text);
	return ok;
}
#endif
