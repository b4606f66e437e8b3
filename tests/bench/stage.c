/*
 * The staging bench (issue 13).  It makes its own workload, offline and
 * the same on every run (a fixed seed), shaped like the real one
 * docs/PLATFORM.md measured: about 2,500 text files of 5-60 KB in 40 folders,
 * then 300 commits of small edits (1-3 files, 1-4 hunks each) made with
 * git and mailed with git format-patch.  Then, in one run:
 *
 *   - git am of the 300 patches on the base, timed;
 *   - our cold build of the same 300-patch queue (target >= 5x faster);
 *   - our rebuild after dropping patch 150 (target >= 10x);
 *   - our upstream scan of the 300 commits, patch-ids per second, against
 *     git log -p | git patch-id --stable (target >= 1x).
 *
 * It checks what it times: the tree we build equals git am's, the
 * patch-ids equal git's.  Timing is printed, never asserted.
 *
 * Usage: stage WORKDIR   (the workload is made there once and reused)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bot/git/gitremote.h"
#include "bot/git/gitrepo.h"
#include "bot/git/gitscan.h"
#include "bot/git/gitstage.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define NFILES 2500
#define NDIRS 40
#define NPATCHES 300
#define DROP 150 /* 1-based: the patch the rebuild goes without */
#define SEED 0x5eed5eed5eedull
#define STAMP "patchyard stage bench workload v1\n"
#define BASE_TIME 1700000000

static const char *dir;

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t rng = SEED;

static uint64_t
rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned
rnd_in(unsigned lo, unsigned hi)
{
	return lo + (unsigned)(rnd() % (uint64_t)(hi - lo + 1));
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int
sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		fatal("bench: command too long");
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* A command's output, trailing newlines cut. */
static char *out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *
out(const char *fmt, ...)
{
	char cmd[8192];
	struct buf b = BUF_INIT;
	char chunk[65536];
	va_list ap;
	FILE *f;
	size_t r;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd) || (f = popen(cmd, "r")) == NULL)
		fatal("bench: cannot run %s", cmd);
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, r);
	if (pclose(f) != 0)
		fatal("bench: failed: %s", cmd);
	while (b.n > 0 && b.p[b.n - 1] == '\n')
		b.p[--b.n] = '\0';
	return buf_detach(&b, NULL);
}

static char *
slurp(const char *path, size_t *n)
{
	struct buf b = BUF_INIT;
	char chunk[65536];
	FILE *f = fopen(path, "rb");
	size_t r;

	if (f == NULL)
		fatal("bench: %s: %s", path, strerror(errno));
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, r);
	fclose(f);
	return buf_detach(&b, n);
}

static void
spit(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fatal("bench: cannot write %s", path);
}

/* snprintf that never cuts silently. */
static void pathf(char *p, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
pathf(char *p, size_t n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(p, n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= n)
		fatal("bench: text too long");
}

/* ---- the workload ---- */

static char words[256][12];

static void
make_words(void)
{
	static const char *syl[] = { "ka", "lo", "mi", "ne", "ru", "sa", "te",
		"vo", "da", "fi", "gu", "he", "ji", "po", "qu", "ze", "an",
		"el", "is", "or" };
	size_t i, k, ns;

	for (i = 0; i < 256; i++) {
		words[i][0] = '\0';
		ns = rnd_in(1, 4);
		for (k = 0; k < ns; k++)
			strcat(words[i], syl[rnd() % 20]);
	}
}

/* One line of text, 20-90 characters, LF ended. */
static void
text_line(struct buf *b)
{
	unsigned target = rnd_in(20, 90);
	size_t start = b->n;

	if (rnd() % 8 == 0)
		buf_addc(b, '\t');
	while (b->n - start < target) {
		buf_adds(b, words[rnd() % 256]);
		buf_addc(b, rnd() % 11 == 0 ? ',' : ' ');
	}
	b->p[b->n - 1] = '\n';
}

static void
file_name(char *path, size_t n, unsigned i)
{
	pathf(path, n, "%s/work/%.12s%02u/%.12s-%u.txt", dir, words[i % NDIRS],
	    i % NDIRS, words[(i * 7 + 3) % 256], i);
}

static void
make_files(void)
{
	char path[512];
	struct buf b = BUF_INIT;
	unsigned i, size;

	for (i = 0; i < NDIRS; i++) {
		pathf(
		    path, sizeof(path), "%s/work/%.12s%02u", dir, words[i], i);
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			fatal("bench: mkdir %s", path);
	}
	for (i = 0; i < NFILES; i++) {
		buf_reset(&b);
		size = rnd_in(5 * 1024, 60 * 1024);
		while (b.n < size)
			text_line(&b);
		file_name(path, sizeof(path), i);
		spit(path, b.p, b.n);
	}
	buf_free(&b);
}

/* Split text into lines (views into it). */
static size_t
split_lines(char *p, size_t n, struct str **lines)
{
	size_t cap = 0, nl = 0, i = 0, j;

	*lines = NULL;
	while (i < n) {
		const char *e = memchr(p + i, '\n', n - i);
		j = e ? (size_t)(e - p) + 1 : n;
		*lines = xgrow(*lines, &cap, nl + 1, sizeof(**lines));
		(*lines)[nl++] = str_make(p + i, j - i);
		i = j;
	}
	return nl;
}

/* 1-4 separate hunks: replace, insert or delete a few lines each. */
static void
edit_file(const char *path)
{
	struct buf b = BUF_INIT;
	struct str *l;
	size_t n, nl, i, h, nh = rnd_in(1, 4), seg, at[4];
	char *p = slurp(path, &n);

	nl = split_lines(p, n, &l);
	seg = nl / nh;
	for (h = 0; h < nh; h++)
		at[h] = h * seg + 4 + rnd() % (seg > 16 ? seg - 12 : 1);
	for (i = 0, h = 0; i < nl; i++) {
		if (h < nh && i == at[h]) {
			unsigned op = rnd_in(0, 2), k, cnt = rnd_in(1, 3);
			for (k = 0; op != 2 && k < cnt; k++)
				text_line(&b);
			if (op != 1)
				i += cnt - 1; /* replaced or deleted */
			else
				buf_addstr(&b, l[i]);
			h++;
			continue;
		}
		buf_addstr(&b, l[i]);
	}
	spit(path, b.p, b.n);
	buf_free(&b);
	free(l);
	free(p);
}

static void
make_commits(void)
{
	char path[512];
	unsigned k, f, nf;

	for (k = 1; k <= NPATCHES; k++) {
		unsigned pick[3];
		nf = rnd_in(1, 3);
		for (f = 0; f < nf; f++) {
			pick[f] = (unsigned)(rnd() % NFILES);
			if (f > 0 && pick[f] == pick[f - 1])
				pick[f] = (pick[f] + 1) % NFILES;
			file_name(path, sizeof(path), pick[f]);
			edit_file(path);
		}
		if (sh("cd %s/work && GIT_AUTHOR_DATE='%d +0100' "
		       "GIT_COMMITTER_DATE='%d +0100' git commit -qam "
		       "'%s%02u: %s the %s of %s' -m 'Patch %u of the bench.' "
		       "-m 'Signed-off-by: Bench Author <bench@example.org>'",
		        dir, BASE_TIME + (int)k * 60, BASE_TIME + (int)k * 60,
		        words[pick[0] % NDIRS], pick[0] % NDIRS,
		        words[rnd() % 256], words[rnd() % 256],
		        words[rnd() % 256], k) != 0)
			fatal("bench: commit %u failed", k);
	}
}

static void
generate(void)
{
	char stamp[512];

	pathf(stamp, sizeof(stamp), "%s/stamp", dir);
	if (access(stamp, R_OK) == 0) {
		size_t n;
		char *s = slurp(stamp, &n);
		bool same = strcmp(s, STAMP) == 0;
		free(s);
		if (same)
			return;
	}
	fprintf(stderr, "stage bench: making the workload in %s ...\n", dir);
	if (sh("rm -rf %s && mkdir -p %s/work && cd %s/work && "
	       "git init -q -b master && git config gc.auto 0",
	        dir, dir, dir) != 0)
		fatal("bench: cannot make %s", dir);
	make_words();
	make_files();
	if (sh("cd %s/work && git add -A && GIT_AUTHOR_DATE='%d +0100' "
	       "GIT_COMMITTER_DATE='%d +0100' git commit -qm base && "
	       "git tag base",
	        dir, BASE_TIME, BASE_TIME) != 0)
		fatal("bench: base commit failed");
	make_commits();
	if (sh("cd %s/work && git format-patch -q -o ../patches base && "
	       "git gc -q",
	        dir) != 0)
		fatal("bench: format-patch failed");
	pathf(stamp, sizeof(stamp), "%s/stamp", dir);
	spit(stamp, STAMP, strlen(STAMP));
}

/* ---- the measurements ---- */

struct workload {
	struct gitstage_entry e[NPATCHES];
	char *texts[NPATCHES];
	char *log; /* the git log records the entries point into */
	char base[41], tip[41];
};

/* Entries as the lead composes them: author, date and message of the
 * mail (git log of the commit the mail was made from says the same),
 * the mail itself as the diff. */
static void
load(struct workload *w)
{
	char path[512], *rec, *save = NULL, *b, *t;
	size_t i = 0;

	b = out("git -C %s/work rev-parse base", dir);
	t = out("git -C %s/work rev-parse master", dir);
	pathf(w->base, sizeof(w->base), "%s", b);
	pathf(w->tip, sizeof(w->tip), "%s", t);
	free(b);
	free(t);
	w->log = out("git -C %s/work log --reverse --date=raw "
	             "--format='%%H%%x1f%%an%%x1f%%ae%%x1f%%ad%%x1f%%B%%x1e' "
	             "base..master",
	    dir);
	for (rec = strtok_r(w->log, "\x1e", &save); rec && i < NPATCHES;
	     rec = strtok_r(NULL, "\x1e", &save), i++) {
		char *f[5], *s = rec;
		size_t k;
		for (k = 0; k < 5; k++) {
			f[k] = s;
			s = k < 4 ? strchr(s, '\x1f') : NULL;
			if (k < 4 && s == NULL)
				fatal("bench: bad log record");
			if (s)
				*s++ = '\0';
		}
		while (*f[0] == '\n')
			f[0]++;
		w->e[i].key = f[0];
		w->e[i].author_name = f[1];
		w->e[i].author_email = f[2];
		w->e[i].author_time = strtoll(f[3], &s, 10);
		w->e[i].author_tz = (int)strtol(s, NULL, 10);
		w->e[i].author_tz =
		    (w->e[i].author_tz / 100) * 60 + w->e[i].author_tz % 100;
		w->e[i].message = f[4];
		w->e[i].committer_time = BASE_TIME + 100000;
		w->e[i].committer_tz = 0;
		pathf(path, sizeof(path), "%s/patches/%04zu-*", dir, i + 1);
		t = out("ls %s", path);
		w->texts[i] = slurp(t, &w->e[i].diff_len);
		w->e[i].diff = w->texts[i];
		free(t);
	}
	if (i != NPATCHES)
		fatal("bench: %zu patches, not %d", i, NPATCHES);
}

/* Every timing is the best of REPS runs: the machine is shared, and the
 * best run is the one least disturbed by others. */
#define REPS 3

static double
best(double a, double b)
{
	return a < b ? a : b;
}

/* git am of the patches (all but skip) on base in a fresh clone:
 * seconds; the tree in tree. */
static double
time_am(int skip, char tree[41])
{
	char list[NPATCHES * 32], *t;
	size_t o = 0;
	double t0, dt;
	int i;

	for (i = 1; i <= NPATCHES; i++)
		if (i != skip)
			o += (size_t)snprintf(list + o, sizeof(list) - o,
			    " ../patches/%04d-*", i);
	if (o >= sizeof(list))
		fatal("bench: patch list too long");
	if (sh("cd %s && rm -rf am && git clone -q work am && cd am && "
	       "git checkout -q base",
	        dir) != 0)
		fatal("bench: clone failed");
	t0 = time_mono();
	if (sh("cd %s/am && git am -q %s", dir, list) != 0)
		fatal("bench: git am failed");
	dt = time_mono() - t0;
	t = out("git -C %s/am rev-parse 'HEAD^{tree}'", dir);
	pathf(tree, 41, "%s", t);
	free(t);
	return dt;
}

static char *
tree_of(const char *stage, const char *commit)
{
	return out("git -C %s rev-parse '%s^{tree}'", stage, commit);
}

static void
count_hows(const struct gitstage_result *res, size_t n, size_t *applied,
    size_t *reused)
{
	size_t i;

	*applied = *reused = 0;
	for (i = 0; i < n; i++) {
		*applied += res[i].commit[0] != '\0';
		*reused += res[i].reused;
	}
}

struct times {
	double am, am299, cold, rebuild, scan, gitscan;
	char am_tree[41], am299_tree[41];
	char cold_tree[41], rebuild_tree[41];
	size_t applied, reused, rebuilt, scanned, ids_equal;
};

/*
 * One cold build of the queue in a fresh staging repository (a copy of
 * a prepared one: the fetch is not what we time), then the rebuild
 * without patch DROP in the same process, as `patchyard run` would.
 */
static void
builds(struct workload *w, struct times *tm)
{
	static struct gitstage_result cold[NPATCHES], again[NPATCHES];
	static struct gitstage_prev prev[NPATCHES];
	struct gitstage_entry less[NPATCHES - 1];
	struct gitrepo *r = NULL;
	char stage[512], tip[41], tip2[41], *t;
	size_t i, k, applied, reused;
	double t0;

	pathf(stage, sizeof(stage), "%s/stage.git", dir);
	if (sh("rm -rf %s && cp -a %s/stage-template.git %s", stage, dir,
	        stage) != 0 ||
	    gitrepo_open(stage, &r))
		fatal("bench: cannot set up the staging repository");
	t0 = time_mono();
	if (gitstage_build(r, w->base, w->e, NPATCHES, NULL, 0, "patchyard",
	        "bot@example.org", cold, tip))
		fatal("bench: cold build failed");
	tm->cold = best(tm->cold, time_mono() - t0);
	count_hows(cold, NPATCHES, &tm->applied, &reused);
	t = tree_of(stage, tip);
	pathf(tm->cold_tree, 41, "%s", t);
	free(t);

	for (i = 0; i < NPATCHES; i++) {
		prev[i].key = w->e[i].key;
		prev[i].commit = cold[i].commit;
		prev[i].how = cold[i].how;
		prev[i].offset = cold[i].offset;
	}
	for (i = k = 0; i < NPATCHES; i++)
		if (i != DROP - 1)
			less[k++] = w->e[i];
	t0 = time_mono();
	if (gitstage_build(r, w->base, less, NPATCHES - 1, prev, NPATCHES,
	        "patchyard", "bot@example.org", again, tip2))
		fatal("bench: rebuild failed");
	tm->rebuild = best(tm->rebuild, time_mono() - t0);
	count_hows(again, NPATCHES - 1, &applied, &tm->reused);
	tm->rebuilt = applied - tm->reused;
	t = tree_of(stage, tip2);
	pathf(tm->rebuild_tree, 41, "%s", t);
	free(t);
	gitrepo_free(r);
}

/* Our scan of base..master against git log -p | git patch-id. */
static void
scan(struct workload *w, struct times *tm)
{
	struct gitrepo *r = NULL;
	struct gitscan *s = NULL;
	char stage[512], url[512], tip[41], *ids;
	double t0;
	size_t i, n;

	pathf(stage, sizeof(stage), "%s/stage.git", dir);
	pathf(url, sizeof(url), "%s/work", dir);
	if (gitrepo_open(stage, &r) || gitremote_fetch(r, url, "master", tip))
		fatal("bench: cannot fetch upstream into %s", stage);
	gitrepo_free(r);
	/* A new process would open the repository afresh. */
	if (gitrepo_open(stage, &r))
		fatal("bench: cannot open %s", stage);
	t0 = time_mono();
	if (gitscan_range(r, w->base, w->tip, &s))
		fatal("bench: scan failed");
	tm->scan = best(tm->scan, time_mono() - t0);
	t0 = time_mono();
	ids = out("cd %s/work && git log -p base..master | "
	          "git patch-id --stable",
	    dir);
	tm->gitscan = best(tm->gitscan, time_mono() - t0);
	n = gitscan_count(s);
	tm->scanned = n;
	tm->ids_equal = 0;
	for (i = 0; i < n; i++) {
		char line[82];
		pathf(line, sizeof(line), "%s %s", gitscan_at(s, i)->patch_id,
		    gitscan_at(s, i)->commit);
		tm->ids_equal += strstr(ids, line) != NULL;
	}
	gitscan_free(s);
	gitrepo_free(r);
	free(ids);
}

static int
report(const struct times *tm)
{
	int bad = 0;

	printf("stage: %-30s %7.3f s  %5.0f patches/s\n", "git am, 300 patches",
	    tm->am, NPATCHES / tm->am);
	printf("stage: %-30s %7.3f s  %5.1fx git am (target >= 5x)\n",
	    "cold build, 300 patches", tm->cold, tm->am / tm->cold);
	printf("stage:   %zu/%d applied; tree %s git am's\n", tm->applied,
	    NPATCHES,
	    strcmp(tm->cold_tree, tm->am_tree) == 0 ? "equals"
	                                            : "DIFFERS FROM");
	printf("stage: %-30s %7.3f s  %5.1fx git am (target >= 10x)\n",
	    "rebuild without patch 150", tm->rebuild, tm->am / tm->rebuild);
	printf("stage:   %zu reused, %zu built again; tree %s git am's "
	       "(git am of those 299: %.3f s, %.1fx)\n",
	    tm->reused, tm->rebuilt,
	    strcmp(tm->rebuild_tree, tm->am299_tree) == 0 ? "equals"
	                                                  : "DIFFERS FROM",
	    tm->am299, tm->am299 / tm->rebuild);
	printf("stage: %-30s %7.3f s  %5.0f patch-ids/s, %.1fx git log -p | "
	       "git patch-id --stable (%.3f s; target >= 1x)\n",
	    "scan, 300 commits", tm->scan, (double)tm->scanned / tm->scan,
	    tm->gitscan / tm->scan, tm->gitscan);
	printf("stage:   %zu/%zu patch-ids equal git's\n", tm->ids_equal,
	    tm->scanned);
	printf("summary: engine cold %.1fx (>=5) rebuild %.1fx (>=10) scan "
	       "%.1fx (>=1)\n",
	    tm->am / tm->cold, tm->am / tm->rebuild, tm->gitscan / tm->scan);
	bad |= strcmp(tm->cold_tree, tm->am_tree) != 0;
	bad |= strcmp(tm->rebuild_tree, tm->am299_tree) != 0;
	bad |= tm->applied != NPATCHES || tm->reused != DROP - 1;
	bad |= tm->scanned != NPATCHES || tm->ids_equal != NPATCHES;
	return bad;
}

/*
 * The staging repository every build starts from: upstream at the base
 * only.  (Upstream's later commits hold the very trees the patches make;
 * fetched before the builds, they would spare the builds their writes.)
 */
static void
prepare_stage(void)
{
	struct gitrepo *r = NULL;
	char stage[512], url[512], tip[41];

	pathf(stage, sizeof(stage), "%s/stage-template.git", dir);
	pathf(url, sizeof(url), "%s/upstream-base.git", dir);
	sh("rm -rf %s", stage);
	/* libgit2's local transport sends the objects of every ref of the
	 * remote: a clone holding only the base keeps the rest out. */
	if (sh("cd %s && rm -rf upstream-base.git && git -C work branch -f "
	       "bench-base base && git clone -q --bare --single-branch "
	       "--no-tags -b bench-base file://$(pwd)/work upstream-base.git",
	        dir) != 0 ||
	    gitrepo_open(stage, &r) ||
	    gitremote_fetch(r, url, "bench-base", tip))
		fatal("bench: cannot prepare the staging repository");
	gitrepo_free(r);
}

int
main(int argc, char **argv)
{
	static struct workload w;
	struct times tm = { 1e9, 1e9, 1e9, 1e9, 1e9, 1e9, "", "", "", "", 0, 0,
		0, 0, 0 };
	char *sz;
	int rep, bad;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: stage WORKDIR\n");
		return 2;
	}
	dir = argv[1];
	log_set_level(LOG_ERR);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", dir, 1);
	setenv("GIT_AUTHOR_NAME", "Bench Author", 1);
	setenv("GIT_AUTHOR_EMAIL", "bench@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "Bench Committer", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.org", 1);
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		fatal("bench: mkdir %s: %s", dir, strerror(errno));
	generate();
	load(&w);
	prepare_stage();
	sz = out("cd %s/work && echo $(git ls-files | wc -l) files, "
	         "$(git ls-tree -d --name-only HEAD | wc -l) folders, "
	         "$(du -sm --exclude=.git . | cut -f1) MB",
	    dir);
	printf("stage: workload: %s, %d patches; best of %d runs\n", sz,
	    NPATCHES, REPS);
	free(sz);
	for (rep = 0; rep < REPS; rep++) {
		tm.am = best(tm.am, time_am(0, tm.am_tree));
		tm.am299 = best(tm.am299, time_am(DROP, tm.am299_tree));
		builds(&w, &tm);
		scan(&w, &tm);
	}
	bad = report(&tm);
	for (i = 0; i < NPATCHES; i++)
		free(w.texts[i]);
	free(w.log);
	if (bad)
		printf("stage: RESULTS DIFFER FROM GIT\n");
	return bad;
}
