/* `baton report FILE`: what batond's history file (batond --record) says
 * happened, per tenant: a summary table or JSON, and with --plot the time
 * series (report_plot.c). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/history.h"
#include "ipc/msg.h"

/* A frame rate this far under the SLA counts as a second below it: the
 * per-second rate of a game paced at its SLA wobbles by a frame. */
#define BELOW_SLA_TOL 0.01

void cmd_report_help(FILE *out)
{
	fprintf(
	    out,
	    "Usage: baton report FILE [--tenant NAME|ID] [--from T] "
	    "[--to T]\n"
	    "                         [--plot OUT.png|OUT.svg] [--json]\n"
	    "Summarises batond's history file (batond --record FILE): per "
	    "tenant, the\n"
	    "seconds recorded, median and lowest FPS, seconds more than 1%% "
	    "below its\n"
	    "SLA, quality level changes, lowest and highest cap, and a "
	    "best-effort\n"
	    "tenant's median work units per second.\n"
	    "\n"
	    "  --tenant NAME|ID  only tenants of that name or batond id\n"
	    "  --from T, --to T  only records in [T, T]: unix seconds, or "
	    "local time\n"
	    "                    as YYYY-MM-DD HH:MM[:SS] (or with a T)\n"
	    "  --plot FILE       draw FPS with the SLA, quality level, cap "
	    "and\n"
	    "                    work units/s over time (.png or .svg)\n"
	    "  --json            the summary as JSON\n"
	    "\n"
	    "Lines that do not parse (a torn last line after a crash) are "
	    "skipped and\n"
	    "counted on stderr. Exit status: 0 success, 1 the file cannot "
	    "be read or\n"
	    "the plot written, 2 usage error, 3 no record in the file (or "
	    "none left\n"
	    "by --tenant, --from, --to).\n");
}

/* Unix seconds, or local time "YYYY-MM-DD HH:MM[:SS]" ('T' for the
 * space). */
static bool parse_time(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!errno && end != s && !*end) {
		*out = v;
		return true;
	}
	static const char *const fmts[] = {
	    "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S",
	    "%Y-%m-%dT%H:%M"};
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct tm tm = {0};
		const char *e = strptime(s, fmts[i], &tm);
		if (e && !*e) {
			tm.tm_isdst = -1;
			time_t t = mktime(&tm);
			if (t == (time_t)-1)
				return false;
			*out = (int64_t)t;
			return true;
		}
	}
	return false;
}

static void fmt_time(char *buf, size_t len, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%F %T", &tm))
		snprintf(buf, len, "%" PRId64, t);
}

struct summary {
	double fps_med, fps_min, below_s, level_changes, cap_min, cap_max;
	double units_med;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of the finite values of one field; NAN when none. */
static double median(const struct hist_series *s, size_t off, double *tmp)
{
	size_t m = 0;
	for (size_t k = 0; k < s->n; k++) {
		double v = *(const double *)((const char *)&s->p[k] + off);
		if (isfinite(v))
			tmp[m++] = v;
	}
	if (m == 0)
		return NAN;
	qsort(tmp, m, sizeof(*tmp), cmp_double);
	return m % 2 ? tmp[m / 2] : 0.5 * (tmp[m / 2 - 1] + tmp[m / 2]);
}

static struct summary summarise(const struct hist_series *s, double *tmp)
{
	struct summary r = {
	    .fps_med = median(s, offsetof(struct hist_point, fps), tmp),
	    .units_med = median(s, offsetof(struct hist_point, units_s), tmp),
	    .fps_min = NAN,
	    .cap_min = NAN,
	    .cap_max = NAN,
	};
	double level = NAN;
	for (size_t k = 0; k < s->n; k++) {
		const struct hist_point *p = &s->p[k];
		if (isfinite(p->fps)) {
			r.fps_min = isfinite(r.fps_min)
			                ? fmin(r.fps_min, p->fps)
			                : p->fps;
			if (isfinite(p->sla) &&
			    p->fps < p->sla * (1.0 - BELOW_SLA_TOL))
				r.below_s++;
		}
		if (isfinite(p->level)) {
			if (isfinite(level) && p->level != level)
				r.level_changes++;
			level = p->level;
		}
		if (isfinite(p->cap)) {
			r.cap_min = isfinite(r.cap_min)
			                ? fmin(r.cap_min, p->cap)
			                : p->cap;
			r.cap_max = isfinite(r.cap_max)
			                ? fmax(r.cap_max, p->cap)
			                : p->cap;
		}
	}
	if (s->be)
		r.below_s = r.level_changes = NAN;
	return r;
}

/* A figure of the table: "-" when there is none. */
static void cell(FILE *out, double v, int width, int prec)
{
	if (isfinite(v))
		fprintf(out, " %*.*f", width, prec, v);
	else
		fprintf(out, " %*s", width, "-");
}

static void print_table(FILE *out, const char *path, const struct hist *h,
                        double *tmp)
{
	char a[32], b[32];
	fmt_time(a, sizeof(a), h->t_min);
	fmt_time(b, sizeof(b), h->t_max);
	fprintf(out, "%s: %zu records, %s to %s (local time)\n", path, h->kept,
	        a, b);
	if (h->dropped)
		fprintf(out,
		        "batond dropped %" PRIu64 " seconds (its writer fell "
		        "behind)\n",
		        h->dropped);
	fprintf(out, "\n%-24s %-4s %6s %7s %7s %9s %6s %7s %7s %9s\n", "TENANT",
	        "KIND", "SECS", "FPS_MED", "FPS_MIN", "BELOW_SLA", "LEVELS",
	        "CAP_MIN", "CAP_MAX", "WORK/S");
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		struct summary r = summarise(s, tmp);
		char name[HIST_NAME_MAX + 24];
		snprintf(name, sizeof(name), "%s #%" PRIu64, s->name, s->id);
		fprintf(out, "%-24s %-4s %6zu", name, s->be ? "be" : "game",
		        s->n);
		cell(out, r.fps_med, 7, 1);
		cell(out, r.fps_min, 7, 1);
		cell(out, r.below_s, 9, 0);
		cell(out, r.level_changes, 6, 0);
		cell(out, r.cap_min, 7, 3);
		cell(out, r.cap_max, 7, 3);
		cell(out, r.units_med, 9, 1);
		fputc('\n', out);
	}
	if (h->n == 0)
		fprintf(out, "(no tenant in these records)\n");
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static bool print_json(FILE *out, const char *path, const struct hist *h,
                       double *tmp)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < h->n; i++) {
		const struct hist_series *s = &h->s[i];
		struct summary r = summarise(s, tmp);
		json_array_append_new(
		    arr,
		    json_pack("{sIsssIsssIsososososososo}", "id",
		              (json_int_t)s->id, "name", s->name, "pid",
		              (json_int_t)s->pid, "kind", s->be ? "be" : "game",
		              "seconds", (json_int_t)s->n, "fps_median",
		              jnum(r.fps_med), "fps_min", jnum(r.fps_min),
		              "below_sla_s", jnum(r.below_s), "level_changes",
		              jnum(r.level_changes), "cap_min", jnum(r.cap_min),
		              "cap_max", jnum(r.cap_max), "units_s_median",
		              jnum(r.units_med)));
	}
	json_t *o = json_pack(
	    "{sssIsIsIsIsbsIsIsIso}", "file", path, "records",
	    (json_int_t)h->kept, "lines", (json_int_t)h->lines, "bad_lines",
	    (json_int_t)h->bad, "first_bad_line", (json_int_t)h->first_bad,
	    "torn", h->torn, "dropped", (json_int_t)h->dropped, "from",
	    (json_int_t)h->t_min, "to", (json_int_t)h->t_max, "tenants", arr);
	if (!o)
		return false;
	int rc = json_dumpf(o, out,
	                    JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	                        JSON_REAL_PRECISION(6));
	json_decref(o);
	return rc == 0 && fputc('\n', out) != EOF;
}

/* The plot's title: the file and when it starts (the time axis counts
 * from there). */
static const char *title(const char *path, const struct hist *h, char *buf,
                         size_t len)
{
	char t[32];
	fmt_time(t, sizeof(t), h->t_min);
	snprintf(buf, len, "%s, from %s", path, t);
	return buf;
}

/* What was skipped, on stderr; the reason quotes the line (jansson's
 * "near '...'"), so it is escaped. */
static void say_skipped(const char *path, const struct hist *h)
{
	char why[4 * sizeof(h->bad_why)];
	if (h->bad)
		fprintf(stderr,
		        "baton report: %s: skipped %zu bad line%s (the first: "
		        "line %zu: %s)\n",
		        path, h->bad, h->bad == 1 ? "" : "s", h->first_bad,
		        ipc_escape(why, sizeof(why), h->bad_why));
	if (h->torn)
		fprintf(stderr,
		        "baton report: %s: the last line is incomplete "
		        "(batond stopped mid-write?); skipped\n",
		        path);
}

static int report(const char *path, const struct hist_filter *f,
                  const char *plot, bool json)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		fprintf(stderr, "baton report: %s: %s\n", path,
		        strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	struct hist h = {0};
	bool ok = hist_read(&h, in, f);
	int err = errno;
	fclose(in);
	if (!ok) {
		fprintf(stderr, "baton report: %s: %s\n", path, strerror(err));
		hist_free(&h);
		return CLI_EXIT_FAILURE;
	}
	say_skipped(path, &h);
	/* Names reach the terminal, the JSON and the plot's legend: cleaned
	 * as batond cleans them at the hello, whoever wrote the file. */
	for (size_t i = 0; i < h.n; i++)
		ipc_name_clean(h.s[i].name);
	int rc = CLI_EXIT_OK;
	size_t most = 0;
	for (size_t i = 0; i < h.n; i++)
		most = h.s[i].n > most ? h.s[i].n : most;
	double *tmp = malloc((most ? most : 1) * sizeof(*tmp));
	char why[256], head[320];
	if (h.lines == 0) {
		fprintf(stderr, "baton report: %s: no record in the file\n",
		        path);
		rc = CLI_EXIT_INVALID;
	} else if (h.kept == 0) {
		fprintf(stderr,
		        "baton report: %s: no record between --from and "
		        "--to\n",
		        path);
		rc = CLI_EXIT_INVALID;
	} else if (f->tenant && h.n == 0) {
		fprintf(stderr, "baton report: %s: no tenant \"%s\"\n", path,
		        f->tenant);
		rc = CLI_EXIT_INVALID;
	} else if (!tmp) {
		fprintf(stderr, "baton report: out of memory\n");
		rc = CLI_EXIT_FAILURE;
	} else {
		if (json)
			ok = print_json(stdout, path, &h, tmp);
		else
			print_table(stdout, path, &h, tmp);
		if (!ok || fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "baton report: cannot write the "
			                "report\n");
			rc = CLI_EXIT_FAILURE;
		} else if (plot &&
		           !report_plot(plot, &h,
		                        title(path, &h, head, sizeof(head)),
		                        why, sizeof(why))) {
			fprintf(stderr, "baton report: --plot %s: %s\n", plot,
			        why);
			rc = CLI_EXIT_FAILURE;
		}
	}
	free(tmp);
	hist_free(&h);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	enum { O_TENANT = 256, O_FROM, O_TO, O_PLOT, O_JSON, O_HELP };
	static const struct option opts[] = {
	    {"tenant", required_argument, NULL, O_TENANT},
	    {"from", required_argument, NULL, O_FROM},
	    {"to", required_argument, NULL, O_TO},
	    {"plot", required_argument, NULL, O_PLOT},
	    {"json", no_argument, NULL, O_JSON},
	    {"help", no_argument, NULL, O_HELP},
	    {0},
	};
	struct hist_filter f = {.from = INT64_MIN, .to = INT64_MAX};
	const char *plot = NULL;
	bool json = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case O_TENANT:
			f.tenant = optarg;
			break;
		case O_FROM:
		case O_TO:
			if (!parse_time(optarg,
			                c == O_FROM ? &f.from : &f.to)) {
				fprintf(stderr,
				        "baton report: %s: \"%s\" is not unix "
				        "seconds or YYYY-MM-DD HH:MM[:SS]\n",
				        c == O_FROM ? "--from" : "--to",
				        optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case O_PLOT:
			if (plot_format_of(optarg) == PLOT_NONE) {
				fprintf(stderr,
				        "baton report: --plot: \"%s\" must end "
				        "in .png or .svg\n",
				        optarg);
				return CLI_EXIT_USAGE;
			}
			plot = optarg;
			break;
		case O_JSON:
			json = true;
			break;
		case O_HELP:
			cmd_report_help(stdout);
			return CLI_EXIT_OK;
		case ':':
			fprintf(stderr, "baton report: %s needs a value\n",
			        argv[optind - 1]);
			return CLI_EXIT_USAGE;
		default:
			fprintf(
			    stderr,
			    "baton report: unknown option %s (see --help)\n",
			    argv[optind - 1]);
			return CLI_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "baton report: %s (see --help)\n",
		        argc == optind ? "which file?" : "one file only");
		return CLI_EXIT_USAGE;
	}
	if (f.from > f.to) {
		fprintf(stderr, "baton report: --from is after --to\n");
		return CLI_EXIT_USAGE;
	}
	return report(argv[optind], &f, plot, json);
}
