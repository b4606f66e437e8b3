/*
 * What the contribution page shows, decided apart from its HTML
 * (DESIGN.md §9): which trailers a patch lists and how each is marked,
 * the order of the discussion, the order of the timeline.  Pure
 * functions over the read side's views, for bot/web/ and its tests.
 */
#ifndef BOT_WEB_WEBVIEW_H
#define BOT_WEB_WEBVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/config.h"
#include "parsers/mail.h"
#include "storage/store_read.h"

/* ---- trailers ---- */

/* How a listed trailer is marked. */
enum webview_mark {
	WEBVIEW_PLAIN, /* not a review: no mark (Signed-off-by, Fixes, ...) */
	WEBVIEW_VERIFIED, /* its person sent it and the mail authenticated */
	WEBVIEW_UNCHECKED, /* its person sent it, without proof */
	WEBVIEW_NOT_THEIRS, /* someone else sent it: a claim */
};

/* The reviews: Reviewed-by, Acked-by, Tested-by, Reported-by,
 * Suggested-by, Nacked-by (any case).  Only these are counted and
 * marked; Cc:, Link:, Fixes:, Signed-off-by: are lines of a commit
 * message. */
bool webview_is_review(const char *name);
/* The index of a review name in WEBVIEW_REVIEWS (-1: not a review). */
int webview_review_index(const char *name);
#define WEBVIEW_NREVIEWS 6
extern const char *const webview_reviews[WEBVIEW_NREVIEWS];

/*
 * Whether trailer i of p is listed with the patch: one per name and
 * person (show_trailer_shown(): the verified copy wins), every review
 * wherever it was written, and what replies and cover letters gave; not
 * the lines of the patch's own commit message that are no review (its
 * Signed-off-by, Cc, Link, Fixes: the commit message shows them).
 */
bool webview_trailer_listed(const struct view_patch *p, size_t i);
/* How a listed trailer is marked; conf joins addresses of one person
 * ([mailmap] alias). */
enum webview_mark webview_trailer_mark(
    const struct config *conf, const struct view_trailer *t);
/* "verified", "not checked", "not sent by the person named", or "". */
const char *webview_mark_words(enum webview_mark m);
/* The listed reviews of p by name, in the order of webview_reviews:
 * each person once. */
void webview_review_counts(
    const struct view_patch *p, int counts[WEBVIEW_NREVIEWS]);

/* ---- the discussion ---- */

/*
 * Is a mail of kind `kind` from from_email the bot's own: automated
 * (MAIL_BOT), From the configured [bot] address, and sent: its
 * Message-ID is one the outbox composed (the caller looks it up)?  Only
 * that is labelled "(patchyard)" and left out of the timeline (its
 * events are there).  Auto-Submitted, X-Patchyard-Event and From are
 * headers anyone can write: other automated mail (a CI, a vacation
 * reply, a forgery) is shown as automated, under its sender, and stays
 * in the timeline.
 */
bool webview_bots_own(const struct config *conf, enum mail_kind kind,
    const char *from_email, bool sent);

/* One mail of a contribution, for ordering its thread. */
struct webview_msg {
	const char *msgid;
	const char *parent; /* the Message-ID it answers, or NULL */
	int64_t date;
	int64_t id; /* stored order, for equal dates */
	bool root; /* a cover letter or a patch: a thread starts there */
	/* The root a mail belongs to when its parent is not among them
	 * (the patch or the series it was placed in), or WEBVIEW_NOWHERE. */
	size_t home;
};
#define WEBVIEW_NOWHERE ((size_t)-1)

struct webview_place {
	size_t msg; /* index into the mails */
	size_t root; /* the root it hangs from, or WEBVIEW_NOWHERE */
	int depth; /* 1: answers the root */
};

/*
 * The mails that are not roots, in thread order: the roots in their
 * order, under each its replies depth first, siblings by date, then as
 * stored.  A mail answers its parent when the parent is among m and
 * leads to a root, else it answers its home (depth 1).  Mails with no
 * way to a root come last, root WEBVIEW_NOWHERE, by date.  out has room
 * for n; returns how many were written (every mail that is no root).
 */
size_t webview_thread(
    const struct webview_msg *m, size_t n, struct webview_place *out);

/* ---- the timeline ---- */

enum webview_when {
	WEBVIEW_MAIL,
	WEBVIEW_EVENT
};

struct webview_entry {
	int64_t time; /* a mail's date, an event's time */
	enum webview_when what;
	int64_t id; /* stored order within its kind */
	size_t index; /* into the caller's mails or events */
};

/*
 * In the order things happened: by time; at the same second a mail
 * before the events it caused, then as stored.
 */
void webview_timeline_sort(struct webview_entry *e, size_t n);

#endif
