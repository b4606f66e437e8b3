#!/usr/bin/python3
"""The staging tree (issue 13), through the command line with real git
repositories: branches built from the queue with authors, trailers and
Link:, drops and graduations rebuilt, the quilt export and the push, the
acknowledgments held until the push, a newer version replacing a staged
patch in place, offsets and conflicts when upstream moves, and patches
detected upstream as merged (exact, link, changed)."""
import os, sys, tempfile, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
RITA = ('Rita Reviewer', 'rita@example.org')
UP = ('Up Stream', 'up@example.org')


def git(path, *args, inp=None):
    return sh(['git', '-C', path] + list(args), inp=inp).stdout.decode()


def log(staging, rng):
    return git(staging, 'log', '--reverse', '--format=%H|%an|%s', rng).split('\n')[:-1]


def body(staging, commit):
    return git(staging, 'log', '-1', '--format=%B', commit)


def upstream_commit(repo, who, subject, edit, message_extra=''):
    f, fn = edit
    repo.write(f, fn(repo.read(f)))
    repo.git('add', '-A', who=who)
    repo.git('commit', '-q', '-m', subject + '\n\n' + message_extra, who=who)


def scenario(tmp):
    staging = os.path.join(tmp, 'staging.git')
    remote = os.path.join(tmp, 'remote.git')
    sh(['git', 'init', '-q', '--bare', remote])
    repo = Repo(os.path.join(tmp, 'up'))
    y = Yard(tmp, '''	archive = https://lists.example.org/demo/%%s/
	upstream = %s
	branch = master
	staging = %s
	push = %s
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[auth]
	require = none
''' % (repo.path, staging, remote))
    y.run('upstream')
    base0 = repo.git('rev-parse', 'master').strip()
    edits = [('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five'),
             ('src/b.c', lambda s: s.replace('b 30\n', 'b thirty\n'), 'b: spell thirty'),
             ('src/a.c', lambda s: s.replace('a 50\n', 'a fifty\n'), 'a: spell fifty'),
             ('doc/x.txt', lambda s: s.replace('x 3\n', 'x three\n'), 'doc: spell three')]
    mails = repo.series(edits, ADA, 'one', msgid='one')
    for m in mails:
        y.ingest(m)
    cover, p1, p2, p3, p4 = mails
    y.ingest(reply(p1, RITA, 'Nice.\n\nReviewed-by: Rita Reviewer <rita@example.org>'))
    ref = msgid(cover)

    r = y.run('stage', ref, '--series', check_rc=False)
    check('terminal stage of the series', r.returncode == 0, r.stderr)
    c = y.show(ref)
    check('stage acks wait for the tree', [o['state'] for o in c['outbox']] == ['held'] * 4,
          [o['state'] for o in c['outbox']])
    r = y.run('rebuild', check_rc=False)
    check('rebuild', r.returncode == 0, r.stderr)
    un = log(staging, base0 + '..unstable')
    check('unstable holds the 4 patches in order', [l.split('|')[2] for l in un] ==
          ['a: spell five', 'b: spell thirty', 'a: spell fifty', 'doc: spell three'], un)
    check('authored by the patch author', all(l.split('|')[1] == 'Ada Author' for l in un), un)
    check('stable is upstream', git(staging, 'rev-parse', 'stable').strip() == base0)
    b1 = body(staging, un[0].split('|')[0])
    check('collected trailer in the commit', 'Reviewed-by: Rita Reviewer <rita@example.org>' in b1, b1)
    check('one trailer block: the collected ones follow the own ones',
          'Signed-off-by: Ada Author <ada@example.org>\nReviewed-by: Rita Reviewer <rita@example.org>\n'
          'Link: ' in b1, b1)
    check('Link: to the archive', 'Link: https://lists.example.org/demo/%s/' % msgid(p1) in b1, b1)
    check('committer is the bot', git(staging, 'log', '-1', '--format=%cn <%ce>', un[0].split('|')[0]).strip()
          == 'patchyard <yard@bot.example.org>')
    series = git(staging, 'show', 'patches:patches/series')
    check('quilt series lists the queue', len([l for l in series.split('\n') if l and not l.startswith('#')]) == 4, series)
    check('pushed', git(remote, 'rev-parse', 'unstable').strip() == git(staging, 'rev-parse', 'unstable').strip()
          and git(remote, 'rev-parse', 'patches').strip() == git(staging, 'rev-parse', 'patches').strip())
    c = y.show(ref)
    check('acks released by the push', [o['state'] for o in c['outbox']] == ['queued'] * 4,
          [o['state'] for o in c['outbox']])
    tip = git(staging, 'rev-parse', 'unstable').strip()
    y.run('rebuild')
    check('same queue, same base: same commits', git(staging, 'rev-parse', 'unstable').strip() == tip)

    y.run('drop', msgid(p2), 'obsolete')
    y.run('rebuild')
    un = log(staging, base0 + '..unstable')
    check('drop rebuilds without it', [l.split('|')[2] for l in un] ==
          ['a: spell five', 'a: spell fifty', 'doc: spell three'], un)
    check('the queue\'s history grows', int(git(staging, 'rev-list', '--count', 'patches').strip()) >= 2)

    y.run('graduate', msgid(p1))
    y.run('rebuild')
    st = log(staging, base0 + '..stable')
    check('graduated into stable', [l.split('|')[2] for l in st] == ['a: spell five'], st)
    check('unstable on top of stable', len(log(staging, 'stable..unstable')) == 2)

    # A fix-up folded into a staged patch: one commit with both changes.
    fix = repo.series([('src/a.c', lambda s: s.replace('a 20\n', 'a twenty\n'), 'fixup! a: spell five')],
                      ADA, 'fix', cover=False, msgid='fix', in_reply_to=msgid(p1))
    y.ingest(fix[0])
    r = y.run('fold', msgid(fix[0]), 'a-spell-five', check_rc=False)
    check('fold a fix-up into a staged patch', r.returncode == 0, r.stderr)
    check('the fix-up is dropped as folded', y.states(msgid(fix[0])) == [(1, 'dropped', None, 'folded')],
          y.states(msgid(fix[0])))
    y.run('rebuild')
    st = log(staging, base0 + '..stable')
    a_c = git(staging, 'show', st[0].split('|')[0] + ':src/a.c') if st else ''
    check('the folded commit has both changes', len(st) == 1 and 'a five' in a_c and 'a twenty' in a_c, (st, a_c[:80]))

    # A newer version of a staged patch replaces it in place.
    v2 = repo.series([('src/a.c', lambda s: s.replace('a 50\n', 'a fifty (v2)\n'), 'a: spell fifty')],
                     ADA, 'two', cover=False, version=2, msgid='two', in_reply_to=msgid(p3))
    y.ingest(v2[0])
    c = y.show(ref)
    upd = [o for o in c['outbox'] if o['event'] == 'updated']
    check('fold told the target\'s people, after the rebuild', len(upd) == 2 and upd[0]['state'] == 'queued', upd)
    check('updated mail waits for the tree', upd and upd[-1]['state'] == 'held', upd)
    y.run('rebuild')
    check('the tree has the new version', 'a fifty (v2)' in git(staging, 'show', 'unstable:src/a.c'))
    st3 = [p for s in c['series'] for p in s['patches'] if p['message_id'] == msgid(v2[0])]
    check('new version staged in place, same slug', st3 and st3[0]['state'] == 'staged' and
          st3[0]['slug'] == 'a-spell-fifty', st3)

    # Upstream moves: unrelated lines (offset), then the lines of patch 4.
    upstream_commit(repo, UP, 'a: add a header', ('src/a.c', lambda s: 'header 1\nheader 2\n' + s))
    y.run('upstream')
    y.run('rebuild')
    new_base = repo.git('rev-parse', 'master').strip()
    check('queue applies on the moved upstream (offset)', len(log(staging, new_base + '..unstable')) == 3,
          log(staging, new_base + '..unstable'))
    upstream_commit(repo, UP, 'doc: rework', ('doc/x.txt', lambda s: s.replace('x 3\n', 'x THREE\n')))
    y.run('upstream')
    y.run('rebuild')
    new_base = repo.git('rev-parse', 'master').strip()
    c = y.show(ref)
    p4s = [p for p in c['series'][0]['patches'] if p['number'] == 4][0]
    check('conflict reported, patch kept in place', p4s['state'] == 'staged' and p4s['conflict'], p4s)
    rest = [l.split('|')[2] for l in log(staging, new_base + '..unstable')]
    check('the rest still builds', rest == ['a: spell five', 'a: spell fifty'], rest)
    conf = [o for o in c['outbox'] if o['event'] == 'conflict']
    check('conflict mail to author and maintainers', len(conf) == 1 and 'mia@maint.example.org' in conf[0]['to']
          and 'ada@example.org' in conf[0]['to'], conf)

    # Upstream takes the patches: verbatim, by Link:, changed.
    r = repo.git('am', '-q', '-3', inp=p1.encode(), who=UP)
    upstream_commit(repo, UP, 'a: fifty, spelled', ('src/a.c', lambda s: s.replace('a 50\n', 'a fifty (v2, edited)\n')),
                    'Link: https://lists.example.org/demo/%s/\n' % msgid(v2[0]))
    upstream_commit(repo, ADA, 'doc: spell three', ('doc/x.txt', lambda s: s.replace('x THREE\n', 'x three!\n')))
    y.run('upstream')
    c = y.show(ref)
    allp = {p['message_id']: p for s in c['series'] for p in s['patches']}
    check('merged exact', (allp[msgid(p1)]['state'], allp[msgid(p1)]['reason']) == ('merged', 'exact'), allp[msgid(p1)])
    check('merged link', (allp[msgid(v2[0])]['state'], allp[msgid(v2[0])]['reason']) == ('merged', 'link'),
          allp[msgid(v2[0])])
    check('merged changed', (allp[msgid(p4)]['state'], allp[msgid(p4)]['reason']) == ('merged', 'changed'),
          allp[msgid(p4)])
    check('merged mails queued', len([o for o in c['outbox'] if o['event'] == 'merged']) == 3)
    y.run('rebuild')
    top = repo.git('rev-parse', 'master').strip()
    check('the queue is empty on the new upstream', git(staging, 'rev-parse', 'unstable').strip() == top and
          git(staging, 'rev-parse', 'stable').strip() == top)


def conflict_drop(tmp):
    staging = os.path.join(tmp, 'staging.git')
    repo = Repo(os.path.join(tmp, 'up'))
    y = Yard(tmp, '''	upstream = %s
	branch = master
	staging = %s
[bot]
	address = yard@bot.example.org
[stage]
	on-conflict = drop
[auth]
	require = none
''' % (repo.path, staging))
    y.run('upstream')
    mails = repo.series([('src/b.c', lambda s: s.replace('b 7\n', 'b seven\n'), 'b: spell seven')],
                        ADA, 'one', cover=False, msgid='cd')
    y.ingest(mails[0])
    y.run('stage', msgid(mails[0]))
    upstream_commit(repo, UP, 'b: rework', ('src/b.c', lambda s: s.replace('b 7\n', 'b SEVEN\n')))
    y.run('upstream')
    y.run('rebuild')
    st = y.states(msgid(mails[0]))
    check('on-conflict = drop drops it as conflict', st == [(1, 'dropped', None, 'conflict')], st)


for fn in (scenario, conflict_drop):
    tmp = tempfile.mkdtemp(prefix='yard-stage-')
    try:
        fn(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
done()
