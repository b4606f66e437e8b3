#!/usr/bin/python3
"""The promotion policy (issue 22) through the command line: a fixture
queue with one patch too young, one untested, one nacked, one without
reviews (its author's own Reviewed-by does not count), one with changes
requested, a series whose partner is held back, and one eligible patch.
graduate --plan explains each, --json says the same, --auto moves
exactly the eligible one (with the event and mail #yard graduate gives;
here run --once, the daemon, does it),
per-patch lets a series partner go alone, and #yard graduate still
overrides the policy."""
import json, os, sqlite3, sys, tempfile, shutil, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
REY = ('Rey Viewer', 'rey@example.net')
NED = ('Ned Nay', 'ned@example.net')
MIA = ('Mia Maint', 'mia@maint.example.org')
CI = ('Lkp Robot', 'ci@example.org')
DAY = 86400

CONF = '''[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[ci "lkp"]
	email = ci@example.org
[test]
	command = true
[promote]
	min-days = 3
	min-reviews = 1
[auth]
	require = none
'''


def scenario(tmp):
    repo = Repo(os.path.join(tmp, 'up'))
    y = Yard(tmp, CONF)
    n = [0]

    def post(path, old, new, title, cover=False, more=()):
        n[0] += 1
        edits = [(path, lambda s, o=old, w=new: s.replace(o, w), title)] + list(more)
        mails = repo.series(edits, ADA, 'b%d' % n[0], cover=cover, msgid='m%d' % n[0],
                            title='series ' + title)
        for m in mails:
            y.ingest(m)
        return mails

    def review(m, who=REY, line=None):
        y.ingest(reply(m, who, line or 'Reviewed-by: %s <%s>' % who))

    def test_ok(m):
        y.ingest(reply(m, CI, '#yard check patchyard/test success'))

    young = post('src/a.c', 'a 1\n', 'a one\n', 'a: one')[0]
    untested = post('src/a.c', 'a 11\n', 'a eleven\n', 'a: eleven')[0]
    nacked = post('src/a.c', 'a 21\n', 'a twenty-one\n', 'a: twenty-one')[0]
    unreviewed = post('src/a.c', 'a 31\n', 'a thirty-one\n', 'a: thirty-one')[0]
    changes = post('src/a.c', 'a 41\n', 'a forty-one\n', 'a: forty-one')[0]
    cover, s1, s2 = post('src/b.c', 'b 1\n', 'b one\n', 'b: one', cover=True,
                         more=[('src/b.c', lambda s: s.replace('b 2\n', 'b two\n'), 'b: two')])
    good = post('doc/x.txt', 'x 1\n', 'x one\n', 'doc: one')[0]
    for m in (young, untested, nacked, changes, s1, good):
        review(m)
    review(unreviewed, ADA)  # the author's own review does not count
    review(s2, ADA)
    review(nacked, NED, 'Nacked-by: %s <%s>' % NED)
    for m in (young, nacked, unreviewed, changes, s1, s2, good):
        test_ok(m)
    for m in (young, untested, nacked, unreviewed, changes, good):
        y.run('stage', msgid(m))
    y.run('stage', msgid(cover), '--series')
    y.ingest(reply(changes, MIA, 'Please rework.\n\n#yard state changes-requested'))
    # Time passes for all but the young one.
    db = sqlite3.connect(os.path.join(tmp, 'yard.db'))
    db.execute("UPDATE patch SET queued_at = queued_at - 10 * %d WHERE state = 'staged' AND slug != 'a-one'" % DAY)
    db.execute("UPDATE event SET time = time - 9 * %d WHERE kind = 'state'" % DAY)
    db.commit()
    db.close()

    r = y.run('graduate', '--plan', check_rc=False)
    check('plan runs', r.returncode == 0, r.stderr)
    lines = {l.split('\t')[0]: l for l in r.stdout.decode().split('\n') if l}
    want = {'a-one': ['days'], 'a-eleven': ['test'], 'a-twenty-one': ['nack'],
            'a-thirty-one': ['review'], 'a-forty-one': ['changes'], 'b-one': ['series'],
            'b-two': ['review'], 'doc-one': []}
    check('a line per staged patch', sorted(lines) == sorted(want), sorted(lines))
    for slug, words in want.items():
        l = lines.get(slug, '')
        if words:
            held = l.split('\theld: ', 1)[1] if '\theld: ' in l else ''
            said = sorted(w for w in ('days', 'test', 'review', 'nack', 'changes', 'series') if w + ' (' in held)
            check('plan holds %s by %s' % (slug, words), said == words, l)
        else:
            check('plan moves %s' % slug, '\tstable' in l, l)
    check('the plan names the title', 'doc: one' in lines.get('doc-one', ''), lines.get('doc-one'))
    check('series names the partner', 'b-two' in lines.get('b-one', ''), lines.get('b-one'))
    check('days says how many', 'days (0 of 3)' in lines.get('a-one', ''), lines.get('a-one'))

    r = y.run('graduate', '--plan', '--json', check_rc=False)
    js = json.loads(r.stdout) if r.returncode == 0 else []
    got = {p['slug']: p for p in js}
    check('json: every patch', sorted(got) == sorted(want), sorted(got))
    check('json: held_by and move', all(got[s]['held_by'] == w and got[s]['move'] == (not w)
                                         for s, w in want.items() if s in got), js)
    check('json: title and message_id', got.get('doc-one', {}).get('message_id') == msgid(good)
          and got.get('doc-one', {}).get('title') == 'doc: one', got.get('doc-one'))

    # The daemon applies the policy as graduate --auto does.
    r = y.run('run', '--once', check_rc=False)
    check('run --once applies the policy', b'graduate:' in r.stderr, r.stderr)
    queues = {}
    for m in (young, untested, nacked, unreviewed, changes, s1, s2, good):
        st = y.states(msgid(m))
        c = y.show(msgid(m))
        p = [p for s in c['series'] for p in s['patches'] if p['message_id'] == msgid(m)][0]
        queues[p['slug']] = (p['state'], p['queue'])
    check('only the eligible patch graduated', queues == dict(
        (s, ('staged', 'stable' if s == 'doc-one' else 'unstable')) for s in want), queues)
    c = y.show(msgid(good))
    ev = [e for e in c['events'] if e['kind'] == 'graduated']
    check('graduated event names the policy', len(ev) == 1 and ev[0]['detail'] == 'promotion policy', ev)
    ob = [o for o in c['outbox'] if o['event'] == 'graduated']
    check('graduated acknowledgment queued', len(ob) == 1, ob)
    r = y.run('graduate', '--auto', check_rc=False)
    check('a second round moves nothing', r.returncode == 0 and r.stdout == b'', r.stdout)

    # Lifting the mark lets it go; per-patch lets b-one go alone.
    y.ingest(reply(changes, MIA, '#yard state new'))
    per = os.path.join(tmp, 'per.conf')
    open(per, 'w').write(open(y.conf).read() + '[promote "demo"]\n\tper-patch = true\n')
    sh([YARD, '-c', per, 'graduate', '--auto'])
    for m, slug in ((changes, 'a-forty-one'), (s1, 'b-one'), (s2, 'b-two')):
        c = y.show(msgid(m))
        p = [p for s in c['series'] for p in s['patches'] if p['message_id'] == msgid(m)][0]
        want_q = 'unstable' if slug == 'b-two' else 'stable'
        check('after the mark is lifted / per-patch: %s in %s' % (slug, want_q), p['queue'] == want_q, p)

    # A maintainer overrides the policy by hand.
    y.ingest(reply(unreviewed, MIA, '#yard graduate'))
    c = y.show(msgid(unreviewed))
    check('#yard graduate overrides the policy', c['patches'][0]['queue'] == 'stable', c['patches'][0])

    # No [promote] section: nothing graduates by itself.
    bare = os.path.join(tmp, 'bare.conf')
    open(bare, 'w').write(open(y.conf).read().replace('[promote]\n\tmin-days = 3\n\tmin-reviews = 1\n', ''))
    r = sh([YARD, '-c', bare, 'graduate', '--plan'])
    check('without a policy every patch is held by "policy"',
          all('held: policy' in l for l in r.stdout.decode().split('\n') if l), r.stdout)
    sh([YARD, '-c', bare, 'graduate', '--auto'])
    c = y.show(msgid(nacked))
    check('and --auto moves nothing', c['patches'][0]['queue'] == 'unstable', c['patches'][0])


tmp = tempfile.mkdtemp(prefix='yard-promote-')
try:
    scenario(tmp)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
done()
