#include "shim/shim_config.h"

#include <errno.h> /* program_invocation_short_name */
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc/socket_path.h"
#include "ipc/vram_size.h"

/* Read by the frame path's thread and the connection thread. */
static _Atomic int log_level = SHIM_LOG_OFF;

void shim_log_set_level(enum shim_log_level level)
{
	atomic_store_explicit(&log_level, level, memory_order_relaxed);
}

void shim_log(enum shim_log_level level, const char *fmt, ...)
{
	if ((int)level > atomic_load_explicit(&log_level, memory_order_relaxed))
		return;
	static const char *const names[] = {"error", "warn", "info", "debug"};
	char line[512];
	int n = snprintf(line, sizeof(line), "baton-shim[%s]: ", names[level]);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* One write per line: stdio's stderr lock is the game's, and lines
	 * from two threads must not interleave. */
	size_t len = strlen(line);
	if (len == sizeof(line) - 1)
		len--;
	line[len++] = '\n';
	fwrite(line, 1, len, stderr);
}

static enum shim_log_level parse_level(const char *s)
{
	static const char *const names[] = {"error", "warn", "info", "debug"};
	if (!s)
		return SHIM_LOG_OFF;
	for (int i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0)
			return (enum shim_log_level)i;
	}
	return SHIM_LOG_OFF;
}

bool shim_parse_decimal(const char *s, double *out)
{
	/* By hand rather than strtod: strtod follows the game's locale, and
	 * a game that called setlocale for de_DE would read "59.94" as 59. */
	if (!s || *s < '0' || *s > '9')
		return false;
	double v = 0.0;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10.0 + (*s - '0');
		if (v > 1e9)
			return false;
	}
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		for (double scale = 0.1; *s >= '0' && *s <= '9'; s++) {
			v += (*s - '0') * scale;
			scale *= 0.1;
		}
	}
	if (*s)
		return false;
	*out = v;
	return true;
}

bool shim_parse_fps(const char *s, double *out)
{
	double v;
	if (!shim_parse_decimal(s, &v) || v < SHIM_FPS_MIN || v > SHIM_FPS_MAX)
		return false;
	*out = v;
	return true;
}

bool shim_parse_cap(const char *s, double *out)
{
	double v;
	if (!shim_parse_decimal(s, &v) || !(v > 0.0) || v > 1.0)
		return false;
	*out = v;
	return true;
}

static double read_fps(const char *var)
{
	const char *s = getenv(var);
	double v = 0.0;
	if (s && !shim_parse_fps(s, &v)) {
		shim_log(SHIM_LOG_WARN, "ignoring %s=%s: not a frame rate", var,
		         s);
		v = 0.0;
	}
	return v;
}

/* Length of the well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void shim_utf8_copy(char *dst, size_t dst_len, const char *src)
{
	size_t o = 0;
	const unsigned char *s = (const unsigned char *)src;
	while (*s) {
		size_t n = utf8_len(s);
		const unsigned char *from = s;
		if (n == 0 || *s < 0x20 || *s == 0x7f) {
			from = (const unsigned char *)"?";
			n = 1;
		}
		if (o + n >= dst_len)
			break;
		memcpy(dst + o, from, n);
		o += n;
		s += from == s ? n : 1;
	}
	dst[o] = '\0';
}

const char *shim_program_name(const char *argv0)
{
	const char *name = argv0;
	for (const char *p = argv0; *p; p++)
		if ((*p == '/' || *p == '\\') && p[1])
			name = p + 1;
	return name;
}

/* The default tenant name: the program's name in its argv[0] as it reads
 * at the first Present. glibc's program_invocation_short_name alone is
 * not enough: it points into argv[0] as it was at exec, and a program
 * that rewrites its arguments leaves it pointing into other text. Wine
 * does: it moves the arguments down over the loader's path
 * ("/usr/lib/wine/wine64 probe.exe --d3d" becomes "probe.exe --d3d"), and
 * the old pointer, 14 bytes in, then read "d" (from "--d3d"). */
static void default_name(char *dst, size_t dst_len)
{
	char argv0[4096];
	ssize_t n = -1;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, argv0, sizeof(argv0) - 1);
		close(fd);
	}
	const char *name = program_invocation_short_name;
	/* argv[0] ends at the first NUL; without one in the buffer it was
	 * cut, and its last component is unknown. */
	if (n > 0 && memchr(argv0, '\0', (size_t)n) && argv0[0])
		name = shim_program_name(argv0);
	shim_utf8_copy(dst, dst_len, name ? name : "");
}

bool shim_disabled_by_env(void)
{
	const char *d = getenv("BATON_DISABLE");
	return d && strcmp(d, "1") == 0;
}

void shim_config_read(struct shim_config *cfg)
{
	*cfg = (struct shim_config){0};
	cfg->log = parse_level(getenv("BATON_LOG"));
	shim_log_set_level(cfg->log);

	cfg->disable = shim_disabled_by_env();
	cfg->fixed_fps = read_fps("BATON_FPS");
	cfg->sla_fps = read_fps("BATON_SLA");
	const char *cap = getenv("BATON_CAP");
	if (cap && !shim_parse_cap(cap, &cfg->cap)) {
		shim_log(SHIM_LOG_WARN,
		         "ignoring BATON_CAP=%s: not a share of the GPU in "
		         "(0, 1]",
		         cap);
		cfg->cap = 0.0;
	}

	const char *gpu = getenv("BATON_GPU");
	if (gpu && strlen(gpu) < sizeof(cfg->gpu))
		snprintf(cfg->gpu, sizeof(cfg->gpu), "%s", gpu);
	else if (gpu)
		shim_log(SHIM_LOG_WARN,
		         "ignoring BATON_GPU: longer than %zu "
		         "bytes",
		         sizeof(cfg->gpu) - 1);

	const char *name = getenv("BATON_NAME");
	if (name && *name)
		shim_utf8_copy(cfg->name, sizeof(cfg->name), name);
	else
		default_name(cfg->name, sizeof(cfg->name));

	cfg->socket_ok = ipc_socket_path(cfg->socket, sizeof(cfg->socket));
	if (!cfg->socket_ok)
		shim_log(SHIM_LOG_WARN, "the daemon's socket path is too long; "
		                        "not registering");
}

uint64_t shim_vram_limit_read(void)
{
	/* The layer asks at vkCreateInstance, before the first Present has
	 * read BATON_LOG (shim_config_read): set the level now so that a bad
	 * value is logged when asked. */
	shim_log_set_level(parse_level(getenv("BATON_LOG")));
	const char *s = getenv(BATON_VRAM_LIMIT_ENV);
	uint64_t bytes = 0;
	if (s && !vram_size_parse(s, &bytes)) {
		shim_log(SHIM_LOG_WARN,
		         "ignoring " BATON_VRAM_LIMIT_ENV
		         "=%s: not a size such "
		         "as 512M or 2G; video memory is not limited",
		         s);
		bytes = 0;
	}
	return bytes;
}
