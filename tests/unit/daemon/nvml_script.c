#include "nvml_script.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

static char script[64];

int nvml_script_setup(void **state)
{
	(void)state;
	snprintf(script, sizeof(script), "/tmp/baton-nvml-XXXXXX");
	int fd = mkstemp(script);
	if (fd < 0)
		return -1;
	close(fd);
	return setenv("BATON_STUB_NVML_SCRIPT", script, 1);
}

int nvml_script_teardown(void **state)
{
	(void)state;
	unlink(script);
	return 0;
}

void nvml_script_write(const char *text)
{
	char tmp[80];
	snprintf(tmp, sizeof(tmp), "%s.new", script);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(rename(tmp, script), 0);
}
