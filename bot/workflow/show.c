#include "bot/workflow/show.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parsers/msgid.h"
#include "storage/store_outbox.h"
#include "util/ascii.h"
#include "util/log.h"
#include "util/timeutil.h"

enum err
show_resolve(struct store *st, const char *ref, int64_t *contribution,
    int64_t *series, int64_t *patch)
{
	struct str id;
	char *copy;
	const char *p;
	enum err e;

	*contribution = *series = *patch = 0;
	for (p = ref; *p && ascii_isdigit(*p); p++)
		;
	if (*ref && *p == '\0' && p - ref < 19) {
		*contribution = strtoll(ref, NULL, 10);
		return ERR_OK;
	}
	id = msgid_from_user(str_from(ref));
	if (id.p == NULL) {
		fprintf(stderr,
		    "patchyard: %s: not a contribution id or a "
		    "Message-ID\n",
		    ref);
		return ERR_USAGE;
	}
	copy = str_dup(id);
	e = store_read_msgid(st, copy, contribution, series, patch);
	free(copy);
	return e;
}

static void
json_person(
    struct json *j, const char *key, const char *name, const char *email)
{
	json_key(j, key);
	json_obj_begin(j);
	json_key(j, "name");
	json_str(j, name && *name ? name : NULL);
	json_key(j, "email");
	json_str(j, email && *email ? email : NULL);
	json_obj_end(j);
}

static void
json_time(struct json *j, const char *key, int64_t t)
{
	char when[32];

	json_key(j, key);
	if (t > 0 && time_fmt_iso(when, sizeof(when), t) == ERR_OK)
		json_str(j, when);
	else
		json_null(j);
}

/* The person a trailer names, for telling copies apart: its address,
 * else its whole value (Fixes:, Link:). */
static const char *
trailer_who(const struct view_trailer *t)
{
	return t->email && *t->email ? t->email : t->value;
}

static bool
same_trailer(const struct view_trailer *x, const struct view_trailer *y)
{
	return ascii_stricmp(x->name, y->name) == 0 &&
	    ascii_stricmp(trailer_who(x), trailer_who(y)) == 0;
}

bool
show_trailer_shown(const struct view_patch *p, size_t i)
{
	const struct view_trailer *t = &p->trailers[i];
	size_t k;

	for (k = 0; k < p->ntrailers; k++) {
		const struct view_trailer *o = &p->trailers[k];

		if (k == i || !same_trailer(t, o))
			continue;
		/* The verified copy stands for all; else the first. */
		if (o->verified && !t->verified)
			return false;
		if (o->verified == t->verified && k < i)
			return false;
	}
	return true;
}

static void
json_auth(struct json *j, const char *auth, const char *note)
{
	json_key(j, "authenticated");
	json_str(j, auth);
	json_key(j, "auth_note");
	json_str(j, auth ? NULL : note);
}

void
show_json_patch(struct json *j, const struct view_patch *p)
{
	size_t i;

	json_obj_begin(j);
	json_key(j, "id");
	json_int(j, p->id);
	json_key(j, "message_id");
	json_str(j, p->message_id);
	json_key(j, "number");
	json_int(j, p->number);
	json_key(j, "title");
	json_str(j, p->title);
	json_person(j, "author", p->author_name, p->author_email);
	json_key(j, "slug");
	json_str(j, p->slug);
	json_key(j, "state");
	json_str(j, model_state_name(p->state));
	json_key(j, "queue");
	json_str(j, model_queue_name(p->queue));
	json_key(j, "reason");
	json_str(j, model_reason_name(p->reason));
	json_key(j, "conflict");
	json_bool(j, p->conflict);
	json_key(j, "patch_id");
	json_str(j, p->patch_id);
	json_key(j, "message_id_reused");
	json_bool(j, p->msgid_reused);
	json_auth(j, p->auth, p->auth_note);
	json_key(j, "trailers");
	json_arr_begin(j);
	for (i = 0; i < p->ntrailers; i++) {
		const struct view_trailer *t = &p->trailers[i];

		if (!show_trailer_shown(p, i))
			continue;
		json_obj_begin(j);
		json_key(j, "name");
		json_str(j, t->name);
		json_key(j, "value");
		json_str(j, t->value);
		json_key(j, "message_id");
		json_str(j, t->message_id);
		json_key(j, "verified");
		json_bool(j, t->verified);
		json_auth(j, t->auth, t->auth_note);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void
json_patches(struct json *j, const struct view_series *s)
{
	size_t i;

	json_key(j, "patches");
	json_arr_begin(j);
	for (i = 0; s && i < s->npatches; i++)
		show_json_patch(j, &s->patches[i]);
	json_arr_end(j);
}

static void
json_series(struct json *j, const struct view_series *s)
{
	json_obj_begin(j);
	json_key(j, "id");
	json_int(j, s->id);
	json_key(j, "message_id");
	json_str(j, s->message_id);
	json_key(j, "version");
	json_int(j, s->version);
	json_key(j, "expected");
	json_int(j, s->expected);
	json_key(j, "received");
	json_int(j, s->received);
	json_key(j, "complete");
	json_bool(j, s->complete);
	json_key(j, "state");
	json_str(j, model_state_name(s->state));
	json_patches(j, s);
	json_obj_end(j);
}

static void
json_events(struct json *j, const struct view_contrib *c)
{
	size_t i;
	char when[32];

	json_key(j, "events");
	json_arr_begin(j);
	for (i = 0; i < c->nevents; i++) {
		const struct view_event *e = &c->events[i];

		json_obj_begin(j);
		json_key(j, "time");
		if (time_fmt_iso(when, sizeof(when), e->time) == ERR_OK)
			json_str(j, when);
		else
			json_null(j);
		json_key(j, "kind");
		json_str(j, model_event_name(e->kind));
		json_key(j, "actor");
		json_str(j, e->actor);
		json_key(j, "detail");
		json_str(j, e->detail);
		json_key(j, "message_id");
		json_str(j, e->message_id);
		json_key(j, "slug");
		json_str(j, e->slug);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void
show_json_checks(
    struct json *j, const struct store_check *k, size_t n, int64_t patch)
{
	size_t i;

	json_arr_begin(j);
	for (i = 0; i < n; i++, k++) {
		if (patch && k->patch_id != patch)
			continue;
		json_obj_begin(j);
		json_key(j, "patch_id");
		json_int(j, k->patch_id);
		json_key(j, "context");
		json_str(j, k->context);
		json_key(j, "state");
		json_str(j, k->state);
		json_key(j, "url");
		json_str(j, k->url);
		json_key(j, "summary");
		json_str(j, k->summary);
		json_key(j, "reporter");
		json_str(j, k->reporter);
		json_time(j, "time", k->time);
		json_key(j, "commit");
		json_str(j, k->commit);
		json_key(j, "base");
		json_str(j, k->base_commit);
		json_key(j, "duration");
		if (k->run_id || k->duration_ms > 0)
			json_millis(j, k->duration_ms);
		else
			json_null(j);
		json_key(j, "log_tail");
		json_str(j, k->log);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void
json_checks(struct json *j, const struct view_contrib *c)
{
	json_key(j, "checks");
	show_json_checks(j, c->checks, c->nchecks, 0);
}

static void
json_outbox(struct json *j, const struct view_contrib *c)
{
	size_t i;

	json_key(j, "outbox");
	json_arr_begin(j);
	for (i = 0; i < c->noutbox; i++) {
		const struct store_outbox *o = &c->outbox[i];
		struct str rest = str_from(o->rcpt), line;

		json_obj_begin(j);
		json_key(j, "message_id");
		json_str(j, o->message_id);
		json_key(j, "event");
		json_str(j, o->kind);
		json_key(j, "to");
		json_arr_begin(j);
		while (str_nextline(&rest, &line))
			if (line.n)
				json_strn(j, line.p, line.n);
		json_arr_end(j);
		json_key(j, "state");
		json_str(j, o->state);
		json_key(j, "attempts");
		json_int(j, o->attempts);
		json_key(j, "last_error");
		json_str(j, o->last_error);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void
show_json_contrib(struct json *j, const struct view_contrib *c, bool full)
{
	json_obj_begin(j);
	show_json_contrib_fields(j, c, full);
	json_obj_end(j);
}

void
show_json_summary_head(struct json *j, const struct store_summary *s)
{
	json_key(j, "id");
	json_int(j, s->id);
	json_key(j, "title");
	json_str(j, s->title);
	json_key(j, "state");
	json_str(j, model_state_name(s->state));
	json_person(j, "submitter", s->submitter_name, s->submitter_email);
	json_key(j, "version");
	json_int(j, s->version);
	json_key(j, "patch_count");
	json_int(j, s->patch_count);
	json_key(j, "series_count");
	json_int(j, s->series_count);
}

void
show_json_summary_fields(struct json *j, const struct store_summary *s)
{
	json_time(j, "posted", s->posted);
	json_time(j, "last_activity", s->last_activity);
	json_key(j, "acks");
	json_int(j, s->acks);
	json_key(j, "reviews");
	json_int(j, s->reviews);
	json_key(j, "tests");
	json_int(j, s->tests);
	json_key(j, "test_state");
	json_str(j, s->test_state);
}

void
show_json_contrib_fields(
    struct json *j, const struct view_contrib *c, bool full)
{
	const struct view_series *n = c->newest;
	size_t i;

	json_key(j, "id");
	json_int(j, c->id);
	json_key(j, "title");
	json_str(j, n ? n->title : NULL);
	json_key(j, "state");
	json_str(j, model_state_name(store_read_state(c)));
	json_person(j, "submitter", n ? n->submitter_name : NULL,
	    n ? n->submitter_email : NULL);
	json_key(j, "version");
	if (n)
		json_int(j, n->version);
	else
		json_null(j);
	/* One copy per patch number (docs/DESIGN.md §12). */
	json_key(j, "patch_count");
	json_int(j, n ? (int64_t)n->received : 0);
	json_key(j, "series");
	json_arr_begin(j);
	for (i = 0; i < c->nseries; i++)
		json_series(j, &c->series[i]);
	json_arr_end(j);
	json_patches(j, n);
	if (full) {
		json_checks(j, c);
		json_events(j, c);
		json_outbox(j, c);
	}
}

static void
text_line(const struct view_contrib *c)
{
	const struct view_series *n = c->newest;
	char q[160], who[96];

	log_quote(q, sizeof(q), n ? n->title : "", n ? strlen(n->title) : 0);
	log_quote(who, sizeof(who), n ? n->submitter_email : "",
	    n ? strlen(n->submitter_email) : 0);
	printf("%6" PRId64 "  %-17s v%-2d %2zu/%-2d  %s  <%s>\n", c->id,
	    model_state_name(store_read_state(c)), n ? n->version : 0,
	    n ? (size_t)n->received : 0, n ? n->expected : 0, q, who);
}

/* One line of `list`: what a maintainer scans for, as patchwork's list
 * shows it. */
static void
summary_line(const struct store_summary *s)
{
	char q[160], who[96], posted[16], last[16], art[32];

	log_quote(q, sizeof(q), s->title, strlen(s->title));
	log_quote(
	    who, sizeof(who), s->submitter_email, strlen(s->submitter_email));
	if (time_fmt_date(posted, sizeof(posted), s->posted) != ERR_OK)
		posted[0] = '\0';
	if (time_fmt_date(last, sizeof(last), s->last_activity) != ERR_OK)
		last[0] = '\0';
	if (snprintf(art, sizeof(art), "%d/%d/%d", s->acks, s->reviews,
	        s->tests) >= (int)sizeof(art))
		art[0] = '\0';
	printf("%6" PRId64 "  %-17s v%-2d %2d/%-2d  %-10s  %-10s  %-8s %-7s  "
	       "%s  <%s>\n",
	    s->id, model_state_name(s->state), s->version, s->patch_count,
	    s->expected, posted, last, art, s->test_state ? s->test_state : "-",
	    q, who);
}

int
show_list(struct store *st, const struct store_filter *f, bool json)
{
	struct arena *a = arena_new(), *ca = arena_new();
	struct store_summary *sum = NULL;
	struct buf out = BUF_INIT;
	struct json j;
	size_t n = 0, i;
	bool more;
	enum err e = store_web_summaries(st, a, f, &sum, &n, &more);

	json_init(&j, &out, false);
	json_arr_begin(&j);
	if (!json && e == ERR_OK && isatty(STDOUT_FILENO))
		printf("%6s  %-17s %-3s %5s  %-10s  %-10s  %-8s %-7s  %s\n",
		    "ID", "STATE", "VER", "N/N", "POSTED", "ACTIVITY", "A/R/T",
		    "TESTS", "TITLE  <SUBMITTER>");
	for (i = 0; i < n && e == ERR_OK; i++) {
		struct view_contrib c;

		if (!json) {
			summary_line(&sum[i]);
			continue;
		}
		arena_reset(ca);
		if ((e = store_read_contrib(st, ca, sum[i].id, false, &c)))
			break;
		json_obj_begin(&j);
		show_json_contrib_fields(&j, &c, false);
		show_json_summary_fields(&j, &sum[i]);
		json_obj_end(&j);
		if (out.n > 1 << 20) {
			fwrite(out.p, 1, out.n, stdout);
			buf_reset(&out);
		}
	}
	json_arr_end(&j);
	if (json && e == ERR_OK) {
		fwrite(out.p, 1, out.n, stdout);
		putchar('\n');
	}
	buf_free(&out);
	arena_free(ca);
	arena_free(a);
	return e == ERR_OK ? 0 : 1;
}

static void
text_patch(const struct view_patch *p)
{
	const char *queue = model_queue_name(p->queue);
	char q[160];
	size_t i;

	log_quote(q, sizeof(q), p->title, strlen(p->title));
	printf("    %2d  %-12s %s%s%s  %s\n", p->number,
	    model_state_name(p->state), queue ? "(" : "", queue ? queue : "",
	    queue ? ") " : "", q);
	printf("        %s  patch-id %s\n", p->slug,
	    p->patch_id ? p->patch_id : "-");
	if (p->msgid_reused)
		printf("        its Message-ID is reused by another mail: "
		       "commands answering it are refused\n");
	for (i = 0; i < p->ntrailers; i++) {
		const struct view_trailer *t = &p->trailers[i];

		if (t->own || !show_trailer_shown(p, i))
			continue;
		log_quote(q, sizeof(q), t->value, strlen(t->value));
		printf("        %s: %s%s\n", t->name, q,
		    t->verified ? "" : "  (unverified)");
	}
}

/* The slug of a patch of c, by row id ("" when not among them). */
static const char *
slug_of(const struct view_contrib *c, int64_t patch_id)
{
	size_t i, k;

	for (i = 0; i < c->nseries; i++)
		for (k = 0; k < c->series[i].npatches; k++)
			if (c->series[i].patches[k].id == patch_id)
				return c->series[i].patches[k].slug;
	return "";
}

static void
text_checks(const struct view_contrib *c)
{
	char when[32], q[200], u[200];
	size_t i;

	if (c->nchecks)
		printf("  checks:\n");
	for (i = 0; i < c->nchecks; i++) {
		const struct store_check *k = &c->checks[i];

		if (time_fmt_iso(when, sizeof(when), k->time) != ERR_OK)
			when[0] = '\0';
		log_quote(q, sizeof(q), k->context, strlen(k->context));
		printf("    %s  %s %s  %s", when, q, k->state,
		    slug_of(c, k->patch_id));
		if (k->commit)
			printf("  %.12s", k->commit);
		if (k->run_id || k->duration_ms > 0)
			printf("  %lld.%03llds",
			    (long long)(k->duration_ms / 1000),
			    (long long)(k->duration_ms % 1000));
		putchar('\n');
		if (k->summary) {
			log_quote(q, sizeof(q), k->summary, strlen(k->summary));
			printf("        %s\n", q);
		}
		if (k->url) {
			log_quote(u, sizeof(u), k->url, strlen(k->url));
			printf("        %s\n", u);
		}
	}
}

static void
text_contrib(const struct view_contrib *c)
{
	size_t i, k;
	char q[200], when[32];

	text_line(c);
	for (i = 0; i < c->nseries; i++) {
		const struct view_series *s = &c->series[i];

		log_quote(q, sizeof(q), s->message_id, strlen(s->message_id));
		printf("  v%d  %d/%d%s  %s  <%s>\n", s->version, s->received,
		    s->expected, s->complete ? "" : " incomplete",
		    model_state_name(s->state), q);
		for (k = 0; k < s->npatches; k++)
			text_patch(&s->patches[k]);
	}
	text_checks(c);
	for (i = 0; i < c->nevents; i++) {
		const struct view_event *e = &c->events[i];

		if (time_fmt_iso(when, sizeof(when), e->time) != ERR_OK)
			when[0] = '\0';
		log_quote(q, sizeof(q), e->detail ? e->detail : "",
		    e->detail ? strlen(e->detail) : 0);
		printf("  %s  %s %s %s\n", when, model_event_name(e->kind),
		    e->slug ? e->slug : "", q);
	}
}

int
show_one(struct store *st, const char *ref, bool json)
{
	struct arena *a = arena_new();
	struct view_contrib c;
	int64_t cid, sid, pid;
	enum err e = show_resolve(st, ref, &cid, &sid, &pid);

	if (e == ERR_OK)
		e = store_read_contrib(st, a, cid, true, &c);
	if (e == ERR_NOTFOUND)
		fprintf(stderr, "patchyard: %s: no such contribution\n", ref);
	if (e == ERR_OK && json) {
		struct buf out = BUF_INIT;
		struct json j;

		json_init(&j, &out, false);
		show_json_contrib(&j, &c, true);
		fwrite(out.p, 1, out.n, stdout);
		putchar('\n');
		buf_free(&out);
	} else if (e == ERR_OK) {
		text_contrib(&c);
	}
	arena_free(a);
	return e == ERR_OK ? 0 : e == ERR_USAGE ? 2 : 1;
}
