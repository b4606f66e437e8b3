/*
 * The capped capture of a test's output (see capture.h).
 */
#include "bot/tester/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void
capture_add(struct capture *c, const char *p, size_t n)
{
	size_t half = c->cap / 2, k;

	c->total += n;
	if (c->nhead < half) {
		k = half - c->nhead < n ? half - c->nhead : n;
		if (c->head == NULL)
			c->head = xmalloc(half ? half : 1);
		memcpy(c->head + c->nhead, p, k);
		c->nhead += k;
		p += k;
		n -= k;
	}
	if (n == 0 || c->cap - half == 0)
		return;
	if (c->ring == NULL) {
		c->ring_cap = c->cap - half;
		c->ring = xmalloc(c->ring_cap);
	}
	if (n >= c->ring_cap) {
		memcpy(c->ring, p + n - c->ring_cap, c->ring_cap);
		c->ring_start = 0;
		c->nring = c->ring_cap;
		return;
	}
	while (n > 0) {
		size_t end = (c->ring_start + c->nring) % c->ring_cap;
		size_t room = c->ring_cap - end;

		k = n < room ? n : room;
		memcpy(c->ring + end, p, k);
		if (c->nring + k > c->ring_cap) {
			c->ring_start =
			    (c->ring_start + c->nring + k - c->ring_cap) %
			    c->ring_cap;
			c->nring = c->ring_cap;
		} else {
			c->nring += k;
		}
		p += k;
		n -= k;
	}
}

void
capture_take(struct capture *c, struct runner_result *res)
{
	unsigned long long cut = c->total - c->nhead - c->nring;
	char note[160];
	int k = 0;
	size_t n, first;
	char *p;

	if (cut)
		k = snprintf(note, sizeof(note),
		    "\n[patchyard: %llu bytes of output cut here: the log "
		    "keeps the first %zu and the last %zu bytes]\n",
		    cut, c->nhead, c->nring);
	if (k < 0 || (size_t)k >= sizeof(note))
		k = 0;
	n = c->nhead + (size_t)k + c->nring;
	p = xmalloc(n + 1);
	memcpy(p, c->head ? c->head : "", c->nhead);
	memcpy(p + c->nhead, note, (size_t)k);
	first = c->ring_cap - c->ring_start < c->nring
	    ? c->ring_cap - c->ring_start
	    : c->nring;
	if (c->nring) {
		memcpy(p + c->nhead + k, c->ring + c->ring_start, first);
		memcpy(p + c->nhead + k + first, c->ring, c->nring - first);
	}
	p[n] = '\0';
	res->log = p;
	res->log_len = n;
	res->output = c->total;
	res->cut = cut;
	free(c->head);
	free(c->ring);
	memset(c, 0, sizeof(*c));
}
