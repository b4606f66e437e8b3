# Sourced by the integration tests: a scratch folder removed on exit, a
# config writer, and $PATCHYARD (the binary under test, from run-tests).
: "${PATCHYARD:=$(pwd)/patchyard}"
T=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
# write_conf [LINE...]: core.database in $T, project "demo", extra lines.
write_conf() {
	{
		printf '[core]\n\tdatabase = %s/yard.db\n' "$T"
		printf '[project "demo"]\n\tlist = demo@lists.example.org\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$T/bot.conf"
}
yard() { "$PATCHYARD" -c "$T/bot.conf" "$@"; }
