/*
 * The capped capture of a test's output: the first half of the cap is
 * kept as written, the second half is a ring holding the last bytes, and
 * what fell between is counted.  A test that writes gigabytes costs the
 * bot no more than the cap.  Apart from the runner so that it can be
 * fuzzed (tests/fuzz/fuzz_capture.c).
 */
#ifndef BOT_TESTER_CAPTURE_H
#define BOT_TESTER_CAPTURE_H

#include <stddef.h>

#include "bot/tester/runner.h"

struct capture {
	size_t cap; /* set before the first capture_add() */
	char *head;
	size_t nhead;
	char *ring;
	size_t ring_cap, ring_start, nring;
	unsigned long long total;
};

void capture_add(struct capture *c, const char *p, size_t n);
/*
 * Head, a line saying what was cut, tail: into res->log (malloc'd, NUL
 * terminated), res->log_len, res->output and res->cut.  The capture is
 * empty again afterwards.
 */
void capture_take(struct capture *c, struct runner_result *res);

#endif
