/*
 * The test runner's output capping (bot/tester/capture.c): whatever the
 * sizes of the reads, the log kept is the first half of the cap as
 * written, a note of what was cut, and the last bytes as written.  The
 * input is two bytes of cap, then chunks each led by a byte of length;
 * the stream written is the chunks, in order.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/tester/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture c;
	struct runner_result res;
	const char *s;
	char *stream;
	size_t i, n, cap, total, half, head, tail;

	if (size < 2)
		return 0;
	memset(&c, 0, sizeof(c));
	memset(&res, 0, sizeof(res));
	cap = ((size_t)data[0] << 8 | data[1]) % 1024;
	c.cap = cap;
	half = cap / 2;
	/* The stream is data[2..], split at the length bytes: rebuild it
	 * alongside to compare. */
	stream = malloc(size + 1);
	total = 0;
	for (i = 2; i < size;) {
		n = data[i++];
		if (n > size - i)
			n = size - i;
		capture_add(&c, (const char *)data + i, n);
		memcpy(stream + total, data + i, n);
		total += n;
		i += n;
	}
	capture_take(&c, &res);
	head = total < half ? total : half;
	tail = total - head < cap - half ? total - head : cap - half;
	s = res.log;
	if (res.output != total || res.cut != total - head - tail)
		abort();
	if (res.log == NULL || res.log[res.log_len] != '\0')
		abort();
	if (res.log_len < head + tail || memcmp(s, stream, head) != 0 ||
	    memcmp(s + res.log_len - tail, stream + total - tail, tail) != 0)
		abort();
	if ((res.cut == 0) != (res.log_len == head + tail))
		abort();
	if (c.head != NULL || c.ring != NULL || c.total != 0)
		abort();
	free(stream);
	free(res.log);
	return 0;
}
