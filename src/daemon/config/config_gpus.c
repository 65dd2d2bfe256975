/* batond's `gpus` config list (config_gpus.h). */
#include "daemon/config/config_gpus.h"

#include <stdio.h>
#include <string.h>

#include "ipc/cpu_list.h"

static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= DAEMON_GPU_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
		            "YZ0123456789._-",
		            s[i]))
			return false;
	return true;
}

/* One string member into out (size len); false when it is not a string
 * or too long. */
static bool member(const config_setting_t *m, char *out, size_t len)
{
	const char *s = config_setting_get_string(m);
	if (!s || strlen(s) >= len)
		return false;
	snprintf(out, len, "%s", s);
	return true;
}

/* vram_mb = 8192: a GPU's VRAM in MiB, (0, IPC_VRAM_MB_MAX]. */
static bool gpu_vram_mb(const config_setting_t *m, double *out)
{
	int t = config_setting_type(m);
	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64 &&
	    t != CONFIG_TYPE_FLOAT)
		return false;
	double v = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(m)
	                                  : (double)config_setting_get_int64(m);
	if (!(v > 0.0) || v > IPC_VRAM_MB_MAX)
		return false;
	*out = v;
	return true;
}

/* One member m of the GPU entry g (its name set) into g; false with why
 * naming the GPU and the key. */
static bool gpu_member(const config_setting_t *m, struct daemon_gpu_conf *g,
                       char *why, size_t whylen)
{
	const char *key = config_setting_name(m);
	bool ok = true;
	if (strcmp(key, "name") == 0) {
	} else if (strcmp(key, "cpus") == 0) {
		cpu_set_t set;
		char cwhy[128];
		ok = member(m, g->cpus, sizeof(g->cpus));
		if (ok &&
		    !ipc_cpu_list_parse(g->cpus, &set, cwhy, sizeof(cwhy))) {
			snprintf(why, whylen, "GPU \"%s\": cpus: %s", g->name,
			         cwhy);
			return false;
		}
	} else if (strcmp(key, "device") == 0) {
		ok = member(m, g->device, sizeof(g->device)) && g->device[0];
	} else if (strcmp(key, "vram_mb") == 0) {
		if (!gpu_vram_mb(m, &g->vram_mb)) {
			snprintf(why, whylen,
			         "GPU \"%s\": vram_mb must be a number in (0, "
			         "%.10g]",
			         g->name, IPC_VRAM_MB_MAX);
			return false;
		}
	} else {
		snprintf(why, whylen,
		         "GPU \"%s\": unknown key %s (name, cpus, device, "
		         "vram_mb)",
		         g->name, key);
		return false;
	}
	if (!ok)
		snprintf(why, whylen,
		         "GPU \"%s\": %s must be a string of 1 to 127 bytes",
		         g->name, key);
	return ok;
}

bool daemon_config_gpus(struct daemon_config *cfg, const config_setting_t *list,
                        char *why, size_t whylen)
{
	if (!config_setting_is_list(list)) {
		snprintf(why, whylen, "must be a list ( { ... }, ... )");
		return false;
	}
	int n = config_setting_length(list);
	if (n < 1 || n > DAEMON_MAX_GPUS) {
		snprintf(why, whylen, "1 to %d entries", DAEMON_MAX_GPUS);
		return false;
	}
	cfg->n_gpus = 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		struct daemon_gpu_conf g = {0};
		if (!config_setting_is_group(e)) {
			snprintf(why, whylen,
			         "entry %d must be a group { ... }", i + 1);
			return false;
		}
		const char *name = NULL;
		if (!config_setting_lookup_string(e, "name", &name) ||
		    !name_ok(name)) {
			snprintf(why, whylen,
			         "entry %d needs name = \"...\" (1 to %d of "
			         "A-Z a-z 0-9 . _ -)",
			         i + 1, DAEMON_GPU_NAME_MAX - 1);
			return false;
		}
		snprintf(g.name, sizeof(g.name), "%s", name);
		for (size_t k = 0; k < cfg->n_gpus; k++)
			if (strcmp(cfg->gpus[k].name, g.name) == 0) {
				snprintf(why, whylen, "GPU \"%s\" given twice",
				         name);
				return false;
			}
		for (int j = 0; j < config_setting_length(e); j++)
			if (!gpu_member(config_setting_get_elem(e, j), &g, why,
			                whylen))
				return false;
		cfg->gpus[cfg->n_gpus++] = g;
	}
	return true;
}
