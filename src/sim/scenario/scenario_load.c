/* Where a scenario's text comes from: a file (read whole, bounded, regular
 * files only) or a built-in by name. */
#include "sim/scenario/scenario.h"

#include "sim/scenario/scenario_parse.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/scenario/builtin.h"

/* The whole of a regular file (a FIFO or a device could block or never
 * end) of at most max bytes, NUL-terminated; NULL with err set. */
char *sim_scenario_read_file(const char *path, size_t max,
                             struct sim_error *err)
{
	struct stat st;

	FILE *f = fopen(path, "r");
	if (!f) {
		sim_cfg_fail_plain(err, path, 0, "", "cannot open: %s",
		                   strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		sim_cfg_fail_plain(err, path, 0, "", "not a regular file");
		return NULL;
	}
	if ((uintmax_t)st.st_size > max) {
		fclose(f);
		sim_cfg_fail_plain(err, path, 0, "", "larger than %zu bytes",
		                   max);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	char *buf = malloc(size + 1);
	if (!buf) {
		fclose(f);
		sim_cfg_fail_plain(err, path, 0, "", "out of memory");
		return NULL;
	}
	size_t got = fread(buf, 1, size, f);
	if (ferror(f)) {
		sim_cfg_fail_plain(err, path, 0, "", "cannot read: %s",
		                   strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[got] = '\0';
	/* The parsers stop at a NUL; what follows would be silently lost. */
	if (strlen(buf) != got) {
		sim_cfg_fail_plain(err, path, 0, "", "contains a NUL byte");
		free(buf);
		return NULL;
	}
	return buf;
}

bool sim_scenario_load_file(const char *path, struct sim_scenario *out,
                            struct sim_error *err)
{
	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	char *text = sim_scenario_read_file(path, MAX_FILE_BYTES, err);
	if (!text)
		return false;
	char *dir = strdup(path);
	if (!dir) {
		free(text);
		return sim_cfg_fail_plain(err, path, 0, "", "out of memory");
	}
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
	bool ok = sim_scenario_parse(text, path, dir[0] ? dir : NULL, out, err);
	free(dir);
	free(text);
	return ok;
}

bool sim_scenario_load(const char *name_or_path, struct sim_scenario *out,
                       struct sim_error *err)
{
	const struct sim_builtin *b = sim_builtin_find(name_or_path);

	if (b) {
		char origin[sizeof(err->file)];
		snprintf(origin, sizeof(origin), "<builtin %s>", b->name);
		return sim_scenario_parse(b->text, origin, NULL, out, err);
	}
	/* A bare word that is neither a built-in nor a file is most likely a
	 * mistyped built-in name. */
	struct stat st;
	bool missing = !strchr(name_or_path, '/') &&
	               stat(name_or_path, &st) != 0 && errno == ENOENT;
	if (sim_scenario_load_file(name_or_path, out, err))
		return true;
	if (missing) {
		size_t used = strlen(err->msg);
		snprintf(err->msg + used, sizeof(err->msg) - used,
		         " (and no built-in scenario has that name)");
	}
	return false;
}
