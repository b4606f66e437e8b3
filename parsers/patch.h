/*
 * A patch mail taken apart the way `git mailinfo --scissors` does it (it
 * is our oracle in tests): in-body "From:", "Subject:" and "Date:" lines,
 * a scissors line ("-- >8 --", always honoured: everything above it is
 * dropped), the commit message up to the patch break ("---", "diff -",
 * "Index: "), the diff after it.  Handles inline text, text/x-patch,
 * text/x-diff and application/x-patch parts and *.patch / *.diff
 * attachments, git format-patch, plain "diff -u" and quilt; and
 * recognises `git request-pull` mails.  Everything points into the mail
 * (struct mime) or the arena.
 */
#ifndef PARSERS_PATCH_H
#define PARSERS_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/addr.h"
#include "parsers/diff.h"
#include "parsers/mime.h"
#include "util/arena.h"
#include "util/buf.h"

struct patch_in {
	const struct mime *body; /* the decoded parts */
	struct addr from; /* the mail's From: */
	/* The mail's From: value, unfolded and RFC 2047 decoded.  When set,
	 * the author is read from it as git mailinfo reads it (the address
	 * as written, domain case kept), and from is not used. */
	struct str from_value;
	struct str subject; /* the mail's decoded, unfolded Subject: */
	struct str date; /* the mail's Date: value (unfolded) */
};

struct patch {
	struct addr author; /* in-body From: wins over the mail's */
	struct str date; /* in-body Date: wins; raw text as given */
	const char *subject; /* as git mailinfo prints it: tags removed */
	struct str message; /* the commit message body after the subject:
	                       mailinfo's msg file after git am's
	                       stripspace (no trailing blanks, no leading,
	                       trailing or doubled empty lines), UTF-8 */
	struct str diff; /* from the patch break on, as mailinfo's patch
	                    file: in the sender's bytes (mime_part.raw),
	                    LF ends (mailinfo would keep a quoted CR) */
	struct diff *parsed; /* NULL when diff_parse() failed */
	char patch_id[41]; /* git patch-id --stable; "" when none */
	const char **files; /* paths touched (new path, else old), sorted,
	                       unique */
	size_t nfiles;
	struct str diffstat; /* the diffstat the sender wrote, if any */
};

struct pull {
	const char *url; /* "are available in the Git repository at:" */
	const char *ref; /* branch or tag after the URL */
	const char *commit; /* "up to <sha>" */
	const char *base; /* "since commit <sha>" */
};

/*
 * What `git mailinfo` writes for the mail, with or without --scissors:
 * patatt signs this view of a mail (parsers/patatt.c), and patch_parse()
 * builds on it.  Every mail has one, with a patch or without.
 */
struct patch_mailinfo {
	struct addr author; /* the Author: and Email: lines */
	const char *subject; /* the Subject: line: tags removed */
	struct str date; /* the Date: line's value */
	struct str msg; /* the msg file as written: UTF-8, LF ends, not
	                   stripped (a reply's whole body but for its
	                   leading blank lines and in-body headers) */
	struct str patch; /* the patch file, as struct patch's diff;
	                     STR_NULL when the mail holds no patch (then
	                     in-body From:, Subject: and Date: lines are
	                     dropped from msg but not used, as mailinfo
	                     does) */
};

enum patch_mi_flag {
	PATCH_MI_SCISSORS = 1 << 0, /* --scissors: "-- >8 --" drops what
	                               is above it */
};

/* Run mailinfo over the mail (flags: enum patch_mi_flag).  ERR_LIMIT
 * on a line over LIMIT_LINE_LEN or an in-body header (folded) over
 * LIMIT_FIELD_SIZE. */
enum err patch_mailinfo(struct arena *a, const struct patch_in *in,
    unsigned flags, struct patch_mailinfo *out);

/*
 * Find a patch in the mail.  ERR_NOTFOUND when the body holds no diff
 * (a cover letter, a reply without a patch).  ERR_LIMIT over a limit.
 */
enum err patch_parse(
    struct arena *a, const struct patch_in *in, struct patch **out);

/* A `git request-pull` body; ERR_NOTFOUND when it is not one. */
enum err patch_parse_pull(
    struct arena *a, const struct mime *body, struct pull **out);

#endif
