/*
 * Room bot/tester: proving what is staged, by running its tests.
 *
 * The tester (docs/DESIGN.md §7).  test.command runs
 * on the built commits of each project's staging tree -- the stack tip,
 * each series tip or each patch (test.mode) -- in a throw-away work tree,
 * with limits (bot/tester/runner.h).  When a target fails, bisection
 * finds the first failing patch (bot/tester/bisect.h), a second run
 * confirms it, and test.on-failure decides: report (the author is mailed)
 * or drop (dropped as failures, the tree rebuilt, the new tip tested).
 * Results are checks of context patchyard/test; a result is found again
 * by tree id, so the same tree is never tested twice unless a retest
 * asks for it.
 *
 * Every decision is made from the database: pending runs are rows of a
 * queue (test_run), claimed by the process that runs them, so a restart
 * -- of `patchyard test` or of the daemon -- loses none and repeats none
 * that finished.
 */
#ifndef BOT_TESTER_TESTER_H
#define BOT_TESTER_TESTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/config.h"
#include "storage/store.h"

#define TESTER_CONTEXT "patchyard/test"

/* Only the targets holding these patches (`patchyard test REF`). */
struct tester_ref {
	const int64_t *patches;
	size_t n;
};

/* What one tester_run() did. */
struct tester_stats {
	int runs; /* test runs finished */
	int failed; /* of which failed */
	int checks; /* checks recorded */
	int blamed; /* first failing patches found */
	int dropped; /* of which dropped */
	int flaky; /* verdicts that passed when run again */
};

/*
 * Run until no test work is left: retests asked for, targets without a
 * result, bisections, confirming runs, drops with their rebuilds and the
 * tests of the new tips.  test.jobs runs at once.  ref NULL: every
 * project; stats may be NULL.  Blocks while tests run (each at most
 * test.timeout).  SIGINT, SIGTERM and SIGHUP during a run end the tests
 * at once, put their runs back in the queue, and are then delivered as
 * before the call.  ERR_OK when the work is done, whatever the tests
 * said; an error when the runner itself cannot work (no disk, a
 * repository that cannot be read).  Tests run in the bwrap sandbox
 * unless test.sandbox = none: where bwrap cannot run, none is run, each
 * target waiting for one gets a warning check that says why (once), and
 * the result is ERR_CONFIG.
 *
 * The caller must not reap children it did not start (no waitpid(-1)
 * in a SIGCHLD handler): the runner waits for its tests' processes by
 * process group, and is their reaper while they run.
 */
enum err tester_run(struct store *st, const struct config *conf,
    const struct tester_ref *ref, struct tester_stats *stats);

/*
 * Is there test work, from the database alone (cheap: for the daemon's
 * loop): a run queued or running, a retest asked for, or a target commit
 * of the last build without a check.
 */
enum err tester_pending(
    struct store *st, const struct config *conf, bool *work);

#endif
