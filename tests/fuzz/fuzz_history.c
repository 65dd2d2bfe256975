/* libFuzzer target: `baton report`'s reader of batond's history file
 * (src/cli/history.c) on hostile bytes, read through hist_read as a file
 * of lines with a tenant filter, and whole as one line. Whatever the
 * bytes: the counts add up, every kept point lies in the time window and
 * belongs to a series of the filtered tenant. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct hist *h, const struct hist_filter *f)
{
	if (h->kept > h->lines || (h->bad > 0) != (h->first_bad > 0))
		abort();
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		if (f->tenant && strcmp(s->name, f->tenant) != 0 && s->id != 1)
			abort();
		for (size_t k = 0; k < s->n; k++)
			if (s->p[k].t < f->from || s->p[k].t > f->to ||
			    s->p[k].t < h->t_min || s->p[k].t > h->t_max)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hist_filter f = {.from = -1000, .to = 2000000000};
	struct hist h = {0};
	char why[96];
	hist_parse_line(&h, (const char *)data, size, &f, why, sizeof(why));
	check(&h, &f);
	hist_free(&h);
	if (size == 0)
		return 0;
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	f.tenant = (size & 1) ? "glxgears" : "1";
	if (hist_read(&h, in, &f))
		check(&h, &f);
	fclose(in);
	hist_free(&h);
	return 0;
}
