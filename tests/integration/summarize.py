#!/usr/bin/python3
"""Print a compact, stable summary of a patchyard database for golden files.

Usage: summarize.py PATCHYARD CONFIG
One block per contribution (oldest id first): its state, versions and
patches with slug, state, patch-id prefix and collected trailers.
"""
import json, subprocess, sys

yard = [sys.argv[1], '-c', sys.argv[2]]

def run(*args):
    r = subprocess.run(yard + list(args), capture_output=True)
    if r.returncode:
        sys.exit('%s: exit %d: %s' % (' '.join(args), r.returncode, r.stderr.decode()))
    return json.loads(r.stdout)

for c in sorted(run('list', '--json'), key=lambda c: c['id']):
    full = run('show', '--json', str(c['id']))
    print('contribution %d: %s, v%s, %d patches: %s <%s>' % (
        c['id'], c['state'], c['version'], c['patch_count'], c['title'],
        c['submitter']['email']))
    for s in full['series']:
        print('  v%d %d/%d%s %s <%s>' % (s['version'], s['received'], s['expected'],
              '' if s['complete'] else ' incomplete', s['state'], s['message_id']))
        for p in s['patches']:
            tr = ['%s%s:%s' % ('' if t['verified'] else '?', t['name'], t['value'].split('<')[-1].rstrip('>'))
                  for t in p['trailers'] if t['message_id'] != p['message_id']]
            print('    %d %s %s%s %s %s' % (p['number'], p['slug'], p['state'],
                  '/' + p['queue'] if p['queue'] else '', (p['patch_id'] or '-')[:12],
                  ' '.join(tr)))
