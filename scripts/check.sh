#!/usr/bin/env bash
# make check: builds lockcheck, runs it with the arguments given, and ends
# with a line that says its exit status and what it means (docs/lockcheck.md),
# then exits with that status. make reports any failing recipe as its own
# status 2, and go run turns every failing status into 1: the line keeps
# lockcheck's own.
set -uo pipefail

cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/lockcheck" ./cmd/lockcheck || exit

"$dir/lockcheck" "$@"
status=$?
case $status in
0) meaning="every verdict is the declared one" ;;
1) meaning="a verdict is not the declared one, or a check reached none (see above)" ;;
2) meaning="bad flags, no Redis, or the server lost during the run (see above)" ;;
*)
	if [ "$status" -gt 128 ]; then
		meaning="stopped by signal $((status - 128)) ($(kill -l "$((status - 128))" 2>/dev/null || echo '?'))"
	else
		meaning="unexpected"
	fi
	;;
esac
echo "lockcheck: exit status $status: $meaning" >&2
exit "$status"
