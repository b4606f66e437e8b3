/*
 * Numbered migrations: migration N brings a database from user_version
 * N-1 to N, in one transaction.  Never edit a released migration; add one.
 */
#include <stdio.h>

#include "storage/store.h"

#include "storage/db.h"
#include "util/log.h"

static const char *const migrations[] = {
	/* 1: the model of docs/DESIGN.md §3. */
	"CREATE TABLE meta(\n"
	"  key TEXT PRIMARY KEY,\n"
	"  value TEXT NOT NULL\n"
	") STRICT;\n"
	"CREATE TABLE project(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  name TEXT NOT NULL UNIQUE\n"
	") STRICT;\n"
	"CREATE TABLE contribution(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  project_id INTEGER REFERENCES project(id),\n"
	"  newest_series_id INTEGER,\n"
	"  activity INTEGER NOT NULL DEFAULT 0\n"
	") STRICT;\n"
	"CREATE INDEX contribution_activity ON contribution(activity);\n"
	/* A series: one posting of one or more patches. */
	"CREATE TABLE series(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  contribution_id INTEGER NOT NULL REFERENCES contribution(id),\n"
	"  project_id INTEGER REFERENCES project(id),\n"
	"  version INTEGER NOT NULL,\n"
	"  expected INTEGER NOT NULL,\n"
	"  received INTEGER NOT NULL DEFAULT 0,\n"
	"  cover_id INTEGER,\n"
	"  first_id INTEGER NOT NULL,\n"
	"  title TEXT NOT NULL,\n"
	"  norm_title TEXT NOT NULL,\n"
	"  submitter_name TEXT NOT NULL,\n"
	"  submitter_email TEXT NOT NULL,\n"
	"  date INTEGER NOT NULL,\n"
	"  change_id TEXT,\n"
	"  base_commit TEXT,\n"
	"  resend INTEGER NOT NULL DEFAULT 0\n"
	") STRICT;\n"
	"CREATE INDEX series_sender ON series(submitter_email, version,"
	" expected, date);\n"
	"CREATE INDEX series_title ON series(norm_title, submitter_email);\n"
	"CREATE INDEX series_change ON series(change_id)"
	" WHERE change_id IS NOT NULL;\n"
	"CREATE INDEX series_contribution ON series(contribution_id);\n"
	/* Every mail, keyed by Message-ID; the raw bytes live in raw. */
	"CREATE TABLE message(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  msgid TEXT NOT NULL,\n"
	"  project_id INTEGER REFERENCES project(id),\n"
	"  kind TEXT NOT NULL CHECK(kind IN ('patch','cover','reply','pull',"
	"'bot','other')),\n"
	"  flags INTEGER NOT NULL DEFAULT 0,\n"
	"  deliveries INTEGER NOT NULL DEFAULT 1,\n"
	"  hash BLOB NOT NULL,\n"
	"  date INTEGER NOT NULL,\n"
	"  from_name TEXT NOT NULL,\n"
	"  from_email TEXT NOT NULL,\n"
	"  subject TEXT NOT NULL,\n"
	"  parent_msgid TEXT,\n"
	"  series_id INTEGER,\n"
	"  patch_id INTEGER,\n"
	"  size INTEGER NOT NULL\n"
	") STRICT;\n"
	"CREATE INDEX message_msgid ON message(msgid);\n"
	"CREATE INDEX message_series ON message(series_id)"
	" WHERE series_id IS NOT NULL;\n"
	"CREATE TABLE raw(\n"
	"  message_id INTEGER PRIMARY KEY REFERENCES message(id),\n"
	"  bytes BLOB NOT NULL\n"
	") STRICT;\n"
	/* Replies whose ancestors have not arrived yet, by ancestor id. */
	"CREATE TABLE pending(\n"
	"  ref TEXT NOT NULL,\n"
	"  message_id INTEGER NOT NULL REFERENCES message(id)\n"
	") STRICT;\n"
	"CREATE INDEX pending_ref ON pending(ref);\n"
	"CREATE TABLE patch(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  project_id INTEGER REFERENCES project(id),\n"
	"  series_id INTEGER NOT NULL REFERENCES series(id),\n"
	"  message_id INTEGER NOT NULL REFERENCES message(id),\n"
	"  number INTEGER NOT NULL,\n"
	"  title TEXT NOT NULL,\n"
	"  norm_title TEXT NOT NULL,\n"
	"  author_name TEXT NOT NULL,\n"
	"  author_email TEXT NOT NULL,\n"
	"  author_time INTEGER NOT NULL,\n"
	"  author_tz INTEGER NOT NULL,\n"
	"  patch_id TEXT,\n"
	"  files TEXT NOT NULL,\n"
	"  slug TEXT NOT NULL,\n"
	"  state TEXT NOT NULL DEFAULT 'new' CHECK(state IN ('new','staged',"
	"'merged','dropped','superseded','changes-requested','rejected')),\n"
	"  queue TEXT CHECK(queue IN ('unstable','stable')),\n"
	"  reason TEXT,\n"
	"  conflict INTEGER NOT NULL DEFAULT 0,\n"
	"  predecessor_id INTEGER REFERENCES patch(id),\n"
	"  queued_at INTEGER,\n"
	"  queue_pos INTEGER,\n"
	"  folded_into INTEGER REFERENCES patch(id)\n"
	") STRICT;\n"
	"CREATE INDEX patch_series ON patch(series_id, number);\n"
	"CREATE INDEX patch_slug ON patch(project_id, slug);\n"
	"CREATE INDEX patch_patchid ON patch(patch_id)"
	" WHERE patch_id IS NOT NULL;\n"
	"CREATE INDEX patch_message ON patch(message_id);\n"
	"CREATE INDEX patch_title ON patch(project_id, norm_title);\n"
	"CREATE TABLE trailer(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  patch_id INTEGER REFERENCES patch(id),\n"
	"  series_id INTEGER REFERENCES series(id),\n"
	"  message_id INTEGER NOT NULL REFERENCES message(id),\n"
	"  name TEXT NOT NULL,\n"
	"  value TEXT NOT NULL,\n"
	"  email TEXT,\n"
	"  verified INTEGER NOT NULL,\n"
	"  own INTEGER NOT NULL DEFAULT 0\n"
	") STRICT;\n"
	"CREATE INDEX trailer_patch ON trailer(patch_id)"
	" WHERE patch_id IS NOT NULL;\n"
	"CREATE INDEX trailer_series ON trailer(series_id)"
	" WHERE series_id IS NOT NULL;\n"
	"CREATE INDEX trailer_message ON trailer(message_id);\n"
	"CREATE TABLE event(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  time INTEGER NOT NULL,\n"
	"  kind TEXT NOT NULL,\n"
	"  contribution_id INTEGER,\n"
	"  series_id INTEGER,\n"
	"  patch_id INTEGER,\n"
	"  message_id INTEGER,\n"
	"  actor TEXT,\n"
	"  detail TEXT\n"
	") STRICT;\n"
	"CREATE INDEX event_contribution ON event(contribution_id);\n"
	/* Test results (docs/DESIGN.md §3 "check"). */
	"CREATE TABLE checks(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  patch_id INTEGER REFERENCES patch(id),\n"
	"  series_id INTEGER REFERENCES series(id),\n"
	"  context TEXT NOT NULL,\n"
	"  state TEXT NOT NULL CHECK(state IN ('pending','success','warning',"
	"'fail')),\n"
	"  url TEXT,\n"
	"  summary TEXT,\n"
	"  log TEXT,\n"
	"  base_commit TEXT,\n"
	"  reporter TEXT,\n"
	"  time INTEGER NOT NULL\n"
	") STRICT;\n"
	"CREATE INDEX checks_patch ON checks(patch_id);\n"
	/* Mails to send, rendered when their event happened (docs/DESIGN.md
	 * §8). held: waiting for the build or push that contains the change. */
	"CREATE TABLE outbox(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  event_id INTEGER REFERENCES event(id),\n"
	"  contribution_id INTEGER,\n"
	"  patch_id INTEGER,\n"
	"  kind TEXT NOT NULL,\n"
	"  message_id TEXT NOT NULL UNIQUE,\n"
	"  in_reply_to TEXT,\n"
	"  rcpt TEXT NOT NULL,\n"
	"  body BLOB NOT NULL,\n"
	"  state TEXT NOT NULL CHECK(state IN ('held','queued','sent',"
	"'failed','cancelled')),\n"
	"  attempts INTEGER NOT NULL DEFAULT 0,\n"
	"  next_attempt INTEGER NOT NULL,\n"
	"  created INTEGER NOT NULL,\n"
	"  sent_at INTEGER,\n"
	"  last_error TEXT\n"
	") STRICT;\n"
	"CREATE INDEX outbox_due ON outbox(state, next_attempt);\n"
	"CREATE INDEX outbox_contribution ON outbox(contribution_id);\n"
	/* What the last build made of each queue position, so that the
	 * next one reuses what did not change (docs/DESIGN.md §6). */
	"CREATE TABLE build_entry(\n"
	"  project_id INTEGER NOT NULL REFERENCES project(id),\n"
	"  branch TEXT NOT NULL,\n"
	"  pos INTEGER NOT NULL,\n"
	"  patch_id INTEGER NOT NULL,\n"
	"  key TEXT NOT NULL,\n"
	"  commit_hex TEXT,\n"
	"  how INTEGER NOT NULL,\n"
	"  offset INTEGER NOT NULL,\n"
	"  PRIMARY KEY(project_id, branch, pos)\n"
	") STRICT;\n"
	"CREATE TABLE import_pos(\n"
	"  source TEXT PRIMARY KEY,\n"
	"  pos TEXT NOT NULL\n"
	") STRICT;\n",
	/* 2: the contribution list by project and by state, a series'
	 * posted event and latest check, fast on 100,000 contributions
	 * (storage/store_web.c). */
	"CREATE INDEX contribution_project ON contribution(project_id,"
	" activity);\n"
	"CREATE INDEX checks_series ON checks(series_id, time);\n"
	"CREATE INDEX event_series ON event(series_id, kind)"
	" WHERE series_id IS NOT NULL;\n"
	"CREATE INDEX patch_state ON patch(state, series_id);\n",
	/* 3: the daemon (issue 19).  What `status` shows of each configured
	 * source; its positions live in import_pos under
	 * "source:NAME:...".  The partial index answers "has the queue
	 * changed" without indexing every posted event. */
	"CREATE TABLE source_state(\n"
	"  name TEXT PRIMARY KEY,\n"
	"  kind TEXT NOT NULL,\n"
	"  last_error TEXT,\n"
	"  error_time INTEGER,\n"
	"  checked INTEGER NOT NULL\n"
	") STRICT;\n"
	"CREATE INDEX event_queue ON event(id) WHERE kind IN ('staged',"
	" 'updated', 'graduated', 'dropped', 'folded', 'merged',"
	" 'withdrawn');\n",
	/* 4 (issue 16): one copy of a collected trailer per place and
	 * message, whatever order the mails came in; and the rows of a
	 * waiting reply found by the reply (it waits while its place may
	 * still move nearer). */
	"DELETE FROM trailer WHERE own = 0 AND id NOT IN (SELECT min(id)"
	" FROM trailer WHERE own = 0 GROUP BY message_id,"
	" coalesce(patch_id, 0), coalesce(series_id, 0), name, value);\n"
	"DROP INDEX trailer_message;\n"
	"CREATE UNIQUE INDEX trailer_once ON trailer(message_id,"
	" coalesce(patch_id, 0), coalesce(series_id, 0), name, value)"
	" WHERE own = 0;\n"
	"CREATE INDEX pending_message ON pending(message_id);\n",
	/* 5 (issue 16): a reply's trailer is verified only when its person
	 * sent it; a display name no longer counts.  What SQL can check
	 * again is the address (the alias lines of the config and the
	 * authentication are the ingest's to judge). */
	"UPDATE trailer SET verified = 0 WHERE own = 0 AND verified = 1"
	" AND email IS NOT NULL AND lower(email) != lower((SELECT from_email"
	" FROM message WHERE message.id = trailer.message_id));\n",
	/* 6: the test runner (docs/DESIGN.md §7).  A test_run is one run of
	 * test.command on one commit: queued, running (owned by a process),
	 * done (result success or fail) or error (the runner failed, not
	 * the test).  Results are found again by tree id and command, so
	 * the same tree is never tested twice; stale marks results a retest
	 * asked to ignore.  test_request holds retests asked for by mail or
	 * from the terminal until the runner takes them.  A check the runner
	 * writes names the commit it is about and the run it reports. */
	"CREATE TABLE test_run(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  project_id INTEGER NOT NULL REFERENCES project(id),\n"
	"  patch_id INTEGER REFERENCES patch(id),\n"
	"  commit_hex TEXT NOT NULL,\n"
	"  tree_hex TEXT NOT NULL,\n"
	"  base_hex TEXT,\n"
	"  command TEXT NOT NULL,\n"
	"  purpose TEXT NOT NULL CHECK(purpose IN ('target','bisect',"
	"'confirm','base')),\n"
	"  state TEXT NOT NULL CHECK(state IN ('queued','running','done',"
	"'error')),\n"
	"  forced INTEGER NOT NULL DEFAULT 0,\n"
	"  stale INTEGER NOT NULL DEFAULT 0,\n"
	"  owner INTEGER,\n"
	"  result TEXT CHECK(result IN ('success','fail')),\n"
	"  summary TEXT,\n"
	"  log TEXT,\n"
	"  duration INTEGER,\n"
	"  queued INTEGER NOT NULL,\n"
	"  started INTEGER,\n"
	"  finished INTEGER\n"
	") STRICT;\n"
	"CREATE INDEX test_run_tree ON test_run(tree_hex, command);\n"
	"CREATE INDEX test_run_open ON test_run(state)"
	" WHERE state IN ('queued', 'running');\n"
	"CREATE TABLE test_request(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  project_id INTEGER NOT NULL REFERENCES project(id),\n"
	"  patch_id INTEGER NOT NULL REFERENCES patch(id),\n"
	"  actor TEXT,\n"
	"  time INTEGER NOT NULL\n"
	") STRICT;\n"
	"ALTER TABLE checks ADD COLUMN commit_hex TEXT;\n"
	"ALTER TABLE checks ADD COLUMN duration INTEGER;\n"
	"ALTER TABLE checks ADD COLUMN run_id INTEGER"
	" REFERENCES test_run(id);\n"
	"CREATE INDEX checks_commit ON checks(commit_hex)"
	" WHERE commit_hex IS NOT NULL;\n",
	/* 7: subsystem trees merged into unstable and what went upstream
	 * by forward (docs/DESIGN.md §6).  A tree comes from the configuration
	 * or from a pull-request mail a maintainer staged (pinned to the
	 * commit the mail names); commit_hex is what the last fetch found,
	 * since when it was first seen (the merge commit's date, so that
	 * the same inputs give the same merge), reported the commit a
	 * conflict mail went out for. */
	"CREATE TABLE tree(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  project_id INTEGER NOT NULL REFERENCES project(id),\n"
	"  name TEXT NOT NULL,\n"
	"  url TEXT NOT NULL,\n"
	"  branch TEXT NOT NULL,\n"
	"  owner TEXT,\n"
	"  origin TEXT NOT NULL CHECK(origin IN ('config','mail')),\n"
	"  message_id INTEGER REFERENCES message(id),\n"
	"  pinned TEXT,\n"
	"  commit_hex TEXT,\n"
	"  state TEXT NOT NULL DEFAULT 'new' CHECK(state IN ('new','merged',"
	"'conflict','failed','upstream')),\n"
	"  last_error TEXT,\n"
	"  reported TEXT,\n"
	"  since INTEGER NOT NULL,\n"
	"  pos INTEGER NOT NULL,\n"
	"  UNIQUE(project_id, name)\n"
	") STRICT;\n"
	/* One row per patch and forwarding: the build key tells whether
	 * the patch changed since. */
	"CREATE TABLE forward(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  project_id INTEGER NOT NULL REFERENCES project(id),\n"
	"  patch_id INTEGER NOT NULL REFERENCES patch(id),\n"
	"  key TEXT NOT NULL,\n"
	"  message_id TEXT NOT NULL,\n"
	"  mode TEXT NOT NULL CHECK(mode IN ('series','pull')),\n"
	"  time INTEGER NOT NULL\n"
	") STRICT;\n"
	"CREATE INDEX forward_patch ON forward(patch_id);\n"
	"CREATE INDEX event_patch ON event(patch_id)"
	" WHERE patch_id IS NOT NULL;\n",
	/* 8: a rebuild asks for each queued patch's folded fix-ups; without
	 * an index that was a scan of every patch per queued patch. */
	("CREATE INDEX patch_folded ON patch(folded_into)"
	 " WHERE folded_into IS NOT NULL;\n"),
	/* 9 (issue 42): how each mail authenticated (docs/DESIGN.md §5): the
	 * proof it gave ("dkim d=...", "patatt i=...", "relay ID", "none
	 * required"), or NULL with the reason in auth_note.  Judged once,
	 * as the mail arrives by the road it came (a relay's header is
	 * believed only for the source that names it). */
	("ALTER TABLE message ADD COLUMN auth TEXT;\n"
	 "ALTER TABLE message ADD COLUMN auth_note TEXT;\n"),
	/* 10 (issue 45): search by words in any order (DESIGN.md §9):
	 * an FTS5 index of each series (title, submitter, the Message-IDs
	 * of its first mail and cover letter; rowid the series id) and of
	 * each patch (title, author, Message-ID; rowid minus the patch id),
	 * kept by triggers so that every writer keeps it without knowing.
	 * A row names its series: the series' contribution is looked up
	 * when searching, so linking versions needs no update here. */
	("CREATE VIRTUAL TABLE search USING fts5(series UNINDEXED, title,"
	 " who, msgid, tokenize = 'unicode61 remove_diacritics 2');\n"
	 "INSERT INTO search(rowid, series, title, who, msgid)"
	 " SELECT s.id, s.id, s.title, s.submitter_name || ' ' ||"
	 " s.submitter_email, (SELECT group_concat(msgid, ' ') FROM message"
	 " WHERE id IN (s.first_id, s.cover_id)) FROM series s;\n"
	 "INSERT INTO search(rowid, series, title, who, msgid)"
	 " SELECT -p.id, p.series_id, p.title, p.author_name || ' ' ||"
	 " p.author_email, m.msgid FROM patch p"
	 " JOIN message m ON m.id = p.message_id;\n"
	 "CREATE TRIGGER search_series_add AFTER INSERT ON series BEGIN"
	 " INSERT INTO search(rowid, series, title, who, msgid)"
	 " VALUES(new.id, new.id, new.title, new.submitter_name || ' ' ||"
	 " new.submitter_email, (SELECT group_concat(msgid, ' ') FROM message"
	 " WHERE id IN (new.first_id, new.cover_id))); END;\n"
	 "CREATE TRIGGER search_series_set AFTER UPDATE OF title, first_id,"
	 " cover_id, submitter_name, submitter_email ON series"
	 " WHEN old.title IS NOT new.title OR old.first_id IS NOT new.first_id"
	 " OR old.cover_id IS NOT new.cover_id"
	 " OR old.submitter_name IS NOT new.submitter_name"
	 " OR old.submitter_email IS NOT new.submitter_email BEGIN"
	 " DELETE FROM search WHERE rowid = old.id;"
	 " INSERT INTO search(rowid, series, title, who, msgid)"
	 " VALUES(new.id, new.id, new.title, new.submitter_name || ' ' ||"
	 " new.submitter_email, (SELECT group_concat(msgid, ' ') FROM message"
	 " WHERE id IN (new.first_id, new.cover_id))); END;\n"
	 "CREATE TRIGGER search_series_del AFTER DELETE ON series BEGIN"
	 " DELETE FROM search WHERE rowid = old.id; END;\n"
	 "CREATE TRIGGER search_patch_add AFTER INSERT ON patch BEGIN"
	 " INSERT INTO search(rowid, series, title, who, msgid)"
	 " VALUES(-new.id, new.series_id, new.title, new.author_name || ' ' ||"
	 " new.author_email, (SELECT msgid FROM message"
	 " WHERE id = new.message_id)); END;\n"
	 "CREATE TRIGGER search_patch_set AFTER UPDATE OF series_id, title,"
	 " author_name, author_email, message_id ON patch"
	 " WHEN old.series_id IS NOT new.series_id OR old.title IS NOT"
	 " new.title OR old.author_name IS NOT new.author_name"
	 " OR old.author_email IS NOT new.author_email"
	 " OR old.message_id IS NOT new.message_id BEGIN"
	 " DELETE FROM search WHERE rowid = -old.id;"
	 " INSERT INTO search(rowid, series, title, who, msgid)"
	 " VALUES(-new.id, new.series_id, new.title, new.author_name || ' ' ||"
	 " new.author_email, (SELECT msgid FROM message"
	 " WHERE id = new.message_id)); END;\n"
	 "CREATE TRIGGER search_patch_del AFTER DELETE ON patch BEGIN"
	 " DELETE FROM search WHERE rowid = -old.id; END;\n"),
	/* 11: patchwork's event stream and its people, a page at a time
	 * (storage/sql.c, PW_EVENTS): CI bots poll the events with since=,
	 * and without these every poll read and sorted every message,
	 * event and check.  Each kind of row an event is made of by its
	 * date (the replies about no patch apart: those to cover letters
	 * are few, and a page would read every mail to find them), a cover
	 * letter's series by its row, and one row per person (an address,
	 * any case) under the row of their first mail, which the store adds
	 * with the mail (storage/store_msg.c; not a trigger, which would
	 * make every insert into message dearer, docs/DECISIONS.md; messages
	 * are never deleted). */
	("CREATE INDEX message_date ON message(date);\n"
	 "CREATE INDEX message_nopatch_date ON message(date)"
	 " WHERE patch_id IS NULL;\n"
	 "CREATE INDEX event_time ON event(time);\n"
	 "CREATE INDEX checks_time ON checks(time);\n"
	 "CREATE INDEX series_cover ON series(cover_id)"
	 " WHERE cover_id IS NOT NULL;\n"
	 "CREATE TABLE person(\n"
	 "  id INTEGER PRIMARY KEY REFERENCES message(id),\n"
	 "  email TEXT NOT NULL COLLATE NOCASE UNIQUE\n"
	 ") STRICT;\n"
	 "INSERT INTO person(id, email) SELECT min(id), from_email"
	 " FROM message WHERE from_email != ''"
	 " GROUP BY from_email COLLATE NOCASE;\n"),
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

int
schema_version(void)
{
	return NMIGRATIONS;
}

static enum err
get_version(struct store *st, int *v)
{
	sqlite3_stmt *s = db_stmt(st, SQL_USER_VERSION);
	enum err e = db_row(st, s, "user_version");

	*v = e == ERR_OK ? (int)db_col_int(s, 0) : 0;
	sqlite3_reset(s);
	return e == ERR_NOTFOUND ? ERR_OK : e;
}

enum err
schema_migrate(struct store *st)
{
	char set[64];
	int v, n;
	enum err e;

	if ((e = get_version(st, &v)) != ERR_OK)
		return e;
	if (v > NMIGRATIONS) {
		log_err("store: %s: schema version %d is newer than this "
		        "program's %d",
		    st->path, v, NMIGRATIONS);
		return ERR_DB;
	}
	if (v == NMIGRATIONS)
		return ERR_OK;
	if (st->readonly) {
		log_err("store: %s: schema version %d needs migrating to %d "
		        "(run a command that writes)",
		    st->path, v, NMIGRATIONS);
		return ERR_DB;
	}
	for (; v < NMIGRATIONS; v++) {
		if ((e = store_begin(st)) != ERR_OK)
			return e;
		/* Another process (two `ingest`s after an upgrade) may have
		 * migrated while this one waited for the write lock: the
		 * version read inside the transaction is the one to go on
		 * from. */
		if ((e = get_version(st, &v)) != ERR_OK)
			goto fail;
		if (v >= NMIGRATIONS) {
			store_rollback(st);
			return ERR_OK;
		}
		if ((e = db_script(st, migrations[v], "migration")) != ERR_OK)
			goto fail;
		n = snprintf(
		    set, sizeof(set), "PRAGMA user_version=%d;", v + 1);
		if (n < 0 || (size_t)n >= sizeof(set)) {
			e = ERR_INTERNAL;
			goto fail;
		}
		if ((e = db_script(st, set, "migration version")) != ERR_OK)
			goto fail;
		if ((e = store_commit(st)) != ERR_OK)
			goto fail;
		log_info("store: %s: migrated to schema %d", st->path, v + 1);
	}
	return ERR_OK;
fail:
	store_rollback(st);
	return e;
}
