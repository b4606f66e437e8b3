#!/bin/sh
# The util-linux corpus (../shared/corpus, or $PATCHYARD_CORPUS), pinned:
# what `patchyard import` makes of it, gunzipped and as .gz (the same
# database either way), known threads, and that importing it again, or a
# renamed copy, changes no contribution.  docs/ORACLES.md says why these
# numbers are right.  Skips without the corpus.
set -u
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
PY=/usr/bin/python3
corpus=${PATCHYARD_CORPUS:-$root/../shared/corpus/util-linux.mboxrd.gz}
if [ ! -f "$corpus" ]; then
	echo "skip: no corpus"
	exit 0
fi
fail=0
ok() { echo "ok $*"; }
bad() {
	echo "FAIL $*"
	fail=1
}

# conf NAME: a config for the database $T/NAME.db.
conf() {
	printf '[core]\n\tdatabase = %s/%s.db\n[project "demo"]\n\tlist = demo@lists.example.org\n' \
	    "$T" "$1" >"$T/$1.conf"
}
# summary LOG: the import summary without its timing.
summary() { sed -n 's/^import: \([0-9]* mails\) in [0-9.]* s:/\1:/p' "$1"; }

case $corpus in
*.gz) gunzip -c "$corpus" >"$T/ul.mbox" ;;
*) cp "$corpus" "$T/ul.mbox" ;;
esac
conf plain
conf gz
"$PATCHYARD" -c "$T/plain.conf" import --project demo "$T/ul.mbox" 2>"$T/plain.log" ||
	bad "import: $(tail -n 1 "$T/plain.log")"
"$PATCHYARD" -c "$T/gz.conf" import --project demo "$corpus" 2>"$T/gz.log" ||
	bad "import of the .gz: $(tail -n 1 "$T/gz.log")"

want="3509 mails: 3486 stored, 23 second deliveries, 0 reusing a Message-ID;\
 883 patches, 62 cover letters, 1690 replies, 851 other, 0 over a limit;\
 539 series, 81 linked to an older version"
got=$(summary "$T/plain.log")
if [ "$got" = "$want" ]; then ok "import summary: $got"; else bad "import summary: $got"; fi
got=$(summary "$T/gz.log")
if [ "$got" = "$want" ]; then ok "import summary of the .gz"; else bad "import summary of the .gz: $got"; fi

# The whole contribution list, and every contribution of the known
# threads with its events (their times aside), must be the same.
"$PATCHYARD" -c "$T/plain.conf" list --json >"$T/plain.json"
"$PATCHYARD" -c "$T/gz.conf" list --json >"$T/gz.json"
# "posted" is the posted event's time, which is when the mail arrived for
# a mail without a usable Date: two imports differ there.
unposted() { $PY -c 'import json, sys; l = json.load(open(sys.argv[1])); [c.pop("posted") for c in l]; print(json.dumps(l))' "$1"; }
if [ "$(unposted "$T/plain.json")" = "$(unposted "$T/gz.json")" ]; then ok "list --json: .gz and plain agree"; else bad "list --json: .gz and plain differ"; fi

$PY - "$PATCHYARD" "$T" <<'EOF' || fail=1
import json, subprocess, sys
yard, T = sys.argv[1], sys.argv[2]
bad = []

def show(db, ref):
    r = subprocess.run([yard, '-c', '%s/%s.conf' % (T, db), 'show', '--json', ref],
                       capture_output=True)
    return json.loads(r.stdout) if r.returncode == 0 else {}

def check(name, cond, got):
    print('%s %s%s' % ('ok' if cond else 'FAIL', name, '' if cond else ': got %s' % (got,)))
    if not cond:
        bad.append(name)

lst = json.load(open(T + '/plain.json'))
series = [s for c in lst for s in c['series']]
patches = [p for s in series for p in s['patches']]
versions = sorted({s['version'] for s in series})
# An import checks no signature, so a patch sent again in its series with
# other code is kept aside, a series of its own (issue 42: a copy under
# the author's From that does not authenticate never replaces the code):
# lsblk's "improve error reporting" of 2026-02-15, sent again three days
# after the first in its thread, is one (2 series, 1 contribution more
# than before that rule).
check('458 contributions', len(lst) == 458, len(lst))
check('539 series', len(series) == 539, len(series))
# Older copies of a patch sent again stay listed, superseded (5 of them).
check('883 patches in series', len(patches) == 883, len(patches))
check('81 series linked to an older version',
      sum(len(c['series']) - 1 for c in lst) == 81, sum(len(c['series']) - 1 for c in lst))
check('all states new', {c['state'] for c in lst} == {'new'}, {c['state'] for c in lst})
# Every patch has one: the 12 quilt or plain diffs, for which git patch-id
# prints nothing, have the id of the same change in git form.
check('883 patches with a patch-id', sum(1 for p in patches if p['patch_id']) == 883,
      sum(1 for p in patches if p['patch_id']))
# A newer version inherits its patch's slug; no two current patches share one.
# (An older copy superseded by a copy sent again in its series is not.)
def current(ps):
    return [p for i, p in enumerate(ps) if not (p['state'] == 'superseded' and
            i + 1 < len(ps) and ps[i + 1]['number'] == p['number'])]
newest = [p for c in lst for p in current(c['patches'])]
check('732 current patches, slugs unique', len(newest) == 732 and
      len({p['slug'] for p in newest}) == 732, (len(newest), len({p['slug'] for p in newest})))

def series_of(c, v):
    return [s for s in c.get('series', []) if s['version'] == v]

c = show('plain', '<20240619081951.656640-1-laurent@vivier.eu>')
check('binfmt_misc: newest v3 of 2 patches',
      c.get('version') == 3 and c.get('patch_count') == 2, (c.get('version'), c.get('patch_count')))
check('binfmt_misc: v1, v2, v3 in one contribution',
      [s['version'] for s in c.get('series', [])] == [1, 2, 3], [s['version'] for s in c.get('series', [])])
v1 = show('plain', '20240610173349.115913-1-laurent@vivier.eu')
check('binfmt_misc: v1 in the same contribution', v1.get('id') == c.get('id') and c, v1.get('id'))
c = show('plain', '<20251016153808.3565873-1-sumanthk@linux.ibm.com>')
check('chmem/lsmem: v2 of 6 patches',
      c.get('version') == 2 and c.get('patch_count') == 6, (c.get('version'), c.get('patch_count')))
c = show('plain', '<20251223180055.2396-1-kiranrangoon0@gmail.com>')
v4, v5 = series_of(c, 4), series_of(c, 5)
check('libuuid: v4 complete with 4 patches',
      len(v4) == 1 and v4[0]['complete'] is True and v4[0]['received'] == 4 and
      len(current(v4[0]['patches'])) == 4, v4)
check('libuuid: v5 complete, same contribution', len(v5) == 1 and v5[0]['complete'] is True, v5)

# The .gz gives the same contributions, events included (times aside).
def strip(c):
    for e in c.get('events', []):
        e.pop('time', None)
    return c
refs = ['<20240619081951.656640-1-laurent@vivier.eu>', '<20251016153808.3565873-1-sumanthk@linux.ibm.com>',
        '<20251223180055.2396-1-kiranrangoon0@gmail.com>'] + [str(x['id']) for x in lst[::23]]
diff = [r for r in refs if strip(show('plain', r)) != strip(show('gz', r))]
check('show --json of %d contributions: .gz and plain agree' % len(refs), not diff, diff)
sys.exit(1 if bad else 0)
EOF

# Importing again (the import resumes where it stopped: at the end) and a
# renamed copy (read again: every mail a second delivery): nothing
# stored, no contribution changes its id, state, version or patch count.
"$PATCHYARD" -c "$T/plain.conf" import --project demo "$T/ul.mbox" 2>"$T/again.log" ||
	bad "second import: $(tail -n 1 "$T/again.log")"
cp "$T/ul.mbox" "$T/renamed.mbox"
"$PATCHYARD" -c "$T/plain.conf" import --project demo "$T/renamed.mbox" 2>"$T/copy.log" ||
	bad "import of a renamed copy: $(tail -n 1 "$T/copy.log")"
"$PATCHYARD" -c "$T/plain.conf" list --json >"$T/after.json"
for log in again copy; do
	got=$(summary "$T/$log.log")
	case $log:$got in
	"again:0 mails: 0 stored,"*" 0 series, 0 linked"*) ok "import again: $got" ;;
	"copy:3509 mails: 0 stored, 3509 second deliveries,"*" 0 series, 0 linked"*)
		ok "import of a renamed copy: $got" ;;
	*) bad "import ($log): $got" ;;
	esac
done
if cmp -s "$T/plain.json" "$T/after.json"; then ok "list --json unchanged by importing again"; else bad "list --json changed by importing again"; fi
if $PY - "$T/plain.json" "$T/after.json" <<'EOF'; then ok "importing again changes no contribution"; else bad "importing again changed contributions"; fi
import json, sys
def key(f):
    return sorted((c['id'], c['state'], c['version'], c['patch_count']) for c in json.load(open(f)))
sys.exit(0 if key(sys.argv[1]) == key(sys.argv[2]) else 1)
EOF
exit $fail
