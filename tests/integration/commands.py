#!/usr/bin/python3
"""Maintainer commands by mail, the state machine and acknowledgments over
a real SMTP server (issue 12): who may command, what is refused, what is
answered, what the mails look like, and how sending survives a relay that
is down, deferring, refusing or killed mid-DATA."""
import json, os, sys, tempfile, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yardlib import *

tmp = tempfile.mkdtemp(prefix='yard-cmd-')
smtp = Smtpd(tmp, port=free_port())
AS = 'mx.yard.example'
MIA = ('Mia Maint', 'mia@maint.example.org')
DOC = ('Dora Docs', 'dora@docs.example.org')      # maintains doc/ only
EVE = ('Eve Evil', 'eve@evil.example.net')
ADA = ('Ada Author', 'ada@example.org')
CI = ('Lab Bot', 'ci@lab.example.com')
BOT = ('patchyard', 'yard@bot.example.org')
try:
    y = Yard(tmp, '''[bot]
	address = yard@bot.example.org
	url = https://yard.example.org
[maintainer "mia"]
	email = mia@maint.example.org
[maintainer "dora"]
	email = dora@docs.example.org
	path = doc/
[maintainer "self"]
	email = yard@bot.example.org
[ci "lab"]
	email = ci@lab.example.com
[auth]
	authserv-id = %s
[smtp]
	url = smtp://127.0.0.1:%d
	starttls = never
''' % (AS, smtp.port))
    repo = Repo(os.path.join(tmp, 'up'))
    edits = [('src/a.c', lambda s: s.replace('a 5\n', 'a five\n'), 'a: spell five'),
             ('doc/x.txt', lambda s: s.replace('x 3\n', 'x three\n'), 'doc: spell three')]
    mails = repo.series(edits, ADA, 'one', msgid='one')
    for m in mails:
        y.ingest(m)
    cover, p1, p2 = mails
    ref = msgid(cover)
    check('series arrives new', y.states(ref) == [(1, 'new', None, None), (2, 'new', None, None)], y.states(ref))

    sent = {}

    def attempt(name, mail, change=False, transcript=False):
        before = y.states(ref)
        y.ingest(mail)
        after = y.states(ref)
        sent[name] = (msgid(mail), transcript)
        check('%s: state %s' % (name, 'changes' if change else 'unchanged'), (after != before) == change,
              '%s -> %s' % (before, after))

    # Refusals: nothing changes; only authenticated senders are answered.
    attempt('no Authentication-Results', reply(cover, MIA, '#yard stage series'))
    attempt('dkim=fail', reply(cover, MIA, '#yard stage series', authserv=AS, dkim='fail'))
    attempt('other authserv-id', reply(cover, MIA, '#yard stage series', authserv='mx.other.example'))
    attempt('forged pass below ours', reply(cover, MIA, '#yard stage series', authserv=AS, dkim='fail',
            extra='Authentication-Results: %s; dkim=pass header.d=maint.example.org\n' % AS))
    attempt('pass for an unaligned domain', reply(cover, MIA, '#yard stage series', authserv=AS,
            dkim_domain='evil.example.net'))
    attempt('pass for a bare public suffix', reply(cover, MIA, '#yard stage series', authserv=AS,
            dkim_domain='org'))
    attempt('command in quoted text', reply(cover, MIA, '> #yard stage series\nNo.', authserv=AS))
    attempt('Auto-Submitted from a maintainer', reply(cover, MIA, '#yard stage series', authserv=AS,
            extra='Auto-Submitted: auto-replied\n'))
    attempt('X-Patchyard-Event from a maintainer', reply(cover, MIA, '#yard stage series', authserv=AS,
            extra='X-Patchyard-Event: staged\n'))
    attempt("the bot's own address", reply(cover, BOT, '#yard stage series', authserv=AS,
            dkim_domain='bot.example.org'))
    attempt('a non-maintainer', reply(cover, EVE, '#yard stage series', authserv=AS), transcript=True)
    attempt('the author staging their own', reply(cover, ADA, '#yard stage series', authserv=AS), transcript=True)
    attempt('a maintainer of doc/ only', reply(cover, DOC, '#yard stage series', authserv=AS), transcript=True)
    attempt('graduate an unstaged patch', reply(p1, MIA, '#yard graduate', authserv=AS), transcript=True)
    attempt('an unknown verb', reply(p1, MIA, '#yard frobnicate', authserv=AS), transcript=True)
    attempt('CI may not stage', reply(p1, CI, '#yard stage', authserv=AS, dkim_domain='lab.example.com'),
            transcript=True)
    # Accepted.
    attempt('maintainer stages the series', reply(cover, MIA, 'Thanks!\n\n#yard stage series\n\n-- \nMia',
            authserv=AS), change=True, transcript=True)
    check('both staged in unstable', y.states(ref) == [(1, 'staged', 'unstable', None), (2, 'staged', 'unstable', None)],
          y.states(ref))
    attempt('stage a staged one again', reply(p1, MIA, '#yard stage', authserv=AS), transcript=True)
    attempt('drop nacked', reply(p2, MIA, 'Not like this.\n#yard drop nacked wrong approach', authserv=AS),
            change=True, transcript=True)
    check('patch 2 dropped (nacked)', y.states(ref)[1] == (2, 'dropped', None, 'nacked'), y.states(ref))
    attempt('stage a dropped one', reply(p2, MIA, '#yard stage', authserv=AS), transcript=True)
    attempt('graduate', reply(p1, MIA, '#yard graduate', authserv=AS), change=True, transcript=True)
    check('patch 1 in stable', y.states(ref)[0] == (1, 'staged', 'stable', None), y.states(ref))
    attempt('CI reports a check', reply(p1, CI, '#yard check build success https://lab.example.com/1',
            authserv=AS, dkim_domain='lab.example.com'), transcript=True)
    c = y.show(ref)
    check('the check is recorded', [(k['context'], k['state']) for k in c.get('checks', [])] == [('build', 'success')],
          c.get('checks'))
    # The six that failed authentication; automated mail is ignored as a
    # loop, and a quoted command is no command at all.
    check('refusals are recorded as events', sum(1 for e in c.get('events', []) if e['kind'] == 'refused') == 6,
          [e['kind'] for e in c.get('events', [])])

    # Nothing is sent before `send`; then one mail per patch and event.
    check('mail waits in the outbox', all(o['state'] == 'queued' for o in c['outbox']) and c['outbox'],
          c.get('outbox'))
    smtp.start()
    y.run('send')
    got = smtp.mails()
    by_irt = {}
    for g in got:
        by_irt.setdefault((header(g, 'In-Reply-To') or '').strip('<>'), []).append(g)
    events = lambda mid: sorted(header(g, 'X-Patchyard-Event') for g in by_irt.get(mid, []))
    check('patch 1: staged and graduated acks', events(msgid(p1)) == ['graduated', 'staged'], events(msgid(p1)))
    check('patch 2: staged and dropped acks', events(msgid(p2)) == ['dropped', 'staged'], events(msgid(p2)))
    for name, (mid, want) in sent.items():
        n = len(by_irt.get(mid, []))
        check('%s: %s' % (name, 'one transcript' if want else 'no answer'), n == (1 if want else 0), n)
    check('every mail is Auto-Submitted: auto-replied',
          got and all(header(g, 'Auto-Submitted') == 'auto-replied' for g in got))
    ack = [g for g in by_irt.get(msgid(p1), []) if header(g, 'X-Patchyard-Event') == 'staged'][0]
    check('ack subject is Re: the patch', header(ack, 'Subject') == 'Re: ' + header(p1, 'Subject'), header(ack, 'Subject'))
    check('ack threads to the patch', msgid(p1) in (header(ack, 'References') or ''))
    rc = header(ack, 'X-Smtpd-Rcpt-To') or ''
    check('ack goes to the author and the list, not the bot',
          'ada@example.org' in rc and 'demo@lists.example.org' in rc and 'yard@bot.example.org' not in rc, rc)
    check('ack uses the -mm wording', 'has been added to the unstable queue' in ack and 'a-spell-five' in ack)
    drop = [g for g in by_irt.get(msgid(p2), []) if header(g, 'X-Patchyard-Event') == 'dropped'][0]
    check('drop mail says why', 'because it was nacked' in drop and 'wrong approach' in drop)
    tr = by_irt.get(sent['a maintainer of doc/ only'][0], [''])[0]
    check('transcript names the files outside the maintainer\'s patterns', 'src/a.c' in tr, tr[-400:])
    tr = by_irt.get(sent['maintainer stages the series'][0], [''])[0]
    check('transcript quotes the command', '> #yard stage series' in tr)
    y.run('send')
    check('a sent mail is never sent again', len(smtp.mails()) == len(got), len(smtp.mails()))

    # The terminal: same code path, the local user as actor.
    r = y.run('drop', ref, 'obsolete', check_rc=False)
    check('terminal drop of a series with a dropped patch is refused', r.returncode == 1, r.stderr)
    r = y.run('drop', msgid(p1), 'to-be-updated', check_rc=False)
    check('terminal drop of one patch', r.returncode == 0 and y.states(ref)[0][1:] == ('dropped', None, 'to-be-updated'),
          (r.stderr, y.states(ref)))
    r = y.run('state', msgid(p1), 'rejected', check_rc=False)
    check('state of a dropped patch is refused', r.returncode == 1, r.stdout)
    r = y.run('stage', '999', check_rc=False)
    check('unknown contribution', r.returncode == 1 and b'no such' in r.stderr, r.stderr)
    r = y.run('drop', ref, 'because', check_rc=False)
    check('bad drop reason is a usage error', r.returncode == 2, r.returncode)

    # Faults: relay down, 451, 550, killed mid-DATA, dropped after 250.
    before = len(smtp.mails())
    smtp.stop()
    y.run('send')
    y.run('send', '--now')
    c = y.show(ref)
    waiting = [o for o in c['outbox'] if o['state'] == 'queued']
    check('relay down: the mail waits', len(waiting) == 1 and waiting[0]['attempts'] == 2 and waiting[0]['last_error'],
          waiting)
    smtp.set_mode('tempfail-data')
    smtp.start()
    y.run('send', '--now')
    c = y.show(ref)
    waiting = [o for o in c['outbox'] if o['state'] == 'queued']
    check('451: retried later', len(waiting) == 1 and '451' in (waiting[0]['last_error'] or ''), waiting)
    smtp.set_mode('die-data')
    y.run('send', '--now')
    smtp.stop()
    smtp.set_mode('accept')
    smtp.start()
    y.run('send')
    check('back-off: not due yet, not sent', len(smtp.mails()) == before, len(smtp.mails()))
    y.run('send', '--now')
    check('then it arrives exactly once', len(smtp.mails()) == before + 1, len(smtp.mails()) - before)
    y.ingest(reply(p1, MIA, '#yard state changes-requested', authserv=AS))
    smtp.set_mode('reject-data')
    y.run('send', '--now')
    c = y.show(ref)
    failed = [o for o in c['outbox'] if o['state'] == 'failed']
    check('550: failed and visible', len(failed) == 1 and '550' in (failed[0]['last_error'] or ''), failed)
    y.ingest(reply(p1, MIA, '#yard help', authserv=AS))
    smtp.set_mode('drop-after-ack')
    y.run('send', '--now')
    n = len(smtp.mails())
    smtp.set_mode('accept')
    y.run('send', '--now')
    check('acknowledged by the relay: not sent again', len(smtp.mails()) == n, len(smtp.mails()) - n)
    help_mail = [g for g in smtp.mails() if 'stage [series]' in g]
    check('help lists the commands', len(help_mail) == 1)
finally:
    smtp.stop()
    shutil.rmtree(tmp, ignore_errors=True)
done()
