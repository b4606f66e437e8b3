#!/usr/bin/python3
"""Trust (issue 16), end to end with real git repositories and a real
staging tree: a stranger's newer version with Supersedes: does not take
a staged patch's place (the tree keeps the author's code, the
maintainers get one mail, an event says why) until a maintainer stages
it; the author's own version does, but under auth.require = dkim only
when its mail authenticates; a Reviewed-by under a forged display name
is shown unverified, stays out of the staged commit and out of
`am --verified`, while plain `am` keeps b4's behaviour."""
import os, sys, tempfile, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
MAL = ('Mal Lory', 'mallory@evil.example.net')
MIA = ('Mia Maintainer', 'mia@maint.example.org')
TOM = ('Tom Tester', 'tom@example.com')
AR = 'Authentication-Results: mx.example.org; dkim=pass header.d=%s header.s=s1\n'


def git(path, *args):
    return sh(['git', '-C', path] + list(args)).stdout.decode()


def with_header(mail, line):
    head, body = mail.split('\n\n', 1)
    return line.rstrip('\n') + '\n' + head + '\n\n' + body


def edit(old, new, subject):
    return [('src/a.c', lambda s: s.replace(old, new), subject)]


def setup(tmp, auth):
    repo = Repo(os.path.join(tmp, 'up'))
    staging = os.path.join(tmp, 'staging.git')
    y = Yard(tmp, '''	archive = https://lists.example.org/demo/%%s/
	upstream = %s
	branch = master
	staging = %s
[bot]
	address = yard@bot.example.org
[maintainer "mia"]
	email = mia@maint.example.org
%s''' % (repo.path, staging, auth))
    y.run('upstream')
    return repo, staging, y


def patch_of(c, mid):
    return [p for s in c['series'] for p in s['patches'] if p['message_id'] == mid]


def forged_replacement(tmp):
    repo, staging, y = setup(tmp, '[auth]\n\trequire = none\n')
    v1 = repo.series(edit('a 5\n', 'a five\n', 'a: spell five'), ADA, 'ada', cover=False, msgid='ada')[0]
    y.ingest(v1)
    y.run('stage', msgid(v1))
    y.run('rebuild')
    check('the author\'s patch is in unstable', 'a five\n' in git(staging, 'show', 'unstable:src/a.c'))
    bad = repo.series(edit('a 5\n', 'a five MALLORY\n', 'a: spell five'), MAL, 'mal', cover=False,
                      version=2, msgid='mal')[0]
    bad = with_header(bad, 'Supersedes: <%s>' % msgid(v1))
    y.ingest(bad)
    r = y.run('rebuild', check_rc=False)
    check('rebuild', r.returncode == 0, r.stderr)
    a_c = git(staging, 'show', 'unstable:src/a.c')
    check('a stranger\'s v2 does not reach unstable', 'a five\n' in a_c and 'MALLORY' not in a_c,
          [l for l in a_c.split('\n') if 'five' in l])
    c = y.show(msgid(v1))
    ada, mal = patch_of(c, msgid(v1)), patch_of(c, msgid(bad))
    check('the staged patch stays staged', ada and ada[0]['state'] == 'staged', ada)
    check('the stranger\'s v2 is kept, linked, unstaged, with the slug',
          mal and mal[0]['state'] == 'new' and mal[0]['slug'] == ada[0]['slug'] and c['version'] == 2, mal)
    ev = [e for e in c['events'] if e['kind'] == 'version-from-other-sender']
    check('an event says a version came from another sender',
          ev and any('mallory@evil.example.net' in (e['detail'] or '') for e in ev), c['events'])
    mails = [o for o in c['outbox'] if o['event'] == 'version-from-other-sender']
    check('one mail, to the maintainers only',
          len(mails) == 1 and mails[0]['to'] == ['mia@maint.example.org'], c['outbox'])
    # A maintainer decides: staging it puts it in the staged one's place.
    r = y.run('stage', msgid(bad), check_rc=False)
    check('a maintainer stages the stranger\'s version', r.returncode == 0, r.stderr)
    y.run('rebuild')
    a_c = git(staging, 'show', 'unstable:src/a.c')
    check('it replaced the staged one in place', 'a five MALLORY\n' in a_c and
          len(git(staging, 'rev-list', 'refs/upstream/master..unstable').split()) == 1, a_c[:200])
    c = y.show(msgid(v1))
    check('the older version is superseded', patch_of(c, msgid(v1))[0]['state'] == 'superseded',
          patch_of(c, msgid(v1)))


def author_authenticates(tmp):
    repo, staging, y = setup(tmp, '[auth]\n\tauthserv-id = mx.example.org\n\trequire = dkim\n')
    v1 = repo.series(edit('a 7\n', 'a seven\n', 'a: spell seven'), ADA, 'ada', cover=False, msgid='v1')[0]
    y.ingest(v1)
    y.run('stage', msgid(v1))
    v2 = repo.series(edit('a 7\n', 'a seven (v2)\n', 'a: spell seven'), ADA, 'ada2', cover=False,
                     version=2, msgid='v2', in_reply_to=msgid(v1))[0]
    y.ingest(v2)
    y.run('rebuild')
    check('an unauthenticated v2 from the author does not replace it',
          'a seven\n' in git(staging, 'show', 'unstable:src/a.c'))
    c = y.show(msgid(v1))
    ev = [e for e in c['events'] if e['kind'] == 'version-from-other-sender']
    check('the event says it did not authenticate', ev and 'authenticate' in (ev[-1]['detail'] or ''), ev)
    v3 = repo.series(edit('a 7\n', 'a seven (v3)\n', 'a: spell seven'), ADA, 'ada3', cover=False,
                     version=3, msgid='v3', in_reply_to=msgid(v1))[0]
    y.ingest(with_header(v3, AR % 'example.org'))
    y.run('rebuild')
    check('an authenticated v3 from the author replaces it in place',
          'a seven (v3)\n' in git(staging, 'show', 'unstable:src/a.c'))
    c = y.show(msgid(v1))
    check('v3 staged, v1 superseded', patch_of(c, msgid(v3))[0]['state'] == 'staged' and
          patch_of(c, msgid(v1))[0]['state'] == 'superseded', c['patches'])
    check('updated mail queued', any(o['event'] == 'updated' for o in c['outbox']), c['outbox'])


def forged_trailer(tmp):
    repo, staging, y = setup(tmp, '[auth]\n\trequire = none\n')
    p = repo.series(edit('a 9\n', 'a nine\n', 'a: spell nine'), ADA, 'ada', cover=False, msgid='t')[0]
    y.ingest(p)
    y.ingest(reply(p, ('Mia Maintainer', MAL[1]), 'Reviewed-by: Mia Maintainer <%s>' % MIA[1]))
    y.ingest(reply(p, TOM, 'Tested-by: Tom Tester <%s>' % TOM[1]))
    y.run('stage', msgid(p))
    y.run('rebuild')
    c = y.show(msgid(p))
    tr = {t['name']: t['verified'] for t in patch_of(c, msgid(p))[0]['trailers'] if not t['message_id'] == msgid(p)}
    check('the forged Reviewed-by is unverified, the real Tested-by verified',
          tr == {'Reviewed-by': False, 'Tested-by': True}, tr)
    log = git(staging, 'log', '-1', '--format=%B', 'unstable')
    check('the forged trailer is not in the staged commit', 'Reviewed-by: Mia' not in log, log)
    check('the verified one is', 'Tested-by: Tom Tester <tom@example.com>' in log, log)
    text = y.run('show', msgid(p)).stdout.decode()
    check('show marks it', 'Reviewed-by: Mia Maintainer <mia@maint.example.org>  (unverified)' in text, text)
    am = y.run('am', msgid(p)).stdout.decode()
    check('am takes it as b4 does (same display name)', 'Reviewed-by: Mia Maintainer' in am and
          'Tested-by: Tom' in am, am)
    am = y.run('am', '--verified', msgid(p)).stdout.decode()
    check('am --verified does not', 'Reviewed-by: Mia Maintainer' not in am and 'Tested-by: Tom' in am, am)


for fn in (forged_replacement, author_authenticates, forged_trailer):
    tmp = tempfile.mkdtemp(prefix='yard-trust-')
    try:
        fn(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
done()
