/* docs/parameters.md from the parameter table (params_table.h). Pure: it
 * writes into the caller's buffer; tools/params_doc.c prints it and a unit
 * test checks the page in the repository matches. */
#include <stdarg.h>
#include <stdio.h>

#include "core/params_table.h"

struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->used < o->len ? o->buf + o->used : NULL,
	                  o->used < o->len ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

static void group_table(struct out *o, enum core_param_group group)
{
	size_t n;
	const struct core_param *t = core_param_table(&n);
	put(o, "| key | type | range | default | unit | meaning |\n");
	put(o, "|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		const struct core_param *p = &t[i];
		if (p->group != group)
			continue;
		char range[64], def[32];
		core_param_range_text(p, range, sizeof(range));
		core_param_default_text(p, def, sizeof(def));
		put(o, "| `%s`", p->key);
		if (p->old_key)
			put(o, " (was `%s`)", p->old_key);
		put(o, " | %s | %s | %s | %s | %s |\n",
		    p->type == CORE_PARAM_DOUBLE ? "number"
		    : p->type == CORE_PARAM_U32  ? "integer"
		                                 : "boolean",
		    range, def, p->unit, p->meaning);
	}
}

size_t core_param_markdown(char *buf, size_t len)
{
	struct out o = {buf, len, 0};
	if (len)
		buf[0] = '\0';
	put(&o, "# Parameters\n\n"
	        "<!-- Generated from src/core/params_table.c by "
	        "build/tools/params_doc; a unit test checks this page. -->\n\n"
	        "The policy core's tunable parameters. Every key is the same "
	        "in batond's config file and in a scenario: a scenario's "
	        "`policy` group and batond's `params` group take the policy "
	        "keys, the `harvest` group of either the harvesting keys. A "
	        "key marked (was `old`) had that name before: the old name is "
	        "still taken for one release, with a warning naming the new "
	        "one. Ranges: `[` "
	        "includes the end, `(` does not.\n\n");
	put(&o, "## Policy, capacity and quality\n\n");
	group_table(&o, CORE_PARAM_POLICY);
	put(&o, "\n## Harvesting\n\n");
	group_table(&o, CORE_PARAM_HARVEST);
	return o.used;
}
