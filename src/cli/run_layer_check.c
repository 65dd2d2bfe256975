/* baton run's check of the Vulkan layer's manifests (run_layer_check.h). */
#include "cli/run_layer_check.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The manifest's layer.library_path (the Vulkan loader's manifest
 * format, file_format_version 1.x) into out, resolved against the
 * manifest's folder when relative; false when it names no path to check. */
static bool library_path(const char *dir, const char *manifest, char *out,
                         size_t len)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, manifest);
	if (n < 0 || (size_t)n >= sizeof(path))
		return false;
	json_t *root = json_load_file(path, 0, NULL);
	const char *lib = json_string_value(
	    json_object_get(json_object_get(root, "layer"), "library_path"));
	bool ok = lib && strchr(lib, '/');
	if (ok)
		n = lib[0] == '/' ? snprintf(out, len, "%s", lib)
		                  : snprintf(out, len, "%s/%s", dir, lib);
	json_decref(root);
	return ok && n > 0 && (size_t)n < len;
}

void run_check_layer_libraries(const char *data_dir)
{
	char dir[PATH_MAX];
	int n = snprintf(dir, sizeof(dir), "%s/" LAYER_SUBDIR, data_dir);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char lib[PATH_MAX];
		if (strncmp(e->d_name, "VkLayer_baton", 13) != 0 || len < 5 ||
		    strcmp(e->d_name + len - 5, ".json") != 0 ||
		    !library_path(dir, e->d_name, lib, sizeof(lib)) ||
		    access(lib, R_OK) == 0)
			continue;
		fprintf(
		    stderr,
		    "baton run: the Vulkan layer's manifest %s/%s names %s, "
		    "which is missing: Vulkan games of its architecture "
		    "will run unpaced\n",
		    dir, e->d_name, lib);
	}
	closedir(d);
}
