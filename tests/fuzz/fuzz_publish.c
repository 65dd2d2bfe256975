/* libFuzzer target: batond's parsers of what Agones' SDK sidecar and the
 * Kubernetes API server answer (daemon/publish/publish_body.h), on hostile
 * bytes: a sidecar or an API server that is compromised, confused or not what
 * the config says. The first byte picks the parser, the rest is the
 * answer. Whatever the bytes, a parse that succeeds gives counts a
 * counter can hold (0 to INT64_MAX), and the bodies batond would send
 * back from them are built. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/publish/publish_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *body = (const char *)data + 1;
	size_t len = size - 1;
	int64_t a = -1, b = -1;
	switch (data[0] % 3) {
	case 0:
		if (publish_agones_counter_parse(body, len, "sessions", &a,
		                                 &b)) {
			if (a < 0 || b < 0)
				abort();
			free(publish_agones_counter_body(a, b));
		}
		break;
	case 1:
		(void)publish_agones_empty_ok(body, len);
		break;
	default:
		if (publish_k8s_node_parse(body, len, "baton.dev/game-sessions",
		                           &a)) {
			if (a < 0)
				abort();
			char *p = publish_k8s_patch_body(
			    "baton.dev/game-sessions", a);
			if (!p)
				abort();
			free(p);
		}
		break;
	}
	return 0;
}
