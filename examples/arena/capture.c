#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int capture_ppm(const char *dir, uint64_t frame, int width, int height,
                const uint8_t *rgb)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/frame_%06llu.ppm", dir,
	         (unsigned long long)frame);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "arena: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "P6\n%d %d\n255\n", width, height);
	size_t n = (size_t)width * (size_t)height * 3;
	int bad = fwrite(rgb, 1, n, f) != n;
	bad |= fclose(f) != 0;
	if (bad)
		fprintf(stderr, "arena: %s: write failed\n", path);
	return bad ? -1 : 0;
}

int capture_queue_push(struct capture_queue *q, uint64_t frame,
                       const uint8_t *rgb)
{
	size_t bytes = (size_t)q->width * (size_t)q->height * 3;
	if ((q->n + 1) * bytes > CAPTURE_QUEUE_BYTES && capture_queue_flush(q))
		return -1;
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		uint64_t *f = realloc(q->frame, cap * sizeof(*f));
		if (f)
			q->frame = f;
		uint8_t **p = realloc(q->rgb, cap * sizeof(*p));
		if (p)
			q->rgb = p;
		if (!f || !p) {
			fprintf(stderr, "arena: captures: out of memory\n");
			return -1;
		}
		q->cap = cap;
	}
	uint8_t *copy = malloc(bytes);
	if (!copy) {
		fprintf(stderr, "arena: captures: out of memory\n");
		return -1;
	}
	memcpy(copy, rgb, bytes);
	q->frame[q->n] = frame;
	q->rgb[q->n++] = copy;
	return 0;
}

int capture_queue_flush(struct capture_queue *q)
{
	int err = 0;
	for (size_t i = 0; i < q->n; i++) {
		if (!err)
			err = capture_ppm(q->dir, q->frame[i], q->width,
			                  q->height, q->rgb[i]);
		free(q->rgb[i]);
	}
	q->n = 0;
	return err;
}

void capture_queue_free(struct capture_queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->rgb[i]);
	free(q->frame);
	free(q->rgb);
	*q = (struct capture_queue){0};
}

void capture_log_header(FILE *log)
{
	fprintf(log,
	        "frame,level,area,gpu_ms,cpu_ms,cost_s,finish_s,proc_cpu_s");
	char name[32];
	for (unsigned c = 0; c < ARENA_N_COUNTED; c++) {
		arena_counted_name(c, name, sizeof(name));
		fprintf(log, ",active_%s", name);
	}
	fputc('\n', log);
}

void capture_log_row(FILE *log, const struct log_row *row, double gpu_ms)
{
	fprintf(log, "%llu,%d,%s,%.3f,%.3f,%.6f,%.6f,%.6f",
	        (unsigned long long)row->frame, row->level, row->area,
	        gpu_ms < 0.0 ? -1.0 : gpu_ms, row->cpu_ms,
	        row->cost_ms < 0.0 ? -1.0 : row->cost_ms / 1e3,
	        row->finish_ms < 0.0 ? -1.0 : row->finish_ms / 1e3,
	        row->proc_cpu_ms < 0.0 ? -1.0 : row->proc_cpu_ms / 1e3);
	for (unsigned c = 0; c < ARENA_N_COUNTED; c++)
		fprintf(log, ",%u", row->active[c]);
	fputc('\n', log);
	fflush(log); /* whole rows, so that baton profile can follow */
}
