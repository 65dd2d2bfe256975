/* baton ssim A B: the mean SSIM (src/core/ssim.h) of two binary PPM/PGM
 * images of the same size. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/ssim.h"
#include "quality/pnm.h"

void cmd_ssim_help(FILE *out)
{
	fprintf(out,
	        "Usage: baton ssim A.ppm B.ppm\n"
	        "Print the mean SSIM (Wang et al. 2004; Gaussian window 11x11, "
	        "sigma 1.5)\nof two binary PPM (P6) or PGM (P5) images of the "
	        "same size, on their\nBT.601 luma, as scikit-image's "
	        "structural_similarity computes it.\nBoth sides must be at "
	        "least 11 pixels.\n\n"
	        "Exit status: 0 ok, 1 out of memory, 2 usage error or bad "
	        "input (the\nfile is named).\n");
}

int cmd_ssim(int argc, char **argv)
{
	if (argc >= 2 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		cmd_ssim_help(stdout);
		return CLI_EXIT_OK;
	}
	if (argc != 3) {
		fprintf(stderr, "baton ssim: expected two image files\n"
		                "Try 'baton ssim --help'.\n");
		return CLI_EXIT_USAGE;
	}
	struct pnm_image img[2];
	char err[512];
	if (!pnm_read(argv[1], &img[0], err, sizeof(err))) {
		fprintf(stderr, "baton ssim: %s\n", err);
		return CLI_EXIT_USAGE;
	}
	if (!pnm_read(argv[2], &img[1], err, sizeof(err))) {
		fprintf(stderr, "baton ssim: %s\n", err);
		pnm_free(&img[0]);
		return CLI_EXIT_USAGE;
	}
	int rc = CLI_EXIT_OK;
	struct core_ssim_image a = pnm_as_ssim(&img[0]),
	                       b = pnm_as_ssim(&img[1]);
	size_t bytes = core_ssim_workspace_size(a.width, a.height);
	void *ws = bytes ? malloc(bytes) : NULL;
	double mean = 0.0;
	enum core_ssim_status st = core_ssim(&a, &b, ws, bytes, NULL, &mean);
	if (st == CORE_SSIM_OK) {
		printf("%.9f\n", mean);
	} else if (st == CORE_SSIM_WORKSPACE) {
		fprintf(stderr, "baton ssim: out of memory\n");
		rc = CLI_EXIT_FAILURE;
	} else {
		/* Name the file at fault: the smaller one, or the pair. */
		const char *who = argv[1];
		if (st == CORE_SSIM_TOO_SMALL &&
		    (a.width >= CORE_SSIM_WIN && a.height >= CORE_SSIM_WIN))
			who = argv[2];
		if (st == CORE_SSIM_SIZE_MISMATCH)
			fprintf(stderr,
			        "baton ssim: %s is %zux%zu but %s is "
			        "%zux%zu\n",
			        argv[1], a.width, a.height, argv[2], b.width,
			        b.height);
		else
			fprintf(stderr, "baton ssim: %s: %s\n", who,
			        core_ssim_status_str(st));
		rc = CLI_EXIT_USAGE;
	}
	free(ws);
	pnm_free(&img[0]);
	pnm_free(&img[1]);
	return rc;
}
