/*
 * Inside bot/tester/: what the tester's loop (tester.c), its planner
 * (plan.c) and its verdicts (verdict.c) share.
 */
#ifndef BOT_TESTER_TESTERPRIV_H
#define BOT_TESTER_TESTERPRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/git/gitrepo.h"
#include "bot/mailout/notify.h"
#include "bot/tester/bisect.h"
#include "bot/tester/tester.h"
#include "parsers/config.h"
#include "storage/store.h"
#include "storage/store_patch.h"
#include "storage/store_test.h"
#include "util/arena.h"
#include "util/oid.h"

struct tester {
	struct store *st;
	const struct config *conf;
	const struct tester_ref *ref;
	struct tester_stats *stats;
	struct notify *nt;
	bool rebuild; /* a drop changed the queue: build it again */
	bool rebuilt; /* a stale build was rebuilt once already */
	bool sandbox_ok; /* bwrap was seen to work */
};

/* One position of a project's stack: [0] the base, then each commit. */
struct tpos {
	struct store_patch row; /* zeroed for the base */
	int64_t contribution;
	const char *msgid; /* the patch's Message-ID */
	char commit[OID_HEX_SIZE];
	char tree[OID_HEX_SIZE];
	struct store_test_run last; /* the latest result (id 0: none) */
	bool has_prev; /* a result before last */
	bool target;
	bool in_ref;
};

struct tplan {
	struct tester *t;
	const struct conf_project *p;
	int64_t project_id;
	struct arena *a;
	struct gitrepo *repo;
	struct tpos *pos; /* pos[0..n] */
	struct bisect_pos *b; /* the same, as bisection sees them */
	size_t n;
	int64_t now;
};

/* plan.c: one planning round of one project, in one transaction. */
enum err plan_project(struct tester *t, const struct conf_project *p);

/* verdict.c: what a plan concludes, as checks, mails and drops. */
enum err verdict_settle(
    struct tplan *pl, size_t target, const char *state, const char *summary);
enum err verdict_blame(
    struct tplan *pl, size_t culprit, size_t target, bool *dropped);
enum err verdict_base_fails(struct tplan *pl, size_t target);
/* The summary of a target that passes. */
const char *verdict_passed(struct tplan *pl, size_t target);

/* verdict.c: a finished run that passed when run again to confirm a
 * failure: a warning check on its patch. */
enum err verdict_flaky(struct tester *t, const struct store_test_run *run);

/* verdict.c: a queued run that the sandbox keeps from running: a
 * warning check on its patch that says why, unless its commit's newest
 * check already says the same. */
enum err verdict_not_run(struct tester *t, const struct store_test_run *run,
    const char *summary, const char *log);

#endif
