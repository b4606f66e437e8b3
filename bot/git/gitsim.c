/*
 * git's rename similarity (diffcore-delta.c and estimate_similarity()
 * in diffcore-rename.c, git v2.39), redone from its description: both
 * files are cut into chunks that end at a LF or after 64 bytes (a CR
 * before a LF is skipped in text), each chunk hashed into one of 107927
 * values; for every value, the bytes dst has beyond src's count as
 * added, the rest as copied.  The score is copied bytes over the larger
 * size, on git's scale of 60000, printed as a truncated percentage.
 */
#include "bot/git/gitsim.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define HASHBASE 107927u
#define MAX_SCORE 60000.0
#define MIN_SCORE 30000.0 /* git's default rename threshold, 50% */
#define BINARY_PROBE 8000 /* bytes git looks at for a NUL */

struct span {
	uint32_t hash, cnt;
};

static int
span_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct span *)a)->hash;
	uint32_t y = ((const struct span *)b)->hash;

	return x < y ? -1 : x > y;
}

/* The chunk counts of p[0..n): one entry per distinct hash, sorted. */
static size_t
hash_chars(const unsigned char *p, size_t n, struct span **out)
{
	bool text = memchr(p, 0, n < BINARY_PROBE ? n : BINARY_PROBE) == NULL;
	struct span *v = NULL;
	size_t nv = 0, cap = 0, i, k;
	uint32_t a1 = 0, a2 = 0, len = 0;

	for (i = 0; i < n; i++) {
		uint32_t c = p[i], old1 = a1;

		if (text && c == '\r' && i + 1 < n && p[i + 1] == '\n')
			continue;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old1 >> 25);
		a1 += c;
		if (++len < 64 && c != '\n')
			continue;
		v = xgrow(v, &cap, nv + 1, sizeof(*v));
		v[nv].hash = (a1 + a2 * 0x61) % HASHBASE;
		v[nv++].cnt = len;
		len = a1 = a2 = 0;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), span_cmp);
	for (i = 0, k = 0; i < nv; i++) {
		if (k > 0 && v[k - 1].hash == v[i].hash)
			v[k - 1].cnt += v[i].cnt;
		else
			v[k++] = v[i];
	}
	*out = v;
	return k;
}

/* Bytes of dst that src also has, chunk value by chunk value. */
static unsigned long
copied(const struct span *s, size_t ns, const struct span *d, size_t nd)
{
	unsigned long sc = 0;
	size_t i = 0, j = 0;

	for (i = 0; i < ns; i++) {
		while (j < nd && d[j].hash < s[i].hash)
			j++;
		if (j < nd && d[j].hash == s[i].hash) {
			sc += s[i].cnt < d[j].cnt ? s[i].cnt : d[j].cnt;
			j++;
		}
	}
	return sc;
}

int
gitsim_percent(const char *src, size_t sn, const char *dst, size_t dn)
{
	size_t maxs = sn > dn ? sn : dn, base = sn < dn ? sn : dn;
	struct span *s, *d;
	size_t ns, nd;
	unsigned long sc;
	int score;

	if (dn == 0 ||
	    (double)maxs * (MAX_SCORE - MIN_SCORE) <
	        (double)(maxs - base) * MAX_SCORE)
		return 0;
	ns = hash_chars((const unsigned char *)src, sn, &s);
	nd = hash_chars((const unsigned char *)dst, dn, &d);
	sc = copied(s, ns, d, nd);
	free(s);
	free(d);
	score = (int)((double)sc * MAX_SCORE / (double)maxs);
	return (int)(score * 100 / MAX_SCORE);
}
