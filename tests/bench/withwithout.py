#!/usr/bin/python3
"""A mechanism with and without (docs/MECHANISMS.md): the commands users
run, timed as processes from start to exit, for two or more builds of
patchyard, interleaved.

usage: python3 tests/bench/withwithout.py REPS WORKLOADS NAME=BINARY...

WORKLOADS is a comma list of import-ul and import-kl (util-linux's mbox
and the generated kernel-shaped list), pi-ul and pi-kl (the same as
public-inbox archives), import-then (util-linux's import, then at once a
list, an ingest and a list), list and ingest (on a database holding
util-linux), rebuild (the man-pages-shaped queue of 300 patches: cold,
then after patch 150 is dropped), or all.  The workloads are those `make
bench` makes under $BUILD/bench (run it once first).  Every repetition
runs each workload once per build, the builds in a rotating order, so
that the load of a shared machine falls on all alike.  Prints per build
and workload the median wall time, its ratio to the first build's, the
median CPU time, the peak RSS and the range.  Not executable on purpose:
make bench runs the executables of tests/bench/.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bench = os.path.join(top, os.environ.get('BUILD', 'build'), 'bench')
MBOX = {'ul': os.path.join(bench, 'util-linux.mbox'),
        'kl': os.path.join(bench, 'kernel-list.mbox')}
INBOX = {'ul': os.path.join(bench, 'util-linux-inbox'),
         'kl': os.path.join(bench, 'kernel-list-inbox')}
work = os.path.join(bench, 'commands-work')
scratch = tempfile.mkdtemp(prefix='yard-withwithout-')

env = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', HOME=work, LC_ALL='C',
           GIT_AUTHOR_NAME='Bench Author', GIT_AUTHOR_EMAIL='bench@example.org',
           GIT_COMMITTER_NAME='Bench Committer', GIT_COMMITTER_EMAIL='committer@example.org')


def settle(timeout=60):
    """Wait, untimed, for the process that builds before issue 44 leave
    after an import to copy its log (yard-checkpoint)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        busy = False
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                st = open('/proc/%s/stat' % pid).read()
            except OSError:
                continue
            name, state = st[st.find('(') + 1:st.rfind(')')], st[st.rfind(')') + 2:][:1]
            if name == 'yard-checkpoint' and state != 'Z':
                busy = True
                break
        if not busy:
            return
        time.sleep(0.01)


def run(cmd, inp=None, check=True):
    """(wall s, cpu s, maxrss MB, stdout)"""
    stdin = subprocess.PIPE if inp is not None else subprocess.DEVNULL
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdin=stdin, stdout=out, stderr=err, env=env)
        if inp is not None:
            p.stdin.write(inp)
            p.stdin.close()
        _, status, ru = os.wait4(p.pid, 0)
        t = time.monotonic() - t0
        rc = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        o, e = out.read(), err.read()
    if check and rc:
        sys.exit('withwithout: %s failed (%d): %s' % (' '.join(cmd), rc, e.decode()[-600:]))
    return t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, o


def conf(d, staging=False):
    c = os.path.join(d, 'bot.conf')
    s = '[core]\n\tdatabase = %s/yard.db\n[project "bench"]\n\tlist = bench@lists.example.org\n' % d
    if staging:
        s += ('\tarchive = https://lists.example.org/bench/%%s/\n'
              '\tupstream = %s/upstream.git\n\tbranch = master\n'
              '\tstaging = %s/staging.git\n\tpush = %s/pushed.git\n'
              '[bot]\n\taddress = yard@bot.example.org\n'
              '[maintainer "mia"]\n\temail = mia@maint.example.org\n'
              '[auth]\n\trequire = none\n' % (d, d, d))
    open(c, 'w').write(s)
    return c


def fresh(name):
    d = os.path.join(scratch, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def w_import(yard, vname, src):
    d = fresh('imp-' + vname)
    c = conf(d)
    run([yard, '-q', '-c', c, 'init'])
    settle()
    r = run([yard, '-q', '-c', c, 'import', '--project', 'bench', src])
    settle()
    shutil.rmtree(d, ignore_errors=True)
    return {'': r}


def w_import_then(yard, vname):
    """import of util-linux, then at once a list and an ingest: what the
    log an import leaves costs the commands after it."""
    d = fresh('impl-' + vname)
    c = conf(d)
    run([yard, '-q', '-c', c, 'init'])
    settle()
    r = run([yard, '-q', '-c', c, 'import', '--project', 'bench', MBOX['ul']])
    l = run([yard, '-c', c, 'list'])
    ingest_n[0] += 1
    i = run([yard, '-c', c, 'ingest'], inp=one_mail(ingest_n[0], vname))
    l2 = run([yard, '-c', c, 'list'])
    settle()
    shutil.rmtree(d, ignore_errors=True)
    return {'import': r, 'list1': l, 'ingest1': i, 'list2': l2,
            'sum': tuple(a + b + c + d for a, b, c, d in zip(r[:2], l[:2], i[:2], l2[:2])) + (0, b'')}


# A database with util-linux imported, per variant, for list and ingest.
dbs = {}
ingest_n = [0]


def listdb(yard, vname):
    if vname not in dbs:
        d = fresh('list-' + vname)
        c = conf(d)
        run([yard, '-q', '-c', c, 'init'])
        run([yard, '-q', '-c', c, 'import', '--project', 'bench', MBOX['ul']])
        settle()
        dbs[vname] = c
    return dbs[vname]


def w_list(yard, vname):
    c = listdb(yard, vname)
    return {'': run([yard, '-c', c, 'list'])}


def w_ingest(yard, vname):
    c = listdb(yard, vname)
    ingest_n[0] += 1
    return {'': run([yard, '-c', c, 'ingest'], inp=one_mail(ingest_n[0], vname))}


def one_mail(k, vname):
    return ('From: Ann Author <ann@example.org>\nTo: bench@lists.example.org\n'
            'Subject: [PATCH] lib: fix the thing %d\nDate: Tue, 14 Nov 2023 22:13:20 +0000\n'
            'Message-ID: <mech-%d-%s@example.org>\n\nThe thing was broken.\n\n'
            'Signed-off-by: Ann Author <ann@example.org>\n---\n lib/x.c | 2 +-\n 1 file changed\n\n'
            'diff --git a/lib/x.c b/lib/x.c\nindex 1111111..2222222 100644\n--- a/lib/x.c\n+++ b/lib/x.c\n'
            '@@ -1,3 +1,3 @@\n a\n-b\n+c %d\n d\n-- \n2.39.2\n' % (k, k, vname, k)).encode()


def sh(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, env=env)
    if r.returncode:
        sys.exit('withwithout: %s: %s' % (' '.join(cmd), r.stderr.decode()[-500:]))
    return r.stdout.decode()


def w_rebuild(yard, vname):
    d = fresh('reb-' + vname)
    shutil.copytree(os.path.join(work, 'upstream-base.git'), os.path.join(d, 'upstream.git'))
    sh(['git', 'init', '-q', '--bare', os.path.join(d, 'pushed.git')])
    c = conf(d, staging=True)
    y = [yard, '-q', '-c', c]
    run(y + ['init'])
    run(y + ['import', '--project', 'bench', os.path.join(work, 'series.mbox')])
    settle()
    run(y + ['upstream'])
    run(y + ['stage', 'bench-1@example.org', '--series'])
    cold = run(y + ['rebuild'])
    t1 = sh(['git', '-C', os.path.join(d, 'staging.git'), 'rev-parse', 'unstable^{tree}']).strip()
    run(y + ['drop', 'bench-150@example.org', 'nacked'])
    drop = run(y + ['rebuild'])
    t2 = sh(['git', '-C', os.path.join(d, 'staging.git'), 'rev-parse', 'unstable^{tree}']).strip()
    shutil.rmtree(d, ignore_errors=True)
    return {'cold': cold, 'drop': drop, 'trees': (t1, t2)}


W = {'import-ul': lambda y, v: w_import(y, v, MBOX['ul']),
     'import-kl': lambda y, v: w_import(y, v, MBOX['kl']),
     'pi-ul': lambda y, v: w_import(y, v, INBOX['ul']),
     'pi-kl': lambda y, v: w_import(y, v, INBOX['kl']),
     'import-then': w_import_then, 'list': w_list, 'ingest': w_ingest, 'rebuild': w_rebuild}


def main():
    if len(sys.argv) < 4 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    reps = int(sys.argv[1])
    names = list(W) if sys.argv[2] == 'all' else sys.argv[2].split(',')
    variants = [a.split('=', 1) for a in sys.argv[3:]]
    res = {}
    trees = {}
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    for rep in range(reps):
        for w in names:
            order = variants[rep % len(variants):] + variants[:rep % len(variants)]
            for vname, yard in order:
                out = W[w](yard, vname)
                for k, v in out.items():
                    if k == 'trees':
                        trees.setdefault(vname, set()).add(v)
                        continue
                    res.setdefault((w + ('-' + k if k else ''), vname), []).append(v)
        sys.stderr.write('rep %d done, load %.1f\n' % (rep + 1, os.getloadavg()[0]))
    keys = sorted({k for k, _ in res}, key=lambda k: list(res).index((k, variants[0][0])))
    print('reps %d, load %.1f -> %.1f, %.0f s' % (reps, load0, os.getloadavg()[0], time.monotonic() - t0))
    for k in keys:
        line = '%-14s' % k
        for vname, _ in variants:
            r = res[(k, vname)]
            wall = statistics.median(x[0] for x in r)
            cpu = statistics.median(x[1] for x in r)
            rss = max(x[2] for x in r)
            w0 = statistics.median(x[0] for x in res[(k, variants[0][0])])
            line += ' | %s: %.4f s (x%.2f; cpu %.3f, %.1f MB; %.3f-%.3f)' % (
                vname, wall, wall / w0, cpu, rss, min(x[0] for x in r), max(x[0] for x in r))
        print(line)
    for vname, t in sorted(trees.items()):
        print('trees of %s (cold, after the drop): %s' % (vname, ' '.join(' '.join(x) for x in sorted(t))))
    if len({frozenset(t) for t in trees.values()}) > 1:
        print('THE BUILDS MADE DIFFERENT TREES')
    shutil.rmtree(scratch, ignore_errors=True)


main()
