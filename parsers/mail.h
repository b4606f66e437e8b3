/*
 * One mail, parsed for ingest: everything the threading, series and
 * workflow code needs, computed in one pure pass (so it can run on a
 * parsing thread while another thread writes the database).
 */
#ifndef PARSERS_MAIL_H
#define PARSERS_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/addr.h"
#include "parsers/command.h"
#include "parsers/hdr.h"
#include "parsers/mime.h"
#include "parsers/patch.h"
#include "parsers/subject.h"
#include "parsers/trailer.h"
#include "util/arena.h"

enum mail_kind {
	MAIL_OTHER,
	MAIL_PATCH,
	MAIL_COVER,
	MAIL_REPLY,
	MAIL_PULL,
	MAIL_BOT,
};

enum mail_flag {
	MAIL_F_OVERLIMIT = 1 << 0, /* over a limit: stored, not parsed */
	MAIL_F_DUPID = 1 << 1, /* (ingest) reuses another's Message-ID */
	MAIL_F_NOMSGID = 1 << 2, /* no valid Message-ID: one was made */
	MAIL_F_BROKEN = 1 << 3, /* broken MIME, parsed as far as it went */
	MAIL_F_CHARSET = 1 << 4, /* unknown charset or invalid bytes */
	MAIL_F_TRUNCATED = 1 << 5, /* (source) cut at LIMIT_MAIL_SIZE: only
	                              rows stored before sources handed out
	                              every mail whole carry it */
	MAIL_F_AUTO = 1 << 6, /* automated: never acted on or answered */
	MAIL_F_NODATE = 1 << 7, /* no parseable Date: */
	MAIL_F_DATEZONE = 1 << 8, /* a Date: (or the patch's) whose zone was
	                             not understood: taken as UTC */
};

struct mail_opts {
	const char *command_prefix; /* NULL: commands are not parsed */
	const char *bot_address; /* mail from it is MAIL_BOT */
};

struct mail {
	enum mail_kind kind;
	unsigned flags;
	const char *limit; /* which limit, with MAIL_F_OVERLIMIT */
	/* What makes two deliveries "the same mail": the body and the
	 * From, Date, Subject and To/Cc headers (trace headers differ). */
	unsigned char hash[20];
	const char *msgid;
	const char **refs; /* ancestors, oldest first, without msgid */
	size_t nrefs;
	struct addr from;
	int64_t date; /* 0 when absent or unparseable */
	int tz;
	const char *subject; /* decoded */
	struct subject subj;
	struct str list_id; /* unfolded raw values, for project matching */
	struct str to, cc;
	struct hdr hdr;
	struct mime body;
	struct str text; /* the main text part (UTF-8), or empty */
	struct patch *patch;
	struct pull *pull;
	struct trailer *trailers; /* replies: collected; patches: own */
	size_t ntrailers;
	struct command *commands;
	size_t ncommands;
	const char *change_id;
	const char *base_commit;
	const char **supersedes;
	size_t nsupersedes;
};

/*
 * Parse raw[0..n).  Always fills *m well enough to store the mail: over a
 * limit or unparsable, it is MAIL_OTHER with flags saying why, a hash,
 * and a Message-ID (made from the hash when the mail has none).  Returns
 * ERR_OK, or ERR_LIMIT when a limit stopped the parse.
 */
enum err mail_parse(struct arena *a, const char *raw, size_t n,
    const struct mail_opts *o, struct mail *m);

const char *mail_kind_name(enum mail_kind k);

#endif
