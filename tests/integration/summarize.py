#!/usr/bin/python3
"""Print a compact, stable summary of a patchyard database for golden files.

Usage: summarize.py PATCHYARD CONFIG [DATABASE]
One block per contribution (oldest id first): its state, versions and
patches with slug, state, patch-id prefix, the patch's Message-ID, its
author when not the submitter, and collected trailers ('?': unverified).
With DATABASE, then every stored message in arrival order: its kind,
deliveries, flags and where it was placed (contribution, version, patch
number) -- what the command line does not show.
"""
import json, sqlite3, subprocess, sys

yard = [sys.argv[1], '-c', sys.argv[2]]

def run(*args):
    r = subprocess.run(yard + list(args), capture_output=True)
    if r.returncode:
        sys.exit('%s: exit %d: %s' % (' '.join(args), r.returncode, r.stderr.decode()))
    return json.loads(r.stdout)

def contributions():
    for c in sorted(run('list', '--json'), key=lambda c: c['id']):
        full = run('show', '--json', str(c['id']))
        who = c['submitter']['email']
        print('contribution %d: %s, v%s, %d patches: %s <%s>' % (
            c['id'], c['state'], c['version'], c['patch_count'], c['title'], who))
        for s in full['series']:
            print('  v%d %d/%d%s %s <%s>' % (s['version'], s['received'], s['expected'],
                  '' if s['complete'] else ' incomplete', s['state'], s['message_id']))
            for p in s['patches']:
                tr = ['%s%s:%s' % ('' if t['verified'] else '?', t['name'],
                                   t['value'].split('<')[-1].rstrip('>'))
                      for t in p['trailers'] if t['message_id'] != p['message_id']]
                by = p['author']['email']
                print('    %d %s %s%s %s <%s>%s%s' % (
                    p['number'], p['slug'], p['state'],
                    '/' + p['queue'] if p['queue'] else '',
                    (p['patch_id'] or '-')[:12], p['message_id'],
                    '' if by == who else ' by ' + by,
                    ''.join(' ' + t for t in tr)))

# Bits of enum mail_flag (parsers/mail.h), by name.
FLAGS = ['overlimit', 'dupid', 'nomsgid', 'broken', 'charset', 'truncated',
         'auto', 'nodate', 'datezone']

def messages(path):
    """Read-only: the storage layer has no command that lists messages."""
    db = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
    rows = db.execute(
        'SELECT m.msgid, m.kind, m.deliveries, m.flags, s.contribution_id,'
        ' s.version, p.number, s.cover_id = m.id'
        ' FROM message m LEFT JOIN series s ON s.id = m.series_id'
        ' LEFT JOIN patch p ON p.id = m.patch_id ORDER BY m.id')
    print('messages:')
    for msgid, kind, n, flags, contrib, version, number, is_cover in rows:
        names = [f for i, f in enumerate(FLAGS) if flags & (1 << i)]
        if contrib is None:
            where = 'unplaced'
        elif number is not None:
            where = 'c%d v%d #%d' % (contrib, version, number)
        else:
            where = 'c%d v%d%s' % (contrib, version, ' cover' if is_cover else '')
        print('  <%s> %s%s%s -> %s' % (msgid, kind, ' x%d' % n if n > 1 else '',
              ''.join(' ' + f for f in names), where))
    db.close()

contributions()
if len(sys.argv) > 3:
    messages(sys.argv[3])
