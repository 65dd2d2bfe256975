#include "ipc/linebuf.h"

#include <errno.h>
#include <string.h>

void ipc_linebuf_init(struct ipc_linebuf *lb)
{
	lb->len = 0;
}

char *ipc_linebuf_space(struct ipc_linebuf *lb, size_t *avail)
{
	*avail = sizeof(lb->data) - lb->len;
	return lb->data + lb->len;
}

void ipc_linebuf_commit(struct ipc_linebuf *lb, size_t n)
{
	size_t room = sizeof(lb->data) - lb->len;
	lb->len += n < room ? n : room;
}

size_t ipc_linebuf_feed(struct ipc_linebuf *lb, const void *buf, size_t n)
{
	size_t avail;
	char *dst = ipc_linebuf_space(lb, &avail);
	if (n > avail)
		n = avail;
	memcpy(dst, buf, n);
	ipc_linebuf_commit(lb, n);
	return n;
}

int ipc_linebuf_take(struct ipc_linebuf *lb, char *out, size_t *len)
{
	char *nl = memchr(lb->data, '\n', lb->len);
	if (!nl)
		return lb->len == sizeof(lb->data) ? -EMSGSIZE : 0;
	size_t n = (size_t)(nl - lb->data);
	memcpy(out, lb->data, n);
	out[n] = '\0';
	*len = n;
	lb->len -= n + 1;
	memmove(lb->data, nl + 1, lb->len);
	return 1;
}
