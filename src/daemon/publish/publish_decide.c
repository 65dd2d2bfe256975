/* The count and capacity published (publish_decide.h). */
#include "daemon/publish/publish_decide.h"

struct publish_numbers publish_decide(const struct publish_input *in)
{
	struct publish_numbers n = {.count = in->sessions,
	                            .capacity = in->sessions};
	if (in->fits && !in->severe)
		n.capacity += in->more;
	return n;
}
