/*
 * The patch state machine (DESIGN.md §3) and the commands that drive it
 * (§5), by mail and from the terminal through the same code: who may do
 * what, which transitions are valid, an event for every change, and the
 * acknowledgments and transcripts they cause.
 */
#ifndef BOT_WORKFLOW_H
#define BOT_WORKFLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/command.h"
#include "parsers/config.h"
#include "parsers/mail.h"
#include "storage/store.h"
#include "storage/store_outbox.h"
#include "storage/store_patch.h"
#include "util/buf.h"

struct workflow;

struct workflow *workflow_new(struct store *st, const struct config *conf);
void workflow_free(struct workflow *w);

/*
 * The commands of a mail already stored as msg_id and placed in its
 * thread (series_id, patch_id: what it answers; 0 when unknown), inside
 * the caller's transaction.  auth: how the mail authenticated
 * (trust_judge), NULL when it did not (auth_note: why).  reused: a
 * Message-ID it answers that two stored mails share, or NULL: then every
 * command is refused, the transcript naming both.  Mail that is
 * automated, from the bot, or not authenticated changes nothing and gets
 * no answer; the refusal is logged and recorded as an event.  Otherwise
 * every command runs (each all or nothing) and one transcript answers.
 */
enum err workflow_mail(struct workflow *w, const struct mail *m,
    const char *auth, const char *auth_note, const char *reused, int64_t msg_id,
    int64_t series_id, int64_t patch_id);

/*
 * One command from the terminal on REF (contribution: its newest series;
 * patch or cover Message-ID: that patch or series), with the local user
 * as actor.  *msg gets what happened or why not; returns ERR_OK, or
 * ERR_PERM / ERR_CONFLICT / ERR_INVAL when it was refused.
 */
enum err workflow_local(struct workflow *w, const struct command *c,
    int64_t contribution, int64_t series, int64_t patch, const char *actor,
    struct buf *msg);

/*
 * One command on patch (of series; 0: the whole series) for someone who
 * proved who they are other than by mail (a maintainer's API token:
 * PATCH /api/1.2/patches/ID/): the permission check of a mail from email
 * (allowed()), then the transitions, events and mails that mail's
 * command would cause, without a transcript, in the caller's
 * transaction.  label names them in events and mails.  *msg and the
 * result as workflow_local().
 */
enum err workflow_as(struct workflow *w, const struct command *c,
    int64_t series, int64_t patch, const char *email, const char *label,
    struct buf *msg);

/*
 * A test result a CI reported over HTTP (POST /api/checks), recorded as
 * that CI's "#yard check" mail would be: the same permission check (email
 * must be a configured CI address), the same check row (patch k->patch_id
 * of series k->series_id, context, state, url; k->summary as its
 * description) and the same event, in the caller's transaction.
 */
enum err workflow_check(struct workflow *w, const char *email,
    const char *label, const struct store_check *k, struct buf *msg);

/*
 * A newer version p takes staged patch o's place in its queue (its
 * author sent it, or a maintainer staged it): o becomes superseded, p
 * staged where o was; the "updated" event (actor and command mail
 * msg_id, NULL and 0 when it came by itself) and its mail, held until
 * the tree has it.  Both rows are written; inside the caller's
 * transaction.
 */
enum err workflow_replace_staged(struct workflow *w, struct store_patch *p,
    struct store_patch *o, const char *actor, int64_t msg_id);

/*
 * A command from the terminal on a mail that is no patch or series: a
 * pull request (stage or drop its tree).  ERR_NOTFOUND when msgid names
 * no such mail; otherwise as workflow_local().
 */
enum err workflow_local_msg(struct workflow *w, const struct command *c,
    const char *msgid, const char *actor, struct buf *msg);

/*
 * Graduate one staged patch of the unstable queue by the promotion
 * policy (bot/workflow/promote.c), through the path #yard graduate
 * takes, in the caller's transaction: the event names the policy, the
 * mail says what it saw (policy, one line).  ERR_CONFLICT when the
 * patch is not in the unstable queue.
 */
enum err workflow_promote(
    struct workflow *w, int64_t patch, const char *policy, struct buf *msg);

#endif
