/* The public structs that grow (include/baton/common.h, "Structs that
 * grow"): each begins with `size_t size`, the caller's sizeof of it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Options passed in: copies the caller's struct src over dst (ours, of
 * dst_size bytes, holding the defaults), keeping dst's size. False, and
 * dst left as it was, when src's size is under min_size or src is larger
 * than ours with a nonzero byte past dst_size. */
bool sdk_sized_in(void *dst, size_t dst_size, const void *src, size_t min_size);

/* Info handed back: writes src (ours, of src_size bytes, its size field
 * ours) into the caller's dst, at most dst's size bytes, keeping dst's
 * size. */
void sdk_sized_out(void *dst, const void *src, size_t src_size);
