#include "capture.h"

#include <errno.h>
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

void capture_log_header(FILE *log)
{
	fprintf(log, "frame,level,area,gpu_ms,cpu_ms,cost_s");
	for (int t = 0; t < ARENA_N_TYPES; t++)
		fprintf(log, ",active_%s", mesh_type_name((enum arena_type)t));
	fputc('\n', log);
}

void capture_log_row(FILE *log, const struct log_row *row, double gpu_ms)
{
	fprintf(log, "%llu,%d,%s,%.3f,%.3f,%.6f",
	        (unsigned long long)row->frame, row->level, row->area,
	        gpu_ms < 0.0 ? -1.0 : gpu_ms, row->cpu_ms,
	        row->cost_ms < 0.0 ? -1.0 : row->cost_ms / 1e3);
	for (int t = 0; t < ARENA_N_TYPES; t++)
		fprintf(log, ",%u", row->active[t]);
	fputc('\n', log);
	fflush(log); /* whole rows, so that baton profile can follow */
}
