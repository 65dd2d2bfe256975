/* libFuzzer target for the scenario parser: arbitrary bytes in, a scenario
 * or an error out, and nothing leaked either way. Built with
 * -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION so that trace paths in the
 * input are never opened. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/* Debian's libconfig 1.5 leaks a string token's text when it stops on a
 * syntax error while holding the token, or at the end of the text inside an
 * unclosed string: its grammar has no destructor for discarded tokens. That
 * is libconfig's bug, not the parser's. Only allocations made by its scanner
 * are excused (the system library has no frame pointers, so the stack often
 * ends there), so a missing config_destroy or a leak of our own still fails
 * the run. */
const char *__lsan_default_suppressions(void)
{
	return "leak:strbuf_append\n"
	       "leak:libconfig_yylex\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parser takes a C string; input past an embedded NUL is simply
	 * not seen, as it would not be when read from a file. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	struct sim_scenario sc;
	struct sim_error err;
	char msg[512];
	if (!sim_scenario_parse(text, "<fuzz>", NULL, &sc, &err))
		sim_error_format(&err, msg, sizeof(msg));
	sim_scenario_finish(&sc);
	free(text);
	return 0;
}
