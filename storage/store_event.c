#include "storage/store_event.h"

#include "storage/db.h"

enum err
store_event_add(struct store *st, const struct store_event *ev, int64_t *id)
{
	sqlite3_stmt *s = db_stmt(st, SQL_EVENT_ADD);
	enum err e;

	db_bind_int(s, ":time", ev->time);
	db_bind_text(s, ":kind", model_event_name(ev->kind));
	db_bind_id(s, ":contribution", ev->contribution_id);
	db_bind_id(s, ":series", ev->series_id);
	db_bind_id(s, ":patch", ev->patch_id);
	db_bind_id(s, ":message", ev->message_id);
	db_bind_text(s, ":actor", ev->actor);
	db_bind_text(s, ":detail", ev->detail);
	if ((e = db_exec(st, s, "event add")) == ERR_OK && id)
		*id = sqlite3_last_insert_rowid(st->db);
	return e;
}
