/*
 * Fuzz target: the commit-graph parser (parsers/pack.c), which the
 * public-inbox reader walks an epoch's history with.  The input is a
 * commit-graph file.  Nothing may read outside it; an id found is the
 * one asked for; a walk down first parents ends within as many steps as
 * the graph has commits (the reader stops a graph that goes round).
 * Seeds are graphs git wrote (tests/fixtures/regress/commitgraph/).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes, so that reads past the end show. */
	unsigned char *map = malloc(size ? size : 1);
	struct commitgraph g;
	uint32_t i;

	if (size)
		memcpy(map, data, size);
	if (!commitgraph_init(&g, map, size)) {
		free(map);
		return 0;
	}
	for (i = 0; i < g.n && i < 256; i++) {
		const unsigned char *tree, *id = commitgraph_id(&g, i);
		uint32_t pos = i, parent, at, steps = 0;

		if (commitgraph_find(&g, id, &at) &&
		    (at >= g.n ||
		        memcmp(commitgraph_id(&g, at), id, PACK_ID_LEN) != 0))
			abort();
		while (commitgraph_commit(&g, pos, &tree, &parent) &&
		    parent != COMMITGRAPH_NONE && steps++ <= g.n) {
			if (parent >= g.n)
				abort();
			pos = parent;
		}
		(void)tree;
	}
	free(map);
	return 0;
}
