/* Copying the public structs that grow (sized.h). */
#include "sdk/sized.h"

#include <string.h>

static size_t size_of(const void *s)
{
	size_t size;
	memcpy(&size, s, sizeof(size));
	return size;
}

bool sdk_sized_in(void *dst, size_t dst_size, const void *src, size_t min_size)
{
	size_t size = size_of(src);
	if (size < min_size)
		return false;
	/* A newer caller's fields past ours: only their zero (unset) value
	 * means what this library does without them. */
	for (size_t i = dst_size; i < size; i++)
		if (((const unsigned char *)src)[i] != 0)
			return false;
	size_t n = size < dst_size ? size : dst_size;
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       n - sizeof(size_t));
	return true;
}

void sdk_sized_out(void *dst, const void *src, size_t src_size)
{
	size_t size = size_of(dst);
	size_t n = size < src_size ? size : src_size;
	if (n > sizeof(size_t))
		memcpy((char *)dst + sizeof(size_t),
		       (const char *)src + sizeof(size_t), n - sizeof(size_t));
}
