/* Prints docs/parameters.md from the parameter table:
 *   build/tools/params_doc > docs/parameters.md */
#include <stdio.h>
#include <stdlib.h>

#include "core/params_table.h"

int main(void)
{
	size_t need = core_param_markdown(NULL, 0) + 1;
	char *page = malloc(need);
	if (!page)
		return 1;
	core_param_markdown(page, need);
	fputs(page, stdout);
	free(page);
	return 0;
}
