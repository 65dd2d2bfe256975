/* The profiling protocol's frames.csv reader (profile_csv.h). */
#include "quality/profile_csv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 256

/* Where each known column is (-1: absent). */
struct layout {
	int frame, cost, area, level;
	int type_col[CORE_QM_MAX_TYPES];
	size_t n_fields;
};

static bool fail(char *err, size_t len, const char *name, size_t line,
                 const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, len, "%s:%zu: %s", name, line, msg);
	else
		snprintf(err, len, "%s: %s", name, msg);
	return false;
}

/* Splits line (NUL-terminated, modified) at commas. */
static size_t split(char *line, char **field)
{
	size_t n = 0;
	for (char *p = line;;) {
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		field[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			return n;
		*c = '\0';
		p = c + 1;
	}
}

static bool parse_header(char **field, size_t n, struct layout *lay,
                         struct profile_csv *out, const char *name, char *err,
                         size_t err_len)
{
	*lay = (struct layout){
	    .frame = -1, .cost = -1, .area = -1, .level = -1, .n_fields = n};
	for (size_t i = 0; i < n; i++) {
		const char *f = field[i];
		int *slot = NULL;
		if (!strcmp(f, "frame"))
			slot = &lay->frame;
		else if (!strcmp(f, "cost_s"))
			slot = &lay->cost;
		else if (!strcmp(f, "area"))
			slot = &lay->area;
		else if (!strcmp(f, "level"))
			slot = &lay->level;
		if (slot) {
			if (*slot >= 0)
				return fail(err, err_len, name, 1,
				            "column '%s' appears twice", f);
			*slot = (int)i;
			continue;
		}
		if (strncmp(f, "active_", 7) != 0)
			continue; /* another column: ignored */
		const char *t = f + 7;
		if (!*t || strlen(t) >= PROFILE_CSV_NAME_MAX)
			return fail(err, err_len, name, 1,
			            "column '%s': the type name must be 1 to "
			            "%d bytes",
			            f, PROFILE_CSV_NAME_MAX - 1);
		if (out->n_types == CORE_QM_MAX_TYPES)
			return fail(err, err_len, name, 1,
			            "more than %d active_ columns",
			            CORE_QM_MAX_TYPES);
		for (size_t j = 0; j < out->n_types; j++)
			if (!strcmp(out->type[j], t))
				return fail(err, err_len, name, 1,
				            "column '%s' appears twice", f);
		strcpy(out->type[out->n_types], t);
		lay->type_col[out->n_types++] = (int)i;
	}
	if (lay->frame < 0 || lay->cost < 0 || out->n_types == 0)
		return fail(err, err_len, name, 1,
		            "the header needs the columns frame, cost_s and "
		            "at least one active_<type>");
	out->has_area = lay->area >= 0;
	return true;
}

static bool number(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return *s && end != s && !*end && errno == 0 && isfinite(*v);
}

static bool parse_row(char **field, const struct layout *lay, size_t row,
                      struct profile_csv *out, const char *name, size_t line,
                      char *err, size_t err_len)
{
	const char *f = field[lay->frame];
	char *end;
	errno = 0;
	unsigned long long fr = strtoull(f, &end, 10);
	if (!*f || *f == '-' || *end || errno)
		return fail(err, err_len, name, line,
		            "frame '%s' is not an unsigned integer", f);
	if (row > 0 && fr <= out->frame[row - 1])
		return fail(err, err_len, name, line,
		            "frame %llu does not follow frame %llu", fr,
		            (unsigned long long)out->frame[row - 1]);
	out->frame[row] = fr;
	double v;
	f = field[lay->cost];
	if (!number(f, &v) || v < 0.0)
		return fail(err, err_len, name, line,
		            "cost_s '%s' is not a finite number >= 0", f);
	out->cost_s[row] = v;
	for (size_t j = 0; j < out->n_types; j++) {
		f = field[lay->type_col[j]];
		if (!number(f, &v) || v < 0.0)
			return fail(err, err_len, name, line,
			            "active_%s '%s' is not a finite number "
			            ">= 0",
			            out->type[j], f);
		out->counts[row * out->n_types + j] = v;
	}
	if (lay->level >= 0) {
		f = field[lay->level];
		long long lv = strtoll(f, &end, 10);
		if (!*f || *end || lv < 0)
			return fail(err, err_len, name, line,
			            "level '%s' is not a level number", f);
		if (row > 0 && lv != out->level)
			return fail(err, err_len, name, line,
			            "level %lld, but the first frame's is "
			            "%lld",
			            lv, (long long)out->level);
		out->level = lv;
	}
	out->area_of[row] = 0;
	if (lay->area < 0)
		return true;
	f = field[lay->area];
	if (!*f || strlen(f) >= PROFILE_CSV_NAME_MAX)
		return fail(err, err_len, name, line,
		            "area must be 1 to %d bytes",
		            PROFILE_CSV_NAME_MAX - 1);
	size_t a = 0;
	while (a < out->n_areas && strcmp(out->area[a], f) != 0)
		a++;
	if (a == out->n_areas) {
		if (a == PROFILE_CSV_MAX_AREAS)
			return fail(err, err_len, name, line,
			            "more than %d areas",
			            PROFILE_CSV_MAX_AREAS);
		strcpy(out->area[out->n_areas++], f);
	}
	out->area_of[row] = (unsigned)a;
	return true;
}

static bool alloc_rows(struct profile_csv *out, size_t rows)
{
	out->frame = malloc((rows ? rows : 1) * sizeof(*out->frame));
	out->cost_s = malloc((rows ? rows : 1) * sizeof(*out->cost_s));
	out->counts =
	    malloc((rows ? rows : 1) * out->n_types * sizeof(*out->counts));
	out->area_of = malloc((rows ? rows : 1) * sizeof(*out->area_of));
	return out->frame && out->cost_s && out->counts && out->area_of;
}

bool profile_csv_parse(const char *text, size_t len, const char *name,
                       struct profile_csv *out, char *err, size_t err_len)
{
	*out = (struct profile_csv){.level = -1};
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	lines += len > 0 && text[len - 1] != '\n';
	if (lines == 0)
		return fail(err, err_len, name, 0, "empty (no header)");
	char buf[PROFILE_CSV_LINE_MAX + 1];
	char *field[MAX_FIELDS + 1];
	struct layout lay;
	size_t pos = 0, row = 0;
	for (size_t line = 1; pos < len; line++) {
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;
		pos += n + (nl != NULL);
		if (n > 0 && start[n - 1] == '\r')
			n--;
		if (n > PROFILE_CSV_LINE_MAX) {
			fail(err, err_len, name, line,
			     "line longer than %d bytes", PROFILE_CSV_LINE_MAX);
			goto bad;
		}
		if (memchr(start, '\0', n)) {
			fail(err, err_len, name, line, "a NUL byte");
			goto bad;
		}
		memcpy(buf, start, n);
		buf[n] = '\0';
		size_t nf = split(buf, field);
		if (nf > MAX_FIELDS) {
			fail(err, err_len, name, line, "more than %d fields",
			     MAX_FIELDS);
			goto bad;
		}
		if (line == 1) {
			if (!parse_header(field, nf, &lay, out, name, err,
			                  err_len))
				goto bad;
			if (!alloc_rows(out, lines - 1)) {
				fail(err, err_len, name, 0, "out of memory");
				goto bad;
			}
			continue;
		}
		if (nf != lay.n_fields) {
			fail(err, err_len, name, line,
			     "%zu fields, but the header has %zu", nf,
			     lay.n_fields);
			goto bad;
		}
		if (!parse_row(field, &lay, row, out, name, line, err, err_len))
			goto bad;
		row++;
	}
	out->rows = row;
	if (row == 0) {
		fail(err, err_len, name, 0, "no frames after the header");
		goto bad;
	}
	return true;
bad:
	profile_csv_free(out);
	return false;
}

bool profile_csv_read(const char *path, struct profile_csv *out, char *err,
                      size_t err_len)
{
	*out = (struct profile_csv){.level = -1};
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		snprintf(err, err_len, "%s: %s", path, strerror(e));
		errno = e;
		return false;
	}
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	while (text) {
		len += fread(text + len, 1, cap - len, f);
		if (len < cap)
			break;
		char *bigger = realloc(text, cap * 2);
		if (!bigger) {
			free(text);
			text = NULL;
			break;
		}
		text = bigger;
		cap *= 2;
	}
	bool io = text && !ferror(f);
	fclose(f);
	if (!io) {
		free(text);
		snprintf(err, err_len, "%s: %s", path,
		         text ? "read error" : "out of memory");
		errno = EIO;
		return false;
	}
	bool ok = profile_csv_parse(text, len, path, out, err, err_len);
	free(text);
	errno = ok ? 0 : EINVAL;
	return ok;
}

void profile_csv_free(struct profile_csv *csv)
{
	free(csv->frame);
	free(csv->cost_s);
	free(csv->counts);
	free(csv->area_of);
	*csv = (struct profile_csv){.level = -1};
}
