#!/usr/bin/python3
"""Author dates of staged commits against `git am` (issue 16): one patch
mail per date of tests/fixtures/dates/odd-zones.txt, each staged and
built into unstable; every commit's raw author date must equal the one
`git am` gives the same mail.  Both run with TZ=UTC: for a zone it does
not understand git falls back to the machine's local zone, patchyard to
UTC (and says so in its log)."""
import os, sys, tempfile, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

ADA = ('Ada Author', 'ada@example.org')
TOP = os.environ.get('TOP') or os.path.join(HERE, '..', '..')
os.environ['TZ'] = 'UTC'


def git(path, *args, inp=None):
    return sh(['git', '-C', path] + list(args), inp=inp).stdout.decode()


def with_date(mail, date):
    head, body = mail.split('\n\n', 1)
    lines = [l for l in head.split('\n') if not l.lower().startswith('date:')]
    return '\n'.join(lines + ['Date: ' + date]) + '\n\n' + body


def main(tmp):
    dates = [l for l in open(os.path.join(TOP, 'tests/fixtures/dates/odd-zones.txt')).read().split('\n') if l]
    repo = Repo(os.path.join(tmp, 'up'))
    staging = os.path.join(tmp, 'staging.git')
    y = Yard(tmp, '''	upstream = %s
	branch = master
	staging = %s
[bot]
	address = yard@bot.example.org
[auth]
	require = none
''' % (repo.path, staging))
    y.run('upstream')
    edits = [('dates/%02d.txt' % i, lambda s, d=d: d + '\n', 'dates: zone %02d' % i)
             for i, d in enumerate(dates)]
    mails = [with_date(m, d) for m, d in
             zip(repo.series(edits, ADA, 'dates', cover=False, msgid='date'), dates)]
    mbox = ''.join('From git@z Thu Jan  1 00:00:00 1970\n' + m + '\n' for m in mails)
    open(os.path.join(tmp, 'dates.mbox'), 'w').write(mbox)
    y.run('import', '--project', 'demo', os.path.join(tmp, 'dates.mbox'))
    y.run('stage', msgid(mails[0]), '--series')
    r = y.run('rebuild', check_rc=False)
    check('rebuild', r.returncode == 0, r.stderr.decode(errors='replace')[-300:])
    ours = {}
    for line in git(staging, 'log', '--format=%s|%ad', '--date=raw', 'unstable').split('\n'):
        if '|' in line:
            s, d = line.split('|', 1)
            ours[s] = d
    am = os.path.join(tmp, 'am')
    shutil.copytree(repo.path, am)
    git(am, '-c', 'user.name=C', '-c', 'user.email=c@example.org', 'am', '-q', inp=mbox.encode())
    theirs = {}
    for line in git(am, 'log', '--format=%s|%ad', '--date=raw', 'master').split('\n'):
        if '|' in line:
            s, d = line.split('|', 1)
            theirs[s] = d
    for i, d in enumerate(dates):
        s = 'dates: zone %02d' % i
        check('%-40s git am %s' % (d, theirs.get(s)), ours.get(s) == theirs.get(s),
              'patchyard %s' % ours.get(s))


tmp = tempfile.mkdtemp()
try:
    main(tmp)
finally:
    shutil.rmtree(tmp)
done()
