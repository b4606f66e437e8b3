"""Issue 18 beyond the ingest fixtures: upstream taking an older version
(or an older copy) of a patch, a re-sent copy of a staged patch, and
history dated by the mail, with the list's posted field and filters."""
import json, os, tempfile, time
from yardlib import Repo, Yard, check, done, msgid

tmp = tempfile.mkdtemp(prefix='yard-shapes-')
ADA = ('Ada Author', 'ada@example.org')
up = Repo(os.path.join(tmp, 'up'))
y = Yard(tmp, '\tupstream = %s\n\tbranch = master\n\tstaging = %s/staging.git\n'
         '[maintainer "mia"]\n\temail = mia@example.org\n[auth]\n\trequire = none\n'
         % (up.path, tmp))
y.run('init')
y.run('upstream')  # the base: what upstream holds before anything is posted


def edit(word):
    return lambda t: t.replace('a 7\n', 'a %s\n' % word)


def dated(mail, date):
    head, body = mail.split('\n\n', 1)
    head = '\n'.join(l for l in head.split('\n') if not l.startswith('Date:'))
    return head + '\nDate: %s\n\n' % date + body


# v1, then v2 in reply to it; upstream takes v1.
v1 = up.series([('src/a.c', edit('seven one'), 'a: spell seven out')], ADA, 'v1',
               cover=False, msgid='older-v1')[0]
v2 = up.series([('src/a.c', edit('seven two'), 'a: spell seven out')], ADA, 'v2',
               cover=False, version=2, msgid='older-v2', in_reply_to='older-v1-0@example.org')[0]
y.ingest(dated(v1, 'Mon, 06 May 2019 10:00:00 +0000'))
y.ingest(dated(v2, 'Tue, 07 May 2019 10:00:00 +0000'))
up.git('merge', '-q', '--ff-only', 'v1')
y.run('upstream')
c = y.show('older-v1-0@example.org')
ps = {p['message_id']: p for s in c.get('series', []) for p in s['patches']}
check('upstream took v1 after v2 was posted: v1 merged',
      ps.get('older-v1-0@example.org', {}).get('state') == 'merged', ps)
check('v2 is not merged', ps.get('older-v2-0@example.org', {}).get('state') == 'new', ps)
kinds = [e['kind'] for e in c.get('events', [])]
check('v2 got an earlier-merged event', kinds.count('earlier-merged') == 1, kinds)
check('one merged event', kinds.count('merged') == 1, kinds)
posted = [e['time'] for e in c.get('events', []) if e['kind'] == 'posted']
check('posted events dated by the mail', posted == ['2019-05-06T10:00:00Z', '2019-05-07T10:00:00Z'],
      posted)
other = [e['time'] for e in c.get('events', []) if e['kind'] in ('merged', 'linked')]
check('other events dated when they happened', other and all(not t.startswith('2019') for t in other),
      other)

# A copy sent again of a staged patch (same diff): it takes the place,
# staged, and the older copy stays, superseded.
s1 = up.series([('src/b.c', lambda t: t.replace('b 3\n', 'b three\n'), 'b: spell three out')],
               ADA, 'b1', cover=False, msgid='copy-a')[0]
s2 = up.series([('src/b.c', lambda t: t.replace('b 3\n', 'b three\n'), 'b: spell three out')],
               ADA, 'b2', cover=False, msgid='copy-b', in_reply_to='copy-a-0@example.org')[0]
y.ingest(dated(s1, 'Wed, 08 May 2019 10:00:00 +0000'))
y.run('stage', 'copy-a-0@example.org')
y.ingest(dated(s2, 'Wed, 08 May 2019 11:00:00 +0000'))
c = y.show('copy-a-0@example.org')
ps = {p['message_id']: p for s in c.get('series', []) for p in s['patches']}
check('the copy sent again is staged in the older copy\'s place',
      ps.get('copy-b-0@example.org', {}).get('state') == 'staged' and
      ps.get('copy-a-0@example.org', {}).get('state') == 'superseded', ps)
check('same slug', ps.get('copy-b-0@example.org', {}).get('slug') ==
      ps.get('copy-a-0@example.org', {}).get('slug'), ps)
check('one patch counted', c.get('patch_count') == 1 and c['series'][0]['received'] == 1, c.get('patch_count'))
check('show of the older copy finds it', y.show('copy-a-0@example.org').get('id') == c.get('id'))

# Someone else's copy of that staged patch does not take its place.
EVE = ('Eve Other', 'eve@example.net')
s3 = s2.replace('From: Ada Author <ada@example.org>', 'From: Eve Other <eve@example.net>')
s3 = s3.replace('copy-b-0@example.org>', 'copy-c-0@example.org>', 1)
y.ingest(dated(s3, 'Wed, 08 May 2019 12:00:00 +0000'))
c = y.show('copy-a-0@example.org')
ps = {p['message_id']: p for s in c.get('series', []) for p in s['patches']}
e = y.show('copy-c-0@example.org')
pe = {p['message_id']: p for s in e.get('series', []) for p in s['patches']}
check('a copy from someone else leaves the staged copy staged',
      ps.get('copy-b-0@example.org', {}).get('state') == 'staged' and
      pe.get('copy-c-0@example.org', {}).get('state') == 'new', (ps, pe))

# A mail from the future is dated by its arrival.
f = up.series([('doc/x.txt', lambda t: t.replace('x 2\n', 'x two\n'), 'doc: spell two out')],
              ADA, 'fut', cover=False, msgid='future')[0]
y.ingest(dated(f, 'Fri, 01 Jan 2100 00:00:00 +0000'))
c = y.show('future-0@example.org')
posted = [e['time'] for e in c.get('events', []) if e['kind'] == 'posted']
year = time.gmtime().tm_year
check('a future Date: is clamped to the arrival', posted and posted[0][:4] in (str(year), str(year + 1)),
      posted)

# list: posted field, --since (last activity), --submitter, --limit.
lst = json.loads(y.run('list', '--json').stdout)
check('list --json has posted, last_activity, acks, reviews, tests, test_state',
      all({'posted', 'last_activity', 'acks', 'reviews', 'tests', 'test_state'} <= set(c) for c in lst),
      lst and sorted(lst[0]))
byid = {c['title']: c for c in lst}
check('list posted is the newest series\' posting date',
      byid.get('a: spell seven out', {}).get('posted') == '2019-05-07T10:00:00Z', byid.keys())
check('--limit 1', len(json.loads(y.run('list', '--json', '--limit', '1').stdout)) == 1)
check('--submitter', len(json.loads(y.run('list', '--json', '--submitter', 'ada@example.org').stdout)) == 3
      and json.loads(y.run('list', '--json', '--submitter', 'nobody@example.org').stdout) == [])
check('--since in the future lists nothing',
      json.loads(y.run('list', '--json', '--since', '2099-01-01').stdout) == [])
check('--since a bad date is a usage error', y.run('list', '--since', 'yesterday', check_rc=False).returncode == 2)
done()
