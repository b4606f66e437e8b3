/*
 * Every SQL statement of patchyard, by name.  Statements are prepared
 * once per connection (storage/store.c) and bound by parameter name.
 */
#include "storage/sql.h"

#include <stddef.h>

#include "util/xalloc.h"

#define MSG_COLS                                                               \
	"id, coalesce(project_id, 0), coalesce(series_id, 0),"                 \
	" coalesce(patch_id, 0), kind, flags, hash, date, msgid,"              \
	" from_name, from_email, subject, parent_msgid, auth, auth_note"
#define SERIES_COLS                                                            \
	"id, contribution_id, coalesce(project_id, 0), version,"               \
	" expected, received, coalesce(cover_id, 0), first_id, title,"         \
	" norm_title, submitter_name, submitter_email, date, change_id,"       \
	" base_commit, resend"
#define PATCH_COLS                                                             \
	"id, coalesce(project_id, 0), series_id, message_id, number,"          \
	" title, norm_title, author_name, author_email, author_time,"          \
	" author_tz, patch_id, files, slug, state, queue, reason,"             \
	" conflict, coalesce(predecessor_id, 0), coalesce(queued_at, 0),"      \
	" coalesce(queue_pos, 0), coalesce(folded_into, 0)"

/* A contribution's state: its newest series' (s) patches' when they all
 * share one, else partial; new without patches. */
/* A patch of series s is counted unless it is an older copy that a copy
 * sent again superseded (docs/DESIGN.md §12: one copy per number). */
#define PATCH_CURRENT(p)                                                       \
	"NOT (" p ".state = 'superseded' AND EXISTS (SELECT 1 FROM patch q"    \
	" WHERE q.series_id = " p ".series_id AND q.number = " p ".number"     \
	" AND q.id > " p ".id))"
#define WEB_STATE                                                              \
	"(SELECT CASE WHEN count(*) = 0 THEN 'new' WHEN min(state) ="          \
	" max(state) THEN min(state) ELSE 'partial' END FROM patch"            \
	" WHERE series_id = s.id AND " PATCH_CURRENT("patch") ")"
#define WEB_ART "'acked-by', 'reviewed-by', 'tested-by'"
/* Who gave a trailer: each person counts once per patch. */
#define WEB_WHO "lower(coalesce(t.email, t.value))"
/* The test state of series s (DESIGN.md §12): the worst of the latest
 * result of each context on each patch (or on the whole series), fail
 * over warning over pending over success; NULL without checks.  A newer
 * success of one context hides no failure of another. */
#define WEB_TEST_STATE                                                         \
	"(SELECT CASE max(r) WHEN 4 THEN 'fail' WHEN 3 THEN 'warning'"         \
	" WHEN 2 THEN 'pending' WHEN 1 THEN 'success' END FROM"                \
	" (SELECT CASE k.state WHEN 'fail' THEN 4 WHEN 'warning' THEN 3"       \
	" WHEN 'pending' THEN 2 ELSE 1 END AS r, row_number() OVER"            \
	" (PARTITION BY k.context, coalesce(k.patch_id, 0)"                    \
	" ORDER BY k.time DESC, k.id DESC) AS latest FROM checks k"            \
	" WHERE k.series_id = s.id) WHERE latest = 1)"
#define TEST_COLS                                                              \
	"id, project_id, coalesce(patch_id, 0), commit_hex, tree_hex,"         \
	" base_hex, command, purpose, state, forced, stale,"                   \
	" coalesce(owner, 0), result, summary, coalesce(duration, 0), queued," \
	" coalesce(started, 0), coalesce(finished, 0)"

/* patchwork's state of a patch (docs/DESIGN.md §9; man/patchyard.1 has the
 * table), from its state, queue and drop reason.  bot/web/webpwjson.c
 * maps the same in C, and tests/unit/test_webpw.c holds the two equal. */
#define PW_STATE(st, q, r)                                                     \
	"(CASE " st " WHEN 'staged' THEN CASE WHEN " q " = 'stable' THEN"      \
	" 'accepted' ELSE 'under-review' END WHEN 'merged' THEN 'accepted'"    \
	" WHEN 'dropped' THEN CASE " r " WHEN 'to-be-updated' THEN"            \
	" 'changes-requested' WHEN 'withdrawn' THEN 'not-applicable'"          \
	" ELSE 'rejected' END ELSE " st " END)"
/* A patch as patchwork's API shows it, and the filters of its lists. */
#define PW_PATCH_COLS                                                          \
	"p.id, p.series_id, s.contribution_id, coalesce(p.project_id, 0),"     \
	" coalesce(pr.name, ''), m.id, m.msgid, m.date, p.title, p.number,"    \
	" s.version, s.expected, m.from_name, m.from_email, p.state,"          \
	" p.queue, p.reason, " PW_STATE("p.state", "p.queue",                  \
	    "p.reason") ", p.patch_id, (SELECT e.detail FROM event e WHERE "   \
	                "e.patch_id ="                                         \
	                " p.id AND e.kind = 'merged' ORDER BY e.id DESC "      \
	                "LIMIT 1), s.title,"                                   \
	                " s.date"
#define PW_PATCH_FROM                                                          \
	"patch p JOIN series s ON s.id = p.series_id"                          \
	" JOIN message m ON m.id = p.message_id"                               \
	" LEFT JOIN project pr ON pr.id = p.project_id"
/* A series as patchwork's API shows it, with what it is read from. */
#define PW_SERIES_COLS                                                         \
	"s.id, s.contribution_id, coalesce(s.project_id, 0),"                  \
	" coalesce(pr.name, ''), s.title, s.date, s.first_id,"                 \
	" s.submitter_name, s.submitter_email, s.version, s.expected,"         \
	" s.received, coalesce(s.cover_id, 0), c.msgid, c.date"                \
	" FROM series s LEFT JOIN project pr ON pr.id = s.project_id"          \
	" LEFT JOIN message c ON c.id = s.cover_id"
#define PW_CHECK_COLS                                                          \
	"k.id, coalesce(k.patch_id, 0), k.series_id, k.context, k.state,"      \
	" k.url, k.summary, k.reporter, k.time FROM checks k"
/* Since and before are patchwork's: at or after, strictly before. */
#define PW_WHEN(col)                                                           \
	" AND (:since IS NULL OR " col                                         \
	" >= :since) AND (:before IS NULL OR " col " < :before)"
/*
 * patchwork's events, made from what the model keeps: the event table
 * (posted series, state changes), patches, cover letters, complete
 * series, checks and replies.  The actor of a change a mail made is that
 * mail's sender, whom the API knows by address.  An id is its row's id
 * times 8 plus the kind of row, so that the ids of the kinds never meet.
 *
 * CI bots poll this with since= (DESIGN.md §9), so a page must not cost
 * the whole history.  SQLite flattens the UNION ALL into the query
 * around it, which it does only when the arms' columns agree in
 * affinity (the unary + takes a column's away), and then merges the
 * arms in order, each read from the index of its date (migration 11)
 * from :since to :before (always bound: the ends of time when not
 * asked) and only as far as the page needs.  Each arm is one category,
 * so that a category asked for leaves the others unread.  A series is
 * complete at its last patch: that patch's row stands for it, so that
 * it too is read by date.
 */
#define PW_EVENTS                                                              \
	"SELECT id, category, date, project, actor, series, patch, cover,"     \
	" chk, comment, kind, detail FROM ("                                   \
	"SELECT e.id * 8 AS id, 'series-created' AS category,"                 \
	" e.time AS date, coalesce(c.project_id, 0) AS project,"               \
	" NULL AS actor, +e.series_id AS series, 0 AS patch, 0 AS cover,"      \
	" 0 AS chk, 0 AS comment, +e.kind AS kind, +e.detail AS detail"        \
	" FROM event e JOIN contribution c ON c.id = e.contribution_id"        \
	" WHERE e.kind = 'posted' AND e.series_id IS NOT NULL"                 \
	" UNION ALL SELECT e.id * 8, 'patch-state-changed', e.time,"           \
	" coalesce(c.project_id, 0), coalesce((SELECT a.from_email"            \
	" FROM message a WHERE a.id = e.message_id), e.actor),"                \
	" coalesce(e.series_id, 0), +e.patch_id, 0, 0, 0, +e.kind,"            \
	" +e.detail FROM event e JOIN contribution c"                          \
	" ON c.id = e.contribution_id WHERE e.patch_id IS NOT NULL"            \
	" AND e.kind IN ('staged', 'updated', 'graduated', 'merged',"          \
	" 'dropped', 'state', 'superseded', 'withdrawn')"                      \
	" UNION ALL SELECT p.id * 8 + 1, 'patch-created', m.date,"             \
	" coalesce(p.project_id, 0), NULL, +p.series_id, +p.id, 0, 0, 0,"      \
	" NULL, NULL FROM message m JOIN patch p ON p.message_id = m.id"       \
	" UNION ALL SELECT s.cover_id * 8 + 2, 'cover-created', m.date,"       \
	" coalesce(s.project_id, 0), NULL, +s.id, 0, +s.cover_id, 0, 0,"       \
	" NULL, NULL FROM message m JOIN series s ON s.cover_id = m.id"        \
	" UNION ALL SELECT s.id * 8 + 3, 'series-completed', m.date,"          \
	" coalesce(s.project_id, 0), NULL, +s.id, 0, 0, 0, 0, NULL, NULL"      \
	" FROM message m JOIN patch p ON p.message_id = m.id"                  \
	" JOIN series s ON s.id = p.series_id"                                 \
	" WHERE s.expected > 0 AND s.received >= s.expected"                   \
	" AND p.id = (SELECT l.id FROM patch l JOIN message lm"                \
	" ON lm.id = l.message_id WHERE l.series_id = s.id"                    \
	" ORDER BY lm.date DESC, l.id DESC LIMIT 1)"                           \
	" UNION ALL SELECT k.id * 8 + 4, 'check-created', k.time,"             \
	" coalesce(s.project_id, 0), +k.reporter, +k.series_id,"               \
	" +k.patch_id, 0, +k.id, 0, NULL, +k.state FROM checks k"              \
	" JOIN series s ON s.id = k.series_id WHERE k.patch_id IS NOT NULL"    \
	" UNION ALL SELECT m.id * 8 + 5, 'patch-comment-created', m.date,"     \
	" coalesce(s.project_id, 0), NULL, +s.id, +m.patch_id, 0, 0, +m.id,"   \
	" NULL, NULL FROM message m JOIN series s ON s.id = m.series_id"       \
	" WHERE m.kind NOT IN ('patch', 'cover') AND (m.flags & 2) = 0"        \
	" AND m.patch_id IS NOT NULL"                                          \
	" UNION ALL SELECT m.id * 8 + 5, 'cover-comment-created', m.date,"     \
	" coalesce(s.project_id, 0), NULL, +s.id, 0, +s.cover_id, 0, +m.id,"   \
	" NULL, NULL FROM message m JOIN series s ON s.id = m.series_id"       \
	" WHERE m.kind NOT IN ('patch', 'cover') AND (m.flags & 2) = 0"        \
	" AND m.patch_id IS NULL AND s.cover_id IS NOT NULL)"                  \
	" WHERE (:id = 0 OR id = :id)"                                         \
	" AND (:project = 0 OR project = :project)"                            \
	" AND (:category IS NULL OR category = :category)"                     \
	" AND (:series = 0 OR series = :series)"                               \
	" AND (:patch = 0 OR patch = :patch)"                                  \
	" AND (:cover = 0 OR cover = :cover)"                                  \
	" AND date >= :since AND date < :before"
/* People in the order of their first mail's row (dir: "" or " DESC"). */
#define PW_PEOPLE(dir)                                                         \
	"SELECT m.id, m.from_name, m.from_email FROM person ps"                \
	" JOIN message m ON m.id = ps.id ORDER BY ps.id" dir                   \
	" LIMIT :limit OFFSET :offset"

#define TREE_COLS                                                              \
	"id, project_id, name, url, branch, owner, origin = 'mail',"           \
	" coalesce(message_id, 0), pinned, commit_hex, state, last_error,"     \
	" reported, since, pos"

static const char *const text[SQL_COUNT] = {
	[SQL_BEGIN] = "BEGIN IMMEDIATE",
	[SQL_BEGIN_READ] = "BEGIN DEFERRED",
	[SQL_COMMIT] = "COMMIT",
	[SQL_ROLLBACK] = "ROLLBACK",
	[SQL_USER_VERSION] = "PRAGMA user_version",
	[SQL_META_GET] = "SELECT value FROM meta WHERE key = :key",
	[SQL_META_SET] = "INSERT INTO meta(key, value) VALUES(:key, :value)"
	                 " ON CONFLICT(key) DO UPDATE SET value = :value",
	[SQL_PROJECT_GET] = "SELECT id FROM project WHERE name = :name",
	[SQL_PROJECT_ADD] = "INSERT INTO project(name) VALUES(:name)",
	[SQL_PROJECT_NAME] = "SELECT name FROM project WHERE id = :id",
	[SQL_POS_GET] = "SELECT pos FROM import_pos WHERE source = :source",
	[SQL_POS_SET] = "INSERT INTO import_pos(source, pos)"
	                " VALUES(:source, :pos)"
	                " ON CONFLICT(source) DO UPDATE SET pos = :pos",

	[SQL_MSG_FIND] = "SELECT id, coalesce(project_id, 0),"
	                 " coalesce(series_id, 0), coalesce(patch_id, 0), kind,"
	                 " flags, hash, date FROM message"
	                 " WHERE msgid = :msgid AND (flags & 2) = 0"
	                 " ORDER BY id LIMIT 1",
	[SQL_MSG_COPIES] = "SELECT id FROM message WHERE msgid = :msgid"
	                   " ORDER BY id",
	[SQL_MSG_GET] = "SELECT " MSG_COLS " FROM message WHERE id = :id",
	[SQL_MSG_OF_CONTRIB] = "SELECT " MSG_COLS " FROM message"
	                       " WHERE series_id IN (SELECT id FROM series"
	                       " WHERE contribution_id = :contribution)"
	                       " ORDER BY date, id",
	[SQL_MSG_ADD] =
	    "INSERT INTO message(msgid, project_id, kind, flags, hash, date,"
	    " from_name, from_email, subject, parent_msgid, size, series_id,"
	    " patch_id, auth, auth_note) VALUES(:msgid, :project, :kind,"
	    " :flags, :hash, :date, :from_name, :from_email, :subject,"
	    " :parent, :size, :series, :patch, :auth, :auth_note)",
	/* The sender of a new mail is a person from their first mail on
	 * (migration 11). */
	[SQL_MSG_PERSON] = "INSERT INTO person(id, email) VALUES(:id, :email)"
	                   " ON CONFLICT DO NOTHING",
	[SQL_RAW_ADD] =
	    "INSERT INTO raw(message_id, bytes) VALUES(:id, :bytes)",
	[SQL_RAW_GET] = "SELECT bytes FROM raw WHERE message_id = :id",
	[SQL_MSG_DELIVERED] = "UPDATE message SET deliveries = deliveries + 1"
	                      " WHERE id = :id",
	[SQL_MSG_ATTACH] = "UPDATE message SET series_id = :series,"
	                   " patch_id = :patch WHERE id = :id",
	[SQL_MSG_REPOINT] = "UPDATE message SET patch_id = :to"
	                    " WHERE patch_id = :from",
	[SQL_PENDING_ADD] = "INSERT INTO pending(ref, message_id)"
	                    " VALUES(:ref, :msg)",
	[SQL_PENDING_PEEK] = "SELECT DISTINCT message_id FROM pending"
	                     " WHERE ref = :ref ORDER BY message_id",
	[SQL_PENDING_DROP_REF] = "DELETE FROM pending WHERE ref = :ref",
	[SQL_PENDING_CLEAR] = "DELETE FROM pending WHERE message_id = :msg",
	[SQL_PENDING_WAITS] = "SELECT 1 FROM pending WHERE message_id = :msg"
	                      " LIMIT 1",

	[SQL_SERIES_GET] = "SELECT " SERIES_COLS " FROM series WHERE id = :id",
	[SQL_CONTRIB_ADD] = "INSERT INTO contribution(project_id, activity)"
	                    " VALUES(:project, :activity)",
	[SQL_SERIES_ADD] =
	    "INSERT INTO series(contribution_id, project_id, version,"
	    " expected, received, cover_id, first_id, title, norm_title,"
	    " submitter_name, submitter_email, date, change_id, base_commit,"
	    " resend) VALUES(:contribution, :project, :version, :expected,"
	    " 0, :cover, :first, :title, :norm_title, :submitter_name,"
	    " :submitter_email, :date, :change_id, :base_commit, :resend)",
	[SQL_SERIES_UPDATE] =
	    "UPDATE series SET cover_id = :cover, first_id = :first,"
	    " title = :title, norm_title = :norm_title,"
	    " change_id = :change_id, base_commit = :base_commit"
	    " WHERE id = :id",
	[SQL_SERIES_RECOUNT] =
	    "UPDATE series SET received = (SELECT count(DISTINCT number)"
	    " FROM patch WHERE series_id = :id) WHERE id = :id"
	    " RETURNING received",
	[SQL_SERIES_WINDOW] =
	    "SELECT id FROM series WHERE submitter_email = :email"
	    " AND version = :version AND expected = :expected"
	    " AND date BETWEEN :lo AND :hi AND project_id IS :project"
	    " AND (:coverless = 0 OR cover_id IS NULL) AND id != :exclude"
	    " AND NOT EXISTS (SELECT 1 FROM patch WHERE series_id = series.id"
	    " AND number = :number)"
	    " ORDER BY abs(date - :date), id LIMIT 1",
	[SQL_SERIES_BY_CHANGE] =
	    "SELECT id FROM series WHERE change_id = :change_id"
	    " AND project_id IS :project AND contribution_id != :exclude"
	    " ORDER BY version DESC, date DESC, id DESC LIMIT 1",
	[SQL_SERIES_BY_TITLE] =
	    "SELECT id FROM series WHERE norm_title = :title"
	    " AND submitter_email = :email AND project_id IS :project"
	    " AND version <= :max_version AND contribution_id != :exclude"
	    " ORDER BY version DESC, date DESC, id DESC LIMIT 1",
	[SQL_SERIES_OF] = "SELECT id FROM series"
	                  " WHERE contribution_id = :contribution"
	                  " ORDER BY version DESC, date DESC, id DESC",
	[SQL_SERIES_SET_CONTRIB] = "UPDATE series SET"
	                           " contribution_id = :contribution"
	                           " WHERE id = :id",
	[SQL_EVENT_MOVE] = "UPDATE event SET contribution_id = :to"
	                   " WHERE contribution_id = :from",
	[SQL_CONTRIB_DROP_EMPTY] =
	    "DELETE FROM contribution WHERE id = :id AND NOT EXISTS"
	    " (SELECT 1 FROM series WHERE contribution_id = :id)",
	[SQL_CONTRIB_TOUCH] =
	    "UPDATE contribution SET newest_series_id = (SELECT id FROM"
	    " series WHERE contribution_id = :id ORDER BY version DESC,"
	    " date DESC, id DESC LIMIT 1),"
	    " activity = max(activity, :activity) WHERE id = :id",

	[SQL_CONTRIB_ACTIVITY] =
	    "UPDATE contribution SET activity = :activity WHERE id ="
	    " (SELECT contribution_id FROM series WHERE id = :series)"
	    " AND activity < :activity",
	[SQL_PATCH_GET] = "SELECT " PATCH_COLS " FROM patch WHERE id = :id",
	[SQL_PATCH_ADD] =
	    "INSERT INTO patch(project_id, series_id, message_id, number,"
	    " title, norm_title, author_name, author_email, author_time,"
	    " author_tz, patch_id, files, slug, state, queue, reason,"
	    " conflict, predecessor_id, queued_at, queue_pos, folded_into)"
	    " VALUES(:project, :series, :message, :number, :title,"
	    " :norm_title, :author_name, :author_email, :author_time,"
	    " :author_tz, :patch_id, :files, :slug, :state, :queue, :reason,"
	    " :conflict, :predecessor, :queued_at, :queue_pos,"
	    " :folded_into)",
	[SQL_PATCH_DELETE] = "DELETE FROM patch WHERE id = :id",
	[SQL_TRAILER_DROP_OWN] = "DELETE FROM trailer WHERE patch_id = :id"
	                         " AND own = 1",
	[SQL_TRAILER_DROP_COLLECTED] = "DELETE FROM trailer WHERE message_id ="
	                               " :message AND own = 0",
	[SQL_PATCH_REPOINT_PRED] = "UPDATE patch SET predecessor_id = :to"
	                           " WHERE predecessor_id = :from",
	[SQL_PATCH_UPDATE] =
	    "UPDATE patch SET slug = :slug, state = :state, queue = :queue,"
	    " reason = :reason, conflict = :conflict,"
	    " predecessor_id = :predecessor, queued_at = :queued_at,"
	    " queue_pos = :queue_pos, folded_into = :folded_into"
	    " WHERE id = :id",
	[SQL_PATCH_BY_NUMBER] =
	    "SELECT id FROM patch WHERE series_id = :series"
	    " AND number = :number ORDER BY id DESC LIMIT 1",
	[SQL_PATCH_BY_TITLE] = "SELECT id FROM patch WHERE series_id = :series"
	                       " AND norm_title = :title ORDER BY id DESC"
	                       " LIMIT 1",
	[SQL_PATCH_BY_PATCHID] = "SELECT id FROM patch"
	                         " WHERE series_id = :series"
	                         " AND patch_id = :patch_id ORDER BY id DESC"
	                         " LIMIT 1",
	[SQL_PATCH_OF_SERIES] = "SELECT id FROM patch p"
	                        " WHERE series_id = :series AND " PATCH_CURRENT(
	                            "p") " ORDER BY number, id",
	[SQL_PATCH_SUCCESSORS] = "SELECT id FROM patch"
	                         " WHERE predecessor_id = :id ORDER BY id",
	[SQL_PATCH_SLUG_USED] = "SELECT 1 FROM patch WHERE project_id IS"
	                        " :project AND slug = :slug LIMIT 1",
	[SQL_PATCH_SUPERSEDE_SERIES] =
	    "UPDATE patch SET state = 'superseded' WHERE series_id = :series"
	    " AND state IN ('new', 'changes-requested')",
	[SQL_TRAILER_ADD] =
	    "INSERT INTO trailer(patch_id, series_id, message_id, name, value,"
	    " email, verified, own) VALUES(:patch, :series, :message, :name,"
	    " :value, :email, :verified, :own) ON CONFLICT DO NOTHING",
	[SQL_TRAILER_CARRY] =
	    "INSERT INTO trailer(patch_id, series_id, message_id, name, value,"
	    " email, verified, own) SELECT :to, NULL, message_id, name,"
	    " value, email, verified, 0 FROM trailer WHERE own = 0 AND"
	    " (patch_id = :from OR (patch_id IS NULL AND series_id ="
	    " (SELECT series_id FROM patch WHERE id = :from))) ORDER BY id"
	    " ON CONFLICT DO NOTHING",
	[SQL_TRAILER_MOVE] = "UPDATE OR REPLACE trailer SET patch_id = :to"
	                     " WHERE patch_id = :from AND own = 0",
	[SQL_EVENT_ADD] =
	    "INSERT INTO event(time, kind, contribution_id, series_id,"
	    " patch_id, message_id, actor, detail) VALUES(:time, :kind,"
	    " :contribution, :series, :patch, :message, :actor, :detail)",

	[SQL_READ_LIST] = "SELECT id FROM contribution"
	                  " WHERE :project = 0 OR project_id = :project"
	                  " ORDER BY activity DESC, id DESC",
	[SQL_READ_CONTRIB] =
	    "SELECT c.id, coalesce(c.newest_series_id, 0), c.activity,"
	    " coalesce(p.name, '') FROM contribution c"
	    " LEFT JOIN project p ON p.id = c.project_id WHERE c.id = :id",
	[SQL_READ_SERIES_OF] =
	    "SELECT s.id, s.version, s.expected, s.received, s.title,"
	    " s.submitter_name, s.submitter_email, s.date, m.msgid,"
	    " s.base_commit, s.change_id FROM series s"
	    " JOIN message m ON m.id = s.first_id"
	    " WHERE s.contribution_id = :contribution"
	    " ORDER BY s.version, s.date, s.id",
	[SQL_READ_PATCHES_OF] =
	    "SELECT p.id, m.msgid, p.number, p.title, p.author_name,"
	    " p.author_email, p.slug, p.state, p.queue, p.reason, p.conflict,"
	    " p.patch_id, p.message_id, p.files, m.auth, m.auth_note,"
	    " (SELECT count(*) FROM message r WHERE r.msgid = m.msgid) > 1"
	    " FROM patch p"
	    " JOIN message m ON m.id = p.message_id"
	    " WHERE p.series_id = :series ORDER BY p.number, p.id",
	[SQL_READ_TRAILERS_OF] =
	    "SELECT t.name, t.value, m.msgid, t.verified, t.email, t.own,"
	    " m.auth, m.auth_note, m.id, m.from_name, m.from_email"
	    " FROM trailer t JOIN message m ON m.id = t.message_id"
	    " WHERE t.patch_id = :patch OR (t.patch_id IS NULL AND"
	    " t.series_id = :series) ORDER BY t.own DESC, t.message_id, t.id",
	[SQL_READ_EVENTS_OF] =
	    "SELECT e.time, e.kind, e.actor, e.detail, m.msgid, p.slug, e.id,"
	    " coalesce(e.message_id, 0), coalesce(e.series_id, p.series_id, 0),"
	    " coalesce(e.patch_id, 0)"
	    " FROM event e LEFT JOIN message m ON m.id = e.message_id"
	    " LEFT JOIN patch p ON p.id = e.patch_id"
	    " WHERE e.contribution_id = :contribution ORDER BY e.id",
	[SQL_WEB_PLACE] =
	    "SELECT s.contribution_id, m.series_id, coalesce(m.patch_id, 0),"
	    " m.kind, m.id FROM message m JOIN series s ON s.id = m.series_id"
	    " WHERE m.msgid = :msgid AND (m.flags & 2) = 0"
	    " ORDER BY m.id LIMIT 1",
	[SQL_DATA_VERSION] = "PRAGMA data_version",
	[SQL_READ_MSG_CONTRIB] =
	    "SELECT s.contribution_id, m.series_id, coalesce(m.patch_id, 0),"
	    " m.kind FROM message m JOIN series s ON s.id = m.series_id"
	    " WHERE m.msgid = :msgid AND (m.flags & 2) = 0"
	    " ORDER BY m.id LIMIT 1",

	[SQL_OUTBOX_ADD] =
	    "INSERT INTO outbox(event_id, contribution_id, patch_id, kind,"
	    " message_id, in_reply_to, rcpt, body, state, attempts,"
	    " next_attempt, created) VALUES(:event, :contribution, :patch,"
	    " :kind, :message_id, :in_reply_to, :rcpt, :body, :state, 0,"
	    " :next_attempt, :created)",
	[SQL_OUTBOX_GET] =
	    "SELECT id, coalesce(event_id, 0), coalesce(contribution_id, 0),"
	    " coalesce(patch_id, 0), kind, message_id, in_reply_to, rcpt,"
	    " body, state, attempts, next_attempt, created,"
	    " coalesce(sent_at, 0), last_error FROM outbox WHERE id = :id",
	[SQL_OUTBOX_BY_MSGID] = "SELECT id FROM outbox WHERE message_id = :msg",
	[SQL_OUTBOX_DUE] = "SELECT id FROM outbox WHERE state = 'queued'"
	                   " AND (:all OR next_attempt <= :now) ORDER BY id",
	[SQL_OUTBOX_RESULT] =
	    "UPDATE outbox SET state = :state, attempts = :attempts,"
	    " next_attempt = :next_attempt, last_error = :last_error,"
	    " sent_at = :sent_at, rcpt = :rcpt WHERE id = :id",
	[SQL_OUTBOX_RELEASE] = "UPDATE outbox SET state = 'queued'"
	                       " WHERE patch_id = :patch AND state = 'held'",
	[SQL_OUTBOX_CANCEL] = "UPDATE outbox SET state = 'cancelled'"
	                      " WHERE patch_id = :patch AND state = 'held'",
	[SQL_OUTBOX_OF] =
	    "SELECT id, coalesce(event_id, 0), coalesce(contribution_id, 0),"
	    " coalesce(patch_id, 0), kind, message_id, in_reply_to, rcpt,"
	    " '', state, attempts, next_attempt, created,"
	    " coalesce(sent_at, 0), last_error FROM outbox"
	    " WHERE contribution_id = :contribution ORDER BY id",
	[SQL_CHECK_ADD] =
	    "INSERT INTO checks(patch_id, series_id, context, state, url,"
	    " summary, log, base_commit, reporter, time, commit_hex, duration,"
	    " run_id) VALUES(:patch, :series, :context, :state, :url,"
	    " :summary, :log, :base, :reporter, :time, :commit, :duration,"
	    " :run)",
	/* The log's last 4 KB (bytes: the reader drops a cut character),
	 * from the check or the run it reports. */
	[SQL_CHECK_OF] =
	    "SELECT k.id, coalesce(k.patch_id, 0), coalesce(k.series_id, 0),"
	    " k.context, k.state, k.url, k.summary,"
	    " CAST(substr(CAST(coalesce(k.log, r.log) AS BLOB), -4096)"
	    " AS TEXT), k.base_commit, k.reporter, k.time, k.commit_hex,"
	    " k.duration, coalesce(k.run_id, 0) FROM checks k"
	    " JOIN series s ON s.id = k.series_id"
	    " LEFT JOIN test_run r ON r.id = k.run_id"
	    " WHERE s.contribution_id = :contribution ORDER BY k.id",
	[SQL_CHECK_LOG] = "SELECT coalesce(k.log, r.log) FROM checks k"
	                  " LEFT JOIN test_run r ON r.id = k.run_id"
	                  " WHERE k.id = :id",
	[SQL_CHECK_FIND] = "SELECT 1 FROM checks WHERE commit_hex = :commit"
	                   " AND run_id = :run AND context = :context LIMIT 1",
	[SQL_CHECK_AT] = "SELECT 1 FROM checks WHERE commit_hex = :commit"
	                 " AND context = :context LIMIT 1",
	[SQL_CHECK_LAST_IS] =
	    "SELECT state = :state AND summary IS :summary FROM checks"
	    " WHERE commit_hex = :commit AND context = :context"
	    " ORDER BY id DESC LIMIT 1",
	[SQL_PATCH_QUEUE_NEXT] =
	    "SELECT coalesce(max(queue_pos), 0) + 1 FROM patch"
	    " WHERE project_id IS :project AND state = 'staged'"
	    " AND queue = :queue",
	[SQL_PATCH_BY_SLUG] =
	    "SELECT id FROM patch WHERE project_id IS :project"
	    " AND slug = :slug ORDER BY (state = 'staged') DESC, id DESC"
	    " LIMIT 1",

	[SQL_STAGE_QUEUE] =
	    "SELECT id FROM patch WHERE project_id = :project"
	    " AND state = 'staged' ORDER BY queue = 'unstable', queue_pos, id",
	[SQL_STAGE_FOLDED] = "SELECT id FROM patch WHERE folded_into = :patch"
	                     " ORDER BY id",
	[SQL_STAGE_PREV] =
	    "SELECT patch_id, key, commit_hex, how, offset FROM build_entry"
	    " WHERE project_id = :project AND branch = :branch ORDER BY pos",
	[SQL_STAGE_CLEAR] = "DELETE FROM build_entry WHERE project_id ="
	                    " :project AND branch = :branch",
	[SQL_STAGE_SAVE] =
	    "INSERT INTO build_entry(project_id, branch, pos, patch_id, key,"
	    " commit_hex, how, offset) VALUES(:project, :branch, :pos,"
	    " :patch, :key, :commit, :how, :offset)",
	/* Upstream may take any version or copy (docs/DESIGN.md §3): superseded
	 * ones are candidates too, after the others of their contribution,
	 * newest first (the caller takes one per contribution). */
	[SQL_STAGE_BY_PATCHID] =
	    "SELECT p.id FROM patch p JOIN series s ON s.id = p.series_id"
	    " WHERE p.project_id = :project AND p.patch_id = :patch_id"
	    " AND p.state != 'merged' ORDER BY s.contribution_id,"
	    " p.state = 'superseded', p.id DESC",
	[SQL_STAGE_BY_AUTHOR] =
	    "SELECT p.id FROM patch p JOIN series s ON s.id = p.series_id"
	    " WHERE p.project_id = :project AND p.norm_title = :title"
	    " AND p.author_email = :email COLLATE NOCASE"
	    " AND p.state != 'merged' ORDER BY s.contribution_id,"
	    " p.state = 'superseded', p.id DESC",

	/* One row per contribution as the list shows it (docs/DESIGN.md §12):
	 * state as storage/store_read.c's series_state() computes it, the
	 * patch count one copy per number, A/R/T of the newest series
	 * (distinct per patch and person, superseded copies left out)
	 * packed as acks << 40 | reviews << 20 | tests, the test state
	 * (WEB_TEST_STATE), the number of series.  Only rows on the page
	 * compute the subqueries; activity is the index order.  A state
	 * filter first asks the patch_state index which series hold a
	 * patch in that state, so that a rare state does not cost a state
	 * computation per contribution.  q is an FTS5 query of the
	 * search index (migration 10), built by store_web.c. */
	[SQL_WEB_SUMMARY] =
	    "SELECT c.id, coalesce(pr.name, ''), s.id, s.title,"
	    " s.submitter_name, s.submitter_email, s.version, s.expected,"
	    " (SELECT count(DISTINCT number) FROM patch"
	    " WHERE series_id = s.id), " WEB_STATE ","
	    " coalesce((SELECT min(e.time) FROM event e"
	    " WHERE e.series_id = s.id AND e.kind = 'posted'), s.date),"
	    " c.activity,"
	    " (SELECT coalesce((min(sum(n = 'acked-by'), 1048575) << 40) |"
	    " (min(sum(n = 'reviewed-by'), 1048575) << 20) |"
	    " min(sum(n = 'tested-by'), 1048575), 0) FROM"
	    " (SELECT lower(t.name) AS n, t.patch_id, " WEB_WHO
	    " FROM patch p JOIN trailer t ON t.patch_id = p.id"
	    " WHERE p.series_id = s.id AND p.state != 'superseded'"
	    " AND lower(t.name) IN (" WEB_ART ")"
	    " UNION SELECT lower(t.name), 0, " WEB_WHO " FROM trailer t"
	    " WHERE t.patch_id IS NULL AND t.series_id = s.id"
	    " AND lower(t.name) IN (" WEB_ART "))),"
	    " " WEB_TEST_STATE ","
	    " (SELECT count(*) FROM series WHERE contribution_id = c.id)"
	    " FROM contribution c JOIN series s ON s.id = c.newest_series_id"
	    " LEFT JOIN project pr ON pr.id = c.project_id"
	    " WHERE c.activity >= :since"
	    " AND (:project = 0 OR c.project_id = :project)"
	    " AND (:id = 0 OR c.id = :id)"
	    " AND (:submitter IS NULL OR (instr(:submitter, '@') > 0 AND"
	    " s.submitter_email = :submitter COLLATE NOCASE) OR"
	    " (instr(:submitter, '@') = 0 AND (instr(lower(s.submitter_name),"
	    " lower(:submitter)) > 0 OR instr(lower(s.submitter_email),"
	    " lower(:submitter)) > 0)))"
	    " AND (:q IS NULL OR c.id IN (SELECT qs.contribution_id"
	    " FROM search JOIN series qs ON qs.id = search.series"
	    " WHERE search MATCH :q))"
	    " AND (:state IS NULL OR :state IN ('new', 'partial') OR"
	    " c.newest_series_id IN (SELECT series_id FROM patch"
	    " WHERE state = :state))"
	    " AND (:state IS NULL OR " WEB_STATE " = :state)"
	    " ORDER BY c.activity DESC, c.id DESC LIMIT :limit OFFSET :offset",
	[SQL_WEB_PROJECTS] = "SELECT name FROM project ORDER BY name",
	/* Events after an id, for bots that poll. */
	[SQL_WEB_EVENTS] =
	    "SELECT e.id, e.time, e.kind, coalesce(e.contribution_id, 0),"
	    " e.actor, e.detail, m.msgid, p.slug FROM event e"
	    " LEFT JOIN message m ON m.id = e.message_id"
	    " LEFT JOIN patch p ON p.id = e.patch_id"
	    " WHERE e.id > :since ORDER BY e.id LIMIT :limit",
	/* The feed: new contributions and state changes, newest first. */
	[SQL_WEB_FEED] =
	    "SELECT e.id, e.time, e.kind, coalesce(e.contribution_id, 0),"
	    " e.actor, e.detail, m.msgid, p.slug, coalesce(s.title, ''),"
	    " p.title FROM event e"
	    " LEFT JOIN message m ON m.id = e.message_id"
	    " LEFT JOIN patch p ON p.id = e.patch_id"
	    " LEFT JOIN series s ON s.id = e.series_id"
	    " WHERE e.kind IN ('posted', 'linked', 'staged', 'updated',"
	    " 'graduated', 'merged', 'dropped', 'conflict', 'resolved',"
	    " 'folded', 'withdrawn', 'state', 'superseded')"
	    " AND (:contribution = 0 OR e.contribution_id = :contribution)"
	    " ORDER BY e.id DESC LIMIT :limit",
	/* What a contribution's published files depend on: its newest
	 * mail, event and outbox change. */
	[SQL_WEB_STAMPS] =
	    "SELECT c.id, c.activity, coalesce((SELECT max(id) FROM event"
	    " WHERE contribution_id = c.id), 0), coalesce((SELECT max(m.id)"
	    " FROM series s JOIN message m ON m.series_id = s.id"
	    " WHERE s.contribution_id = c.id), 0), coalesce((SELECT"
	    " sum(attempts) + count(*) * 7 + sum(state = 'sent') * 3"
	    " FROM outbox WHERE contribution_id = c.id), 0)"
	    " FROM contribution c WHERE c.newest_series_id IS NOT NULL"
	    " ORDER BY c.id",
	[SQL_WEB_PATCH] =
	    "SELECT p.id, p.series_id, s.contribution_id FROM patch p"
	    " JOIN series s ON s.id = p.series_id WHERE p.id = :id",
	/* The patches of a series with the version each replaced. */
	[SQL_WEB_PREDECESSORS] =
	    "SELECT p.id, p.message_id, o.message_id, os.version FROM patch p"
	    " JOIN patch o ON o.id = p.predecessor_id"
	    " JOIN series os ON os.id = o.series_id"
	    " WHERE p.series_id = :series ORDER BY p.number, p.id",
	/* patchwork's REST API 1.2 (storage/store_pw.c).  Ids are ours:
	 * patch, series and check rows; a cover letter or a comment is its
	 * message row; a person is a row of a mail they sent. */
	[SQL_PW_PROJECTS] = "SELECT id, name FROM project ORDER BY name",
	[SQL_PW_PATCHES] =
	    "SELECT " PW_PATCH_COLS " FROM " PW_PATCH_FROM
	    " WHERE (:id = 0 OR p.id = :id)"
	    " AND (:project = 0 OR p.project_id = :project)"
	    " AND (:series = 0 OR p.series_id = :series)"
	    " AND (:states IS NULL OR instr(:states, ',' || " PW_STATE(
	        "p.state", "p.queue",
	        "p.reason") " || ',') > 0)"
	                    " AND (:submitters IS NULL OR "
	                    "instr(:submitters, ',' ||"
	                    " lower(m.from_email) || ',') > 0)"
	                    " AND (:q IS NULL OR "
	                    "instr(lower(p.title), lower(:q)) > 0)"
	                    " AND (:msgid IS NULL OR m.msgid = :msgid)"
	                    " AND (:hash IS NULL OR p.patch_id = "
	                    "lower(:hash))"
	                    " AND :none = 0" PW_WHEN(
	                        "m.date") " ORDER BY CASE WHEN :order "
	                                  "= 'number' THEN p.number "
	                                  "END,"
	                                  " CASE WHEN :order = 'id' "
	                                  "THEN p.id END,"
	                                  " CASE WHEN :order = '-id' "
	                                  "THEN p.id END DESC,"
	                                  " CASE WHEN :order = 'name' "
	                                  "THEN p.title END,"
	                                  " CASE WHEN :order = "
	                                  "'-name' THEN p.title END "
	                                  "DESC,"
	                                  " CASE WHEN :order = "
	                                  "'-date' THEN m.date END "
	                                  "DESC,"
	                                  " CASE WHEN :order = "
	                                  "'-date' THEN p.id END "
	                                  "DESC, m.date, p.id"
	                                  " LIMIT :limit OFFSET "
	                                  ":offset",
	[SQL_PW_SERIES] =
	    "SELECT " PW_SERIES_COLS " WHERE (:id = 0 OR s.id = :id)"
	    " AND (:project = 0 OR s.project_id = :project)"
	    " AND (:cover = 0 OR s.cover_id IS NOT NULL)"
	    " AND (:cover_row = 0 OR s.cover_id = :cover_row)"
	    " AND (:submitters IS NULL OR instr(:submitters, ',' ||"
	    " lower(s.submitter_email) || ',') > 0)"
	    " AND (:q IS NULL OR instr(lower(s.title), lower(:q)) > 0)"
	    " AND (:msgid IS NULL OR c.msgid = :msgid)"
	    " AND :none = 0" PW_WHEN(
	        "s.date") " ORDER BY CASE WHEN :order = 'id' THEN s.id END,"
	                  " CASE WHEN :order = '-id' THEN s.id END DESC,"
	                  " CASE WHEN :order = 'name' THEN s.title END,"
	                  " CASE WHEN :order = '-name' THEN s.title END DESC,"
	                  " CASE WHEN :order = '-date' THEN s.date END DESC,"
	                  " CASE WHEN :order = '-date' THEN s.id END DESC, "
	                  "s.date, s.id"
	                  " LIMIT :limit OFFSET :offset",
	/* One patch, one series (by its row or its cover letter's), a
	 * series' patches, one check and one reply, by key: each event,
	 * comment and patch or series in a list looks theirs up, and the
	 * lists' filters are no key (the planner cannot know which is set,
	 * and reads every row). */
	[SQL_PW_PATCH_GET] =
	    "SELECT " PW_PATCH_COLS " FROM " PW_PATCH_FROM " WHERE p.id = :id",
	[SQL_PW_SERIES_GET] =
	    "SELECT " PW_SERIES_COLS " WHERE s.id = :id OR s.cover_id = :cover",
	/* The patches a series counts, by number (a series in a list). */
	[SQL_PW_SERIES_PATCHES] =
	    "SELECT " PW_PATCH_COLS " FROM " PW_PATCH_FROM
	    " WHERE p.series_id = :series AND " PATCH_CURRENT(
	        "p") " ORDER BY p.number, m.date, p.id",
	[SQL_PW_CHECK] = "SELECT " PW_CHECK_COLS " WHERE k.id = :id",
	[SQL_PW_COMMENT] =
	    "SELECT m.id, m.msgid, m.date, m.subject, m.from_name,"
	    " m.from_email FROM message m WHERE m.id = :id"
	    " AND m.kind NOT IN ('patch', 'cover') AND (m.flags & 2) = 0",
	/* The replies about a patch, or (patch 0) about a whole series:
	 * what patchwork calls comments. */
	[SQL_PW_COMMENTS] =
	    "SELECT m.id, m.msgid, m.date, m.subject, m.from_name,"
	    " m.from_email FROM message m WHERE m.series_id = :series"
	    " AND ((:patch != 0 AND m.patch_id = :patch) OR (:patch = 0 AND"
	    " m.patch_id IS NULL)) AND m.kind NOT IN ('patch', 'cover')"
	    " AND (m.flags & 2) = 0 ORDER BY m.date, m.id"
	    " LIMIT :limit OFFSET :offset",
	/* Everyone who sent a mail, once per address (any case), under the
	 * row of their first mail (the person table, migration 11): a page
	 * of them reads that page of rows in order, whatever their number. */
	[SQL_PW_PEOPLE] = PW_PEOPLE(""),
	[SQL_PW_PEOPLE_DESC] = PW_PEOPLE(" DESC"),
	/* The same found by q in any mail of theirs: a search reads them
	 * all.  Each is under the row of their first mail that matches. */
	[SQL_PW_PEOPLE_FIND] =
	    "SELECT min(m.id), m.from_name, m.from_email FROM message m"
	    " WHERE m.from_email != '' AND (instr(lower(m.from_name),"
	    " lower(:q)) > 0 OR instr(lower(m.from_email), lower(:q)) > 0)"
	    " GROUP BY m.from_email COLLATE NOCASE"
	    " ORDER BY CASE WHEN :desc THEN min(m.id) END DESC, min(m.id)"
	    " LIMIT :limit OFFSET :offset",
	[SQL_PW_PERSON] = "SELECT id, from_name, from_email FROM message"
	                  " WHERE id = :id AND from_email != ''",
	/* A patch's checks, and those of its whole series. */
	[SQL_PW_CHECKS] =
	    "SELECT " PW_CHECK_COLS
	    " WHERE (k.patch_id = :patch OR (k.patch_id IS NULL AND"
	    " k.series_id = :series)) AND (:id = 0 OR k.id = :id)"
	    " AND (:state IS NULL OR k.state = :state)"
	    " AND (:context IS NULL OR k.context = :context)" PW_WHEN(
	        "k.time") " ORDER BY CASE WHEN :desc THEN k.time END DESC,"
	                  " CASE WHEN :desc THEN k.id END DESC, k.time, k.id"
	                  " LIMIT :limit OFFSET :offset",
	[SQL_PW_EVENTS] = PW_EVENTS " ORDER BY date DESC, id DESC"
	                            " LIMIT :limit OFFSET :offset",
	[SQL_PW_EVENTS_ASC] = PW_EVENTS " ORDER BY date, id"
	                                " LIMIT :limit OFFSET :offset",
	/* The events that changed a patch's state, up to one of them. */
	[SQL_PW_HISTORY] =
	    "SELECT kind, coalesce(detail, '') FROM event"
	    " WHERE patch_id = :patch AND id <= :upto AND kind IN ('staged',"
	    " 'updated', 'graduated', 'merged', 'dropped', 'state',"
	    " 'superseded', 'withdrawn') ORDER BY id",
	/* Every mail of a contribution, all its versions and replies, or
	 * of one series, with its size: the thread of public-inbox's
	 * t.mbox.gz. */
	[SQL_PW_THREAD] =
	    "SELECT m.id, m.size FROM message m"
	    " JOIN series s ON s.id = m.series_id"
	    " WHERE s.contribution_id = :contribution ORDER BY m.date, m.id",
	[SQL_PW_SERIES_THREAD] = "SELECT m.id, m.size FROM message m"
	                         " WHERE m.series_id = :series"
	                         " ORDER BY m.date, m.id",
	[SQL_PW_STATE] = "SELECT " PW_STATE(":state", ":queue", ":reason"),
	[SQL_SOURCE_REPORT] =
	    "INSERT INTO source_state(name, kind, last_error, error_time,"
	    " checked) VALUES(:name, :kind, :error, :error_time, :now)"
	    " ON CONFLICT(name) DO UPDATE SET kind = :kind,"
	    " last_error = :error, error_time = :error_time, checked = :now",
	[SQL_SOURCE_GET] = "SELECT last_error, coalesce(error_time, 0),"
	                   " checked FROM source_state WHERE name = :name",
	/* The position of a followed source: of its parts (an epoch, a
	 * mailbox), the one with the longest, then greatest, key: for
	 * "source:NAME:epoch:N" the highest N. */
	[SQL_SOURCE_POS] =
	    "SELECT pos FROM import_pos WHERE source > :lo AND source < :hi"
	    " ORDER BY length(source) DESC, source DESC LIMIT 1",
	[SQL_STATUS_MESSAGES] = "SELECT count(*) FROM message",
	/* A contribution's state as show and the pages compute it (the
	 * same WEB_STATE over the same rows as SQL_WEB_SUMMARY): its newest
	 * series' patches' common state, "partial" when they differ, an
	 * older copy of a patch sent again left out. */
	[SQL_STATUS_STATES] =
	    "SELECT st, count(*) FROM (SELECT " WEB_STATE " AS st"
	    " FROM contribution c JOIN series s ON s.id = c.newest_series_id)"
	    " GROUP BY st ORDER BY st",
	[SQL_STATUS_OUTBOX] =
	    "SELECT coalesce(sum(state = 'queued' AND next_attempt <= :now), "
	    "0),"
	    " coalesce(sum(state = 'held' OR (state = 'queued' AND"
	    " next_attempt > :now)), 0), coalesce(sum(state = 'failed'), 0)"
	    " FROM outbox WHERE state IN ('queued', 'held', 'failed')",
	[SQL_STATUS_QUEUES] =
	    "SELECT coalesce(j.name, ''), p.queue, count(*) FROM patch p"
	    " LEFT JOIN project j ON j.id = p.project_id"
	    " WHERE p.state = 'staged' GROUP BY p.project_id, p.queue"
	    " ORDER BY j.name, p.queue",
	/* The newest event that changes what the staging branches hold;
	 * the partial index event_queue answers it. */
	[SQL_RUN_QUEUE_MARK] =
	    "SELECT coalesce(max(id), 0) FROM event WHERE kind IN ('staged',"
	    " 'updated', 'graduated', 'dropped', 'folded', 'merged',"
	    " 'withdrawn')",
	[SQL_RUN_OUTBOX_NEXT] =
	    "SELECT min(next_attempt) FROM outbox WHERE state = 'queued'",
	[SQL_TEST_ADD] =
	    "INSERT INTO test_run(project_id, patch_id, commit_hex, tree_hex,"
	    " base_hex, command, purpose, state, forced, queued)"
	    " VALUES(:project, :patch, :commit, :tree, :base, :command,"
	    " :purpose, 'queued', :forced, :now)",
	[SQL_TEST_UNQUEUE] = "DELETE FROM test_run WHERE project_id = :project"
	                     " AND state = 'queued'",
	[SQL_TEST_RESULTS] =
	    "SELECT " TEST_COLS ", NULL FROM test_run WHERE tree_hex = :tree"
	    " AND command = :command AND state = 'done' AND stale = 0"
	    " ORDER BY id DESC LIMIT :max",
	[SQL_TEST_PENDING] =
	    "SELECT 1 FROM test_run WHERE tree_hex = :tree"
	    " AND command = :command AND state IN ('queued', 'running')"
	    " LIMIT 1",
	[SQL_TEST_CLAIM] =
	    "UPDATE test_run SET state = 'running', owner = :owner,"
	    " started = :now WHERE id = (SELECT id FROM test_run"
	    " WHERE state = 'queued' AND (:project = 0 OR project_id ="
	    " :project) ORDER BY forced DESC, id LIMIT 1) RETURNING id",
	[SQL_TEST_GET] =
	    "SELECT " TEST_COLS ", log FROM test_run WHERE id = :id",
	[SQL_TEST_FINISH] =
	    "UPDATE test_run SET state = :state, result = :result,"
	    " summary = :summary, log = :log, duration = :duration,"
	    " finished = :now WHERE id = :id",
	[SQL_TEST_RUNNING] = "SELECT " TEST_COLS ", NULL FROM test_run"
	                     " WHERE state = 'running' ORDER BY id",
	[SQL_TEST_REQUEUE] = "UPDATE test_run SET state = 'queued',"
	                     " owner = NULL, started = NULL WHERE id = :id"
	                     " AND state = 'running'",
	[SQL_TEST_FORGET] = "UPDATE test_run SET stale = 1"
	                    " WHERE tree_hex = :tree AND command = :command"
	                    " AND state = 'done'",
	[SQL_TEST_COUNT_SINCE] =
	    "SELECT count(*) FROM test_run WHERE project_id = :project"
	    " AND purpose = :purpose AND state = 'done' AND id > :after",
	[SQL_TEST_WORK] = "SELECT EXISTS (SELECT 1 FROM test_run"
	                  " WHERE state IN ('queued', 'running'))"
	                  " OR EXISTS (SELECT 1 FROM test_request)",
	[SQL_TEST_OPEN] = "SELECT " TEST_COLS ", NULL FROM test_run"
	                  " WHERE state IN ('queued', 'running') ORDER BY id",
	[SQL_TEST_REQUEST_ADD] =
	    "INSERT INTO test_request(project_id, patch_id, actor, time)"
	    " VALUES(:project, :patch, :actor, :time)",
	[SQL_TEST_REQUESTS] = "SELECT DISTINCT patch_id FROM test_request"
	                      " WHERE project_id = :project ORDER BY patch_id",
	[SQL_TEST_REQUEST_DONE] = "DELETE FROM test_request"
	                          " WHERE project_id = :project",

	[SQL_TREE_LIST] = "SELECT " TREE_COLS " FROM tree WHERE :project = 0"
	                  " OR project_id = :project"
	                  " ORDER BY project_id, origin = 'mail', pos, id",
	[SQL_TREE_ADD] =
	    "INSERT INTO tree(project_id, name, url, branch, owner, origin,"
	    " message_id, pinned, commit_hex, state, last_error, reported,"
	    " since, pos) VALUES(:project, :name, :url, :branch, :owner,"
	    " :origin, :message, :pinned, :commit, :state, :last_error,"
	    " :reported, :since, :pos)",
	[SQL_TREE_UPDATE] =
	    "UPDATE tree SET name = :name, url = :url, branch = :branch,"
	    " owner = :owner, message_id = :message, pinned = :pinned,"
	    " commit_hex = :commit, state = :state, last_error = :last_error,"
	    " reported = :reported, since = :since, pos = :pos"
	    " WHERE id = :id",
	[SQL_TREE_DELETE] = "DELETE FROM tree WHERE id = :id",

	[SQL_PROMOTE_CHECKS] =
	    "SELECT context, state FROM checks WHERE patch_id = :patch"
	    " OR (patch_id IS NULL AND series_id = :series) ORDER BY id",
	/* A mark counts from the event that put the patch in the unstable
	 * queue on: its first 'staged', or the 'updated' that staged it in
	 * place of an older version (whose time it keeps).  Time alone
	 * cannot order a mark and a staging of the same second. */
	[SQL_PROMOTE_MARK] =
	    "SELECT detail FROM event WHERE patch_id = :patch"
	    " AND kind = 'state' AND time >= :since"
	    " AND id > (SELECT COALESCE(MIN(id), 0) FROM event"
	    "  WHERE patch_id = :patch AND kind IN ('staged', 'updated'))"
	    " ORDER BY id DESC LIMIT 1",
	[SQL_FORWARD_ADD] =
	    "INSERT INTO forward(project_id, patch_id, key, message_id, mode,"
	    " time) VALUES(:project, :patch, :key, :message_id, :mode, :time)",
	[SQL_FORWARD_LAST] =
	    "SELECT key, message_id, time, mode FROM forward"
	    " WHERE patch_id = :patch ORDER BY id DESC LIMIT 1",
};

const char *
sql_text(enum sql_id id)
{
	if ((int)id < 0 || id >= SQL_COUNT || text[id] == NULL)
		fatal("store: no SQL text for statement %d", (int)id);
	return text[id];
}
