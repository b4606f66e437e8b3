#!/usr/bin/python3
"""`patchyard am` against `b4 --offline-mode am -m` on the corpus.

Usage: b4cmp.py CORPUS PATCHYARD CONFIG WORKDIR [EXPECTED [--update]]

CORPUS is the util-linux archive (mboxrd, gzip or not); CONFIG names a
database the corpus was imported into.  For every thread in which a patch
or a cover letter got a Reviewed-by, Acked-by or Tested-by in a reply,
the thread is cut out of the corpus (b4 reads the whole mbox otherwise,
for seconds per thread), b4 makes its am mbox, `patchyard am` makes its
own of the same series, and both go through `git mailsplit` and `git
mailinfo` as `git am` would read them.  Per patch, author, date, subject,
commit message, trailers and the patch are compared.

Every difference is printed with its Message-ID and a reason.  A reason is
"known" when it is one of the differences docs/ORACLES.md explains; the
EXPECTED file pins the known ones, one "Message-ID field reason" a line,
so that a new difference, or one that went away, fails the test.  With
--update the file is rewritten instead.  Exit 0 when the differences are
exactly the expected ones, 1 otherwise.
"""
import collections
import concurrent.futures
import email
import email.header
import email.utils
import gzip
import json
import os
import re
import subprocess
import sys

REVIEW = re.compile(r'^\s*(Reviewed|Acked|Tested)-by:\s+\S.*\S@\S+\.\S',
                    re.I | re.M)
B4_SEP = b'From git@z Thu Jan  1 00:00:00 1970\n'


# ---- the corpus and its threads ----

def read_mbox(path):
    """The mails of an mboxrd file as raw chunks, each with its From_ line.
    mboxrd escapes every body line that starts with "From ", so a line
    that starts with it unescaped begins the next mail."""
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        data = f.read()
    starts = [m.start() for m in re.finditer(rb'^From ', data, re.M)]
    return [data[s:e] for s, e in zip(starts, starts[1:] + [len(data)])]


def decode_header(h):
    if h is None:
        return ''
    try:
        return str(email.header.make_header(email.header.decode_header(str(h))))
    except (LookupError, UnicodeError, email.errors.HeaderParseError):
        return str(h)


def bare(msgid):
    return (msgid or '').strip().strip('<>').strip()


def refs_of(msg):
    """Every Message-ID named by In-Reply-To and References, found both as
    <...> tokens and as b4 finds them (email.utils.getaddresses)."""
    out = []
    for name in ('in-reply-to', 'references'):
        for v in msg.get_all(name, []):
            v = str(v)
            out += re.findall(r'<([^<>\s]+)>', v)
            out += [a[1] for a in email.utils.getaddresses([v]) if a[1]]
    return out


def parent_of(msg):
    found = re.findall(r'<([^<>\s]+)>', str(msg.get('in-reply-to') or ''))
    if not found:
        found = re.findall(r'<([^<>\s]+)>', str(msg.get('references') or ''))
        found = found[-1:]
    return found[0] if found else None


def text_of(msg):
    out = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_type() != 'text/plain':
            continue
        try:
            raw = part.get_payload(decode=True) or b''
        except (ValueError, TypeError):
            continue
        try:
            out.append(raw.decode(part.get_content_charset() or 'utf-8',
                                  'replace'))
        except LookupError:
            out.append(raw.decode('utf-8', 'replace'))
    return '\n'.join(out)


class Corpus:
    def __init__(self, path):
        self.chunks = read_mbox(path)
        self.msgs = [email.message_from_bytes(c[c.index(b'\n') + 1:])
                     for c in self.chunks]
        self.ids = [bare(m['message-id']) for m in self.msgs]
        self.first = {}
        for i, mid in enumerate(self.ids):
            self.first.setdefault(mid, i)
        subj = [decode_header(m['subject']) for m in self.msgs]
        reply = [bool(re.match(r'\s*(re|aw|fwd?)\s*:', s, re.I)) for s in subj]
        self.is_patch = [not reply[i] and
                         bool(re.match(r'\s*\[[^\]]*PATCH', subj[i], re.I))
                         for i in range(len(subj))]
        self.union = {}
        for i, m in enumerate(self.msgs):
            self._find(self.ids[i])
            for r in refs_of(m):
                self._join(self.ids[i], r)

    def _find(self, x):
        u = self.union
        while u.setdefault(x, x) != x:
            u[x] = u[u[x]]
            x = u[x]
        return x

    def _join(self, a, b):
        self.union[self._find(a)] = self._find(b)

    def origin(self, msgid):
        """The nearest patch or cover letter at or above msgid."""
        i, seen = self.first.get(msgid), set()
        while i is not None and not self.is_patch[i] and i not in seen:
            seen.add(i)
            i = self.first.get(parent_of(self.msgs[i]))
        return None if i is None or not self.is_patch[i] else self.ids[i]

    def is_cover(self, msgid):
        i = self.first.get(msgid)
        return i is not None and bool(re.search(
            r'\[[^\]]*\b0+/\d+[^\]]*\]', decode_header(self.msgs[i]['subject'])))

    def reviewed_threads(self):
        """{thread root: (reviewed patch/cover Message-IDs, mail indexes)}:
        threads where a reply that is not itself a patch holds an unquoted
        Reviewed-by/Acked-by/Tested-by with an address, and its nearest
        ancestor (In-Reply-To, else the last of References) that is a
        patch or cover letter is in the corpus."""
        members = collections.defaultdict(list)
        for i, mid in enumerate(self.ids):
            members[self._find(mid)].append(i)
        got = collections.defaultdict(set)
        for i, m in enumerate(self.msgs):
            if self.is_patch[i]:
                continue
            if not REVIEW.search(text_of(m).split('\n-- \n')[0]):
                continue
            j, seen = i, set()
            while True:
                p = parent_of(self.msgs[j])
                if p is None or p not in self.first or p in seen:
                    break
                seen.add(p)
                j = self.first[p]
                if self.is_patch[j]:
                    got[self._find(self.ids[i])].add(self.ids[j])
                    break
        return {k: (sorted(v), members[k]) for k, v in got.items()}


# ---- running the tools ----

class Tools:
    def __init__(self, work, yard, conf):
        self.work = work
        self.yard = [os.path.abspath(yard), "-c", os.path.abspath(conf)]
        home = os.path.join(work, 'home')
        os.makedirs(home, exist_ok=True)
        self.env = dict(os.environ, HOME=home, GIT_CONFIG_NOSYSTEM='1',
                        GIT_CONFIG_GLOBAL=os.path.join(home, '.gitconfig'),
                        XDG_CONFIG_HOME=os.path.join(home, '.config'),
                        XDG_CACHE_HOME=os.path.join(home, '.cache'),
                        XDG_DATA_HOME=os.path.join(home, '.local'),
                        LC_ALL='C.UTF-8')
        for k, v in (('user.name', 'b4cmp'), ('user.email', 'b4cmp@example.org')):
            self.run(['git', 'config', '--global', k, v])

    def run(self, argv, stdin=None, cwd=None, check=True):
        r = subprocess.run(argv, input=stdin, capture_output=True,
                           env=self.env, cwd=cwd or self.work)
        if check and r.returncode:
            raise RuntimeError('%s: exit %d: %s' % (
                ' '.join(argv), r.returncode, r.stderr.decode('utf-8', 'replace')))
        return r

    def b4(self, tag, mbox, msgid, extra=()):
        """b4's am mbox (bytes, or None) and its log."""
        out = os.path.join(self.work, 'b4-' + tag)
        os.makedirs(out, exist_ok=True)
        for f in os.listdir(out):
            os.unlink(os.path.join(out, f))
        r = self.run(['b4', '--offline-mode', '--no-stdin', 'am', '-m', mbox,
                      '-o', out] + list(extra) + [msgid], check=False)
        log = (r.stdout + r.stderr).decode('utf-8', 'replace')
        mbx = [f for f in os.listdir(out) if f.endswith('.mbx')]
        if not mbx:
            return None, None, log
        with open(os.path.join(out, mbx[0]), 'rb') as f:
            data = f.read()
        m = re.match(r'v(\d+)_', mbx[0])
        return data, int(m.group(1)) if m else 1, log

    def show(self, ref):
        r = self.run(self.yard + ['show', '--json', ref], check=False)
        return json.loads(r.stdout) if r.returncode == 0 else None

    def am(self, ref):
        return self.run(self.yard + ['am', ref]).stdout

    def mailinfo(self, mbox, tag):
        """Each mail of mbox as `git am` reads it: git mailsplit (mbox, no
        mboxrd unescaping, as git am does by default), then git mailinfo
        with git am's defaults.  A list of dicts."""
        d = os.path.join(self.work, 'split-' + tag)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        path = os.path.join(d, 'in.mbox')
        with open(path, 'wb') as f:
            f.write(mbox)
        self.run(['git', 'mailsplit', '-o' + d, path])
        out = []
        for name in sorted(f for f in os.listdir(d) if f.isdigit()):
            with open(os.path.join(d, name), 'rb') as f:
                raw = f.read()
            r = self.run(['git', 'mailinfo', 'msg', 'patch'], stdin=raw, cwd=d)
            info = dict(line.split(': ', 1) if ': ' in line else (line.rstrip(':'), '')
                        for line in r.stdout.decode('utf-8', 'replace').splitlines()
                        if line)
            with open(os.path.join(d, 'msg'), 'rb') as f:
                msg = f.read().decode('utf-8', 'replace')
            with open(os.path.join(d, 'patch'), 'rb') as f:
                info['patch'] = f.read().decode('utf-8', 'replace')
            info['message'] = stripspace(msg)
            info['trailers'] = self.trailers(info.get('Subject', '') + '\n\n' +
                                             info['message'])
            hdr = email.message_from_bytes(raw)
            info['msgid'] = bare(hdr['message-id'])
            info['RawSubject'] = decode_header(hdr['subject'])
            out.append(info)
        return out

    def trailers(self, message):
        r = self.run(['git', 'interpret-trailers', '--parse'],
                     stdin=message.encode())
        return [tuple(t.split(': ', 1)) if ': ' in t else (t, '')
                for t in r.stdout.decode('utf-8', 'replace').splitlines()]


def stripspace(text):
    """What `git am` does to a commit message (git stripspace): trailing
    blanks off every line, runs of blank lines made one, none at either
    end, a final newline."""
    out, blank = [], False
    for line in text.split('\n'):
        line = line.rstrip()
        if not line:
            blank = bool(out)
            continue
        if blank:
            out.append('')
        blank = False
        out.append(line)
    return '\n'.join(out) + '\n' if out else ''


def body_of(info):
    """The commit message without its trailer block."""
    paras = info['message'].rstrip('\n').split('\n\n')
    if info['trailers'] and len(paras) > 1:
        paras = paras[:-1]
    elif info['trailers']:
        paras = []
    return '\n\n'.join(paras)


# ---- b4's log ----

def b4_notes(log):
    """What b4 said about trailers it did not apply: those sent to the
    cover letter, and those whose address does not match the sender."""
    cover, mismatch = [], []
    mode = None
    for line in log.splitlines():
        if 'Some trailers were sent to the cover letter' in line:
            mode = cover
        elif 'trailers ignored due to from/email mismatches' in line:
            mode = mismatch
        elif line.startswith('NOTE: Rerun') or line.startswith('---'):
            mode = None
        elif mode is cover:
            cover.append(line.strip())
        elif mode is mismatch and line.strip().startswith('! Trailer:'):
            mismatch.append(line.strip()[len('! Trailer:'):].strip())
    return cover, mismatch


# ---- comparing ----

class Thread:
    def __init__(self, n, root, reviewed, members):
        self.n = n
        self.root = root
        self.reviewed = reviewed
        self.members = members
        self.msgid = reviewed[0]
        self.diffs = []  # (Message-ID, field, reason, detail)
        self.compared = 0
        self.agreeing = 0
        self.note = ''

    def differ(self, mid, field, reason, detail=''):
        self.diffs.append((mid, field, reason, detail))


def fmt_trailers(ts):
    return '; '.join('%s: %s' % t for t in ts) or '(none)'


def same_trailer(x, y):
    return x[0].lower() == y[0].lower() and x[1].lower() == y[1].lower()


def minus(xs, ys):
    """The trailers of xs that ys lacks (as b4 compares them)."""
    left = list(ys)
    out = []
    for x in xs:
        for i, y in enumerate(left):
            if same_trailer(x, y):
                del left[i]
                break
        else:
            out.append(x)
    return out


class Context:
    """What is known about one compared series besides the two mboxes."""
    def __init__(self, corpus, series, thread_ids, cover_t, mismatched):
        self.corpus = corpus
        self.thread_ids = thread_ids  # Message-IDs b4 looked at
        self.cover_t = cover_t  # b4 -t trailers per Message-ID, or None
        self.mismatched = mismatched  # b4's "ignored" trailers
        # patchyard's trailers per Message-ID, and the series' own mails
        self.records = {p['message_id']: p['trailers'] for p in series['patches']}
        self.own = set(self.records) | {series['message_id']}


def trailer_reasons(b, y, mid, ctx):
    """Why patchyard's trailers y differ from b4's b, one reason per
    trailer that only one side has (see docs/ORACLES.md)."""
    reasons = set()
    recs = ctx.records.get(mid, [])
    for tr in minus(y, b):
        rec = [r for r in recs if same_trailer(tr, (r['name'], r['value']))]
        origin = ctx.corpus.origin(rec[0]['message_id']) if rec else None
        if rec and rec[0]['message_id'] not in ctx.thread_ids:
            reasons.add('b4-unseen-mail')
        elif origin is not None and origin not in ctx.own:
            # Given to an older version and carried over: to its cover
            # letter (b4 carries only what was given to the patch), or to
            # the patch (b4 carries by patchwork hash, we by patch-id).
            reasons.add('carried-cover-trailer' if ctx.corpus.is_cover(origin)
                        else 'carried')
        elif ctx.cover_t is not None and minus([tr], ctx.cover_t.get(mid, [])) == []:
            reasons.add('cover-trailer')
        else:
            reasons.add('unexplained')
    for tr in minus(b, y):
        if tr[0].lower() in ('subject', 'date'):
            reasons.add('b4-pasted-header')
        elif '%s: %s' % tr in ctx.mismatched:
            reasons.add('b4-ancestor-trailer')
        elif tr[0].lower() == 'signed-off-by':
            reasons.add('reply-signoff')
        else:
            reasons.add('unexplained')
    # The trailers both have must come in the same order (b4 -t's, when
    # cover letter trailers are involved).
    ref = ctx.cover_t.get(mid, b) if ctx.cover_t is not None else b
    both_y = [x for x in y if not minus([x], ref)]
    both_ref = [x for x in ref if not minus([x], y)]
    if len(both_y) != len(both_ref) or \
            any(not same_trailer(p, q) for p, q in zip(both_y, both_ref)):
        reasons.add('trailer-order')
    if not reasons and [t[0] for t in b] != [t[0] for t in y] and \
            [t[0].lower() for t in b] == [t[0].lower() for t in y]:
        reasons.add('name-case')
    return '+'.join(sorted(reasons)) or 'unexplained'


def when(date):
    try:
        return email.utils.parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError):
        return date


def patch_reason(ctx, mid):
    """Why the diff b4 gives differs from ours, when the mail says so:
    b4 re-creates a format=flowed mail without that parameter, so git
    mailinfo no longer undoes the flowing on b4's copy, while patchyard
    reads the mail as git am reads the original; and b4 does not see a
    patch sent as an application/x-patch attachment."""
    i = ctx.corpus.first.get(mid)
    if i is None:
        return None
    m = ctx.corpus.msgs[i]
    for part in m.walk():
        if part.get_content_type() == 'text/plain' and \
                (part.get_param('format') or '').lower() == 'flowed':
            return 'b4-keeps-flowed'
        if part.get_content_type() in ('application/x-patch', 'application/x-diff'):
            return 'b4-attachment'
    return None


def compare_patch(t, b, y, ctx):
    """Field by field; True when the two agree."""
    diffs = len(t.diffs)
    mid = b['msgid']
    for field, key in (('author', lambda i: (i.get('Author'), i.get('Email'))),
                       ('date', lambda i: when(i.get('Date'))),
                       ('subject', lambda i: i.get('Subject')),
                       ('patch', lambda i: i['patch'])):
        if key(b) != key(y):
            # Another copy of the patch was sent later: its own date.
            reason = 'other-copy' if field == 'date' and b['msgid'] != y['msgid'] else field
            if field == 'patch':
                reason = patch_reason(ctx, mid) or field
            t.differ(mid, field, reason, '' if field == 'patch' else
                     '%r != %r' % (key(b), key(y)))
    if b['trailers'] != y['trailers']:
        t.differ(mid, 'trailers', trailer_reasons(b['trailers'], y['trailers'], mid, ctx),
                 'b4: %s | patchyard: %s' % (fmt_trailers(b['trailers']),
                                              fmt_trailers(y['trailers'])))
        if body_of(b) != body_of(y):
            t.differ(mid, 'message', patch_reason(ctx, mid) or 'message')
    elif b['message'] != y['message']:
        # The same trailers: either only blank lines differ, or the text.
        same = [x for x in b['message'].split('\n') if x] == \
            [x for x in y['message'].split('\n') if x]
        t.differ(mid, 'message', 'layout' if same else
                 patch_reason(ctx, mid) or 'message')
    return len(t.diffs) == diffs


def yard_series(tools, b4ids, revision):
    """patchyard's contribution and the series b4 picked: of those holding
    any of b4's patches, the one with b4's version (a partial re-roll
    holds few of them), then the one holding most."""
    c = None
    for mid in b4ids:
        c = tools.show(mid)
        if c:
            break
    if not c:
        return None, None
    best, score = None, (False, False, 0)
    for s in c['series']:
        have = {p['message_id'] for p in s['patches']}
        n = len(have & set(b4ids))
        sc = (n > 0, s['version'] == revision, n)
        if sc > score:
            best, score = s, sc
    return c, best


def b4_thread(path, msgid):
    """The Message-IDs b4 analyses for msgid: its own get_strict_thread."""
    import mailbox
    import b4
    msgs = b4.get_strict_thread(mailbox.mbox(path), msgid) or []
    return {b4.LoreMessage.get_clean_msgid(m) for m in msgs}


def unfold_subjects(chunk):
    """A mail with its Subject: header on one line (b4 0.12 fails on a
    folded Subject under Python 3.11's email policy)."""
    head, sep, body = chunk.partition(b'\n\n')
    head = re.sub(rb'(?im)^(subject:.*?)\n(?=[ \t])', rb'\1', head)
    return head + sep + body


def number_of(info):
    m = re.search(r'(\d+)/(\d+)\s*\]', info.get('RawSubject', ''))
    return int(m.group(1)) if m else 1


def compare_series(tools, corpus, t, tag, cut, b4mbox, log, revision, vflag):
    b4 = tools.mailinfo(b4mbox, tag + 'b')
    c, s = yard_series(tools, [i['msgid'] for i in b4], revision)
    if s is None:
        return False
    t.note = 'b4 v%d, patchyard series <%s> v%d' % (revision, s['message_id'], s['version'])
    cover, mismatched = b4_notes(log)
    cover_t = None
    if cover:
        tmbox, _, _ = tools.b4(tag + 't', cut, t.msgid, vflag + ['-t'])
        cover_t = {i['msgid']: i['trailers'] for i in tools.mailinfo(tmbox, tag + 't')}
    ctx = Context(corpus, s, b4_thread(cut, t.msgid), cover_t, mismatched)
    # b4 reads no patch sent as an attachment: nothing to compare.
    att = [p['message_id'] for p in s['patches']
           if patch_reason(ctx, p['message_id']) == 'b4-attachment']
    if att:
        t.differ(att[0], 'series', 'b4-attachment', 'b4 does not read the attachment')
        return True
    yard = {number_of(i): i for i in tools.mailinfo(tools.am(s['message_id']), tag + 'y')}
    for b in b4:
        y = yard.pop(number_of(b), None)
        if y is None:
            t.differ(b['msgid'], 'patch', 'missing', 'only in b4')
            continue
        if y['msgid'] != b['msgid']:
            t.differ(b['msgid'], 'mail', 'other-copy',
                     'patchyard has <%s>' % y['msgid'])
        t.compared += 1
        t.agreeing += compare_patch(t, b, y, ctx)
    for y in yard.values():
        t.differ(y['msgid'], 'patch', 'extra', 'only in patchyard')
    return True


def reviewed_version(tools, t):
    """The newest version of the contribution a reviewed mail is in."""
    for mid in t.reviewed:
        c = tools.show(mid)
        if c:
            return c['version']
    return None


def run_b4(tools, corpus, t, tag, cut, extra=()):
    """b4 on the thread; when it fails on a folded Subject: (b4 0.12 under
    Python 3.11), again on a copy with every Subject: unfolded, which is
    the same mail (RFC 5322 unfolding), and the thread keeps that copy."""
    b4mbox, revision, log = tools.b4(tag, cut, t.msgid, extra)
    if b4mbox is None and 'may not contain linefeed' in log:
        t.differ(t.msgid, 'b4', 'b4-folded-subject',
                 'compared on a copy with unfolded Subject:')
        with open(cut, 'wb') as f:
            for i in t.members:
                f.write(unfold_subjects(corpus.chunks[i]))
        b4mbox, revision, log = tools.b4(tag, cut, t.msgid, extra)
    if b4mbox is None:
        t.differ(t.msgid, 'b4', 'b4-none', (log.strip().splitlines() or [''])[-1])
    return b4mbox, revision, log


def compare_thread(tools, corpus, t):
    tag = '%02d' % t.n
    cut = os.path.join(tools.work, 'thread-%s.mbox' % tag)
    with open(cut, 'wb') as f:
        for i in t.members:
            f.write(corpus.chunks[i])
    b4mbox, revision, log = run_b4(tools, corpus, t, tag, cut)
    if b4mbox is None:
        return
    if compare_series(tools, corpus, t, tag, cut, b4mbox, log, revision, []):
        return
    # b4 took the highest version in the thread, which patchyard does not
    # hold as a series: compare the reviewed contribution's newest one.
    first = tools.mailinfo(b4mbox, tag + 'b')[0]['msgid']
    version = reviewed_version(tools, t)
    t.differ(first, 'series', 'not-a-patch',
             'patchyard has no series holding b4\'s v%d; compared v%s' % (revision, version))
    if version is None:
        return
    vflag = ['-v', str(version)]
    b4mbox, revision, log = run_b4(tools, corpus, t, tag + 'v', cut, vflag)
    if b4mbox is None or not compare_series(tools, corpus, t, tag + 'v', cut, b4mbox, log,
                                            revision, vflag):
        t.differ(t.msgid, 'series', 'no-series', 'not with b4 -v%d either' % version)


def main(argv):
    corpus_path, yard, conf, work = argv[1:5]
    expected = argv[5] if len(argv) > 5 else None
    update = '--update' in argv[6:]
    corpus = Corpus(corpus_path)
    tools = Tools(work, yard, conf)
    found = corpus.reviewed_threads()
    threads = [Thread(n, root, rv, members) for n, (root, (rv, members)) in
               enumerate(sorted(found.items(), key=lambda kv: kv[1][1][0]))]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for f in [pool.submit(compare_thread, tools, corpus, t) for t in threads]:
            f.result()
    got = set()
    reasons = collections.Counter()
    agree = 0
    for t in threads:
        # A note says how b4 had to be run; it is no difference.
        real = [d for d in t.diffs if d[1] != 'b4']
        agree += not real
        print('thread <%s>: %s (%d of %d patches agree; %s)' % (
            t.msgid, 'differ' if real else 'agree', t.agreeing, t.compared, t.note))
        for mid, field, reason, detail in t.diffs:
            print('  %s <%s> %s: %s%s' % ('note' if field == 'b4' else 'diff', mid, field,
                                         reason, ': ' + detail if detail else ''))
            got.add('%s %s %s' % (mid, field, reason))
            if field != 'b4':
                reasons[reason] += 1
    print('%d threads compared, %d agree; %d of %d patches agree; '
          'differences by reason: %s' % (
              len(threads), agree, sum(t.agreeing for t in threads),
              sum(t.compared for t in threads),
              ', '.join('%s %d' % kv for kv in sorted(reasons.items())) or 'none'))
    if expected is None:
        return 0
    if update:
        with open(expected, 'w') as f:
            f.write(''.join(line + '\n' for line in sorted(got)))
        return 0
    with open(expected) as f:
        want = {line.strip() for line in f if line.strip() and not line.startswith('#')}
    for line in sorted(got - want):
        print('FAIL new difference: %s' % line)
    for line in sorted(want - got):
        print('FAIL expected difference gone: %s' % line)
    return 0 if got == want else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
