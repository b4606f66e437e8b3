/*
 * A bulk load's checkpoints, on a thread and a connection of their own.
 *
 * In WAL mode every commit appends its pages to the log, and a
 * checkpoint copies them into the database file: a read and a write of
 * every page, and an fsync of each file.  SQLite runs it in the commit
 * that crosses wal_autocheckpoint, and the writer waits for it: on the
 * bench's kernel-list (20,000 mails, 160 MB) its two fdatasync()s took
 * 0.23 and 0.15 s of the writer's 1.5.  Here the writer's commit
 * only wakes the checkpointer (a WAL hook) when the log has grown by
 * `pages` since it last did; the checkpointer runs PASSIVE checkpoints,
 * which never wait for the writer, on its own connection, while the
 * writer goes on with its next batches, pass after pass until one finds
 * little new (ckpt_passes); then the writer copies the few frames it
 * added meanwhile, and its next transaction starts the log over, so the
 * log stays near that size, as with SQLite's own.
 *
 * At the load's end the log is left as it is, and the helper process of
 * store_ckpt_helper() copies it into the database after the load returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/db.h"
#include "storage/store.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/xalloc.h"

/* Passes of one checkpoint at most (see ckpt_passes). */
#define CKPT_PASSES 8

struct ckpt {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sqlite3 *db; /* the checkpointer's connection */
	bool wake, stop;
	bool busy; /* a checkpoint runs */
	bool ran; /* one ran since the writer's last commit */
	int pages; /* log frames between two checkpoints */
	int next; /* the writer's: wake at this many frames */
	int last; /* the writer's: the log's frames at the last commit */
	unsigned long runs; /* checkpoints run (for the tests) */
};

/* The writer's commit: the log holds frames. */
static int
ckpt_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct ckpt *c = arg;
	bool ran, wake = false;
	int log_frames, done;

	if (frames < c->last) /* the log was started over */
		c->next = c->pages;
	c->last = frames;
	pthread_mutex_lock(&c->mu);
	ran = c->ran;
	c->ran = false;
	if (!ran && !c->wake && !c->busy && frames >= c->next) {
		c->next = frames + c->pages;
		c->wake = wake = true;
		pthread_cond_signal(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	/*
	 * The log starts over only at a transaction that begins when all of
	 * it is in the database file, and the writer begins its next one at
	 * once: after the checkpointer has copied the log up to where it
	 * stood, the writer copies what came since (a batch or two) itself.
	 */
	if (ran && !wake)
		sqlite3_wal_checkpoint_v2(
		    db, name, SQLITE_CHECKPOINT_PASSIVE, &log_frames, &done);
	return SQLITE_OK;
}

/*
 * PASSIVE checkpoints until one finds the log grown little since the
 * one before: the writer goes on writing meanwhile, and what a pass
 * leaves, the writer copies itself (see ckpt_hook), which on a large
 * import (100,000 mails, 8 KB each) was 5,000 frames, 150-320 ms a time.
 */
static int
ckpt_passes(struct ckpt *c, int *log_frames, int *done)
{
	int rc = SQLITE_OK, before = -1, k;
	bool stop = false;

	for (k = 0; k < CKPT_PASSES && !stop; k++) {
		rc = sqlite3_wal_checkpoint_v2(
		    c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, log_frames, done);
		if (rc != SQLITE_OK ||
		    (before >= 0 && *log_frames - before <= c->pages / 16))
			break;
		before = *log_frames;
		pthread_mutex_lock(&c->mu);
		stop = c->stop;
		pthread_mutex_unlock(&c->mu);
	}
	return rc;
}

static void *
ckpt_run(void *arg)
{
	struct ckpt *c = arg;
	int rc, log_frames, done;

	thread_helper("yard-ckpt");
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->wake && !c->stop)
			pthread_cond_wait(&c->cv, &c->mu);
		if (c->stop)
			break;
		c->wake = false;
		c->busy = true;
		pthread_mutex_unlock(&c->mu);
		rc = ckpt_passes(c, &log_frames, &done);
		/* BUSY: another checkpoint runs (a reader's, say); the next
		 * wake tries again. */
		if (rc != SQLITE_OK && rc != SQLITE_BUSY)
			log_warn(
			    "store: checkpoint: %s", sqlite3_errmsg(c->db));
		pthread_mutex_lock(&c->mu);
		c->busy = false;
		c->ran = true;
		c->runs++;
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

enum err
ckpt_start(struct store *st, int pages)
{
	struct ckpt *c;
	int off = 0, rc;
	enum err e = ERR_DB;

	if (st->ckpt != NULL)
		return ERR_OK;
	c = xcalloc(1, sizeof(*c));
	c->pages = c->next = pages;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	rc = sqlite3_open_v2(st->path, &c->db,
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		log_err("store: %s: checkpointer: %s", st->path,
		    c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
		goto fail;
	}
	/* Closing it must not checkpoint in the writer's stead; and a
	 * connection learns that the database is in WAL mode (else its
	 * checkpoints do nothing) when it first reads it. */
	sqlite3_db_config(c->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &off);
	rc = sqlite3_exec(
	    c->db, "SELECT count(*) FROM sqlite_master;", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		log_err("store: %s: checkpointer: %s", st->path,
		    sqlite3_errmsg(c->db));
		goto fail;
	}
	if (pthread_create(&c->th, NULL, ckpt_run, c) != 0) {
		log_err("store: %s: cannot start the checkpointer", st->path);
		e = ERR_INTERNAL;
		goto fail;
	}
	/* Replaces SQLite's own hook, wal_autocheckpoint's. */
	sqlite3_wal_hook(st->db, ckpt_hook, c);
	st->ckpt = c;
	return ERR_OK;
fail:
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	sqlite3_close(c->db);
	free(c);
	return e;
}

unsigned long
ckpt_stop(struct store *st)
{
	struct ckpt *c = st->ckpt;
	unsigned long runs;

	if (c == NULL)
		return 0;
	sqlite3_wal_hook(st->db, NULL, NULL);
	pthread_mutex_lock(&c->mu);
	c->stop = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->th, NULL);
	runs = c->runs;
	sqlite3_close(c->db);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
	st->ckpt = NULL;
	return runs;
}

unsigned ckpt_helper_pause_ms;

struct ckpt_helper {
	pid_t pid;
	int sock; /* the caller's end of the socket pair */
};

/* On fd sock, the caller's word: '1' to copy the log, else (or its end
 * closed) to exit. */
static bool
helper_wait(int sock)
{
	char c;
	ssize_t r;

	while ((r = read(sock, &c, 1)) < 0 && errno == EINTR)
		;
	return r == 1 && c == '1';
}

/*
 * The helper of store_ckpt_helper(), forked before the caller opened the
 * database (so without SQLite's state of an open connection, which a
 * process forked later would share with its parent); never returns.
 *
 * It opens the database while the caller's connection is still open:
 * the log's index in the -shm file is then valid and is not rebuilt from
 * every frame of the log (26-34 ms of util-linux's 35 MB), which SQLite
 * does for the first process to open a database.  The caller returns
 * once it has (about a millisecond), so a script that next moves the
 * database aside and makes a new one under its name (the acceptance
 * check `hardening` does) cannot have the helper open half of each;
 * SQLite's last connection then leaves the files under that name alone
 * (it checks that its database has not moved before it checkpoints and
 * removes the log by name), and the explicit checkpoint below copies
 * the log into the database moved aside.
 *
 * The two talk over a socket pair, sent to with MSG_NOSIGNAL: either
 * may be gone (the helper killed, the caller exited), and neither may
 * die of SIGPIPE for it.
 */
static _Noreturn void
helper_main(const char *path, int sock)
{
	sqlite3 *db = NULL;
	/* Its socket moved up before anything lands on 0-2: with the
	 * caller's standard input or error closed, it may be there. */
	int s = fcntl(sock, F_DUPFD, 10), fd;
	bool init;

	/* Out of the caller's session and pipes: a shell or a test that
	 * reads the import's output to its end is not kept waiting. */
	(void)setsid();
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		(void)dup2(fd, STDIN_FILENO);
		(void)dup2(fd, STDOUT_FILENO);
		(void)dup2(fd, STDERR_FILENO);
	}
	/* Its socket at 3. */
	if (s < 0 || dup2(s, 3) != 3) {
		(void)helper_wait(s >= 0 ? s : sock);
		_exit(0);
	}
	closefrom(4);
	(void)prctl(PR_SET_NAME, "yard-checkpoint", 0, 0, 0);
	/* What does not need the database, done while the import runs. */
	init = sqlite3_initialize() == SQLITE_OK;
	if (!helper_wait(3) || !init)
		_exit(0);
	/* A connection knows the database is in WAL mode once it has read
	 * it (and has its log and index open then); the header is enough,
	 * the schema is not needed. */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) ==
	    SQLITE_OK) {
		sqlite3_busy_timeout(db, 10000);
		if (sqlite3_exec(db,
		        "PRAGMA synchronous=NORMAL;"
		        "PRAGMA schema_version;",
		        NULL, NULL, NULL) == SQLITE_OK) {
			if (send(3, "1", 1, MSG_NOSIGNAL) != 1) {
				/* The caller stops waiting when we exit. */
			}
			close(3);
			if (nice(10) == -1) {
				/* Only the order: the user's next command
				 * comes first. */
			}
			if (ckpt_helper_pause_ms)
				usleep(ckpt_helper_pause_ms * 1000u);
			/* PASSIVE: it neither waits for nor holds up another
			 * process's reads and writes. */
			(void)sqlite3_wal_checkpoint_v2(
			    db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		}
	}
	/* The last connection to close copies what came meanwhile and
	 * removes the log; with another open, the log stays for it. */
	sqlite3_close(db);
	_exit(0);
}

int
ckpt_helper_pid(const struct ckpt_helper *h)
{
	return (int)h->pid;
}

struct ckpt_helper *
store_ckpt_helper(const char *path)
{
	struct ckpt_helper *h;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return NULL;
	h = xcalloc(1, sizeof(*h));
	fflush(NULL); /* nothing buffered is written twice */
	h->pid = fork();
	if (h->pid == 0) {
		/* The caller's: a leak checker at the helper's exit (the
		 * tests' valgrind) would count it lost. */
		free(h);
		close(sv[0]);
		helper_main(path, sv[1]);
	}
	close(sv[1]);
	h->sock = sv[0];
	if (h->pid < 0) {
		log_debug("store: %s: no checkpoint helper: %s", path,
		    strerror(errno));
		store_ckpt_handoff(h, path, 0);
		return NULL;
	}
	return h;
}

int
store_ckpt_handoff(struct ckpt_helper *h, const char *path, long long min)
{
	char wal[4096], c;
	struct stat sb;
	struct pollfd pf;
	int k, pid = 0;

	if (h == NULL)
		return 0;
	k = snprintf(wal, sizeof(wal), "%s-wal", path);
	if (h->pid > 0 && k > 0 && (size_t)k < sizeof(wal) &&
	    stat(wal, &sb) == 0 && (long long)sb.st_size >= min &&
	    send(h->sock, "1", 1, MSG_NOSIGNAL) == 1) {
		/* Until it has the files open (a millisecond). */
		pf.fd = h->sock;
		pf.events = POLLIN;
		if (poll(&pf, 1, 2000) != 1 || read(h->sock, &c, 1) != 1) {
			log_debug("store: %s: the checkpoint helper did not "
			          "open it",
			    path);
		} else {
			log_debug(
			    "store: %s: its log (%lld bytes) is copied into "
			    "it by process %ld",
			    path, (long long)sb.st_size, (long)h->pid);
			pid = (int)h->pid;
		}
	}
	/* Else the closed socket lets the helper go. */
	close(h->sock);
	free(h);
	return pid;
}
