#!/usr/bin/env bash
# The whole matrix, LOCKLAB_REPEAT times (3 by default), while stress-ng
# keeps every CPU busy with twice as many workers as there are CPUs: the
# verdicts must be the declared ones, every time, on a loaded machine too.
# Installs stress-ng from Debian's packages when it is missing.
set -euo pipefail

cd "$(dirname "$0")/.."
say() { echo "stress: $*"; }

if ! command -v stress-ng >/dev/null 2>&1; then
	sudo=()
	if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
	say "installing stress-ng from Debian packages"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >/dev/null
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends stress-ng >/dev/null
fi

workers=$((2 * $(nproc)))
say "stress-ng --cpu $workers while the matrix runs ${LOCKLAB_REPEAT:-3} times"
stress-ng --cpu "$workers" --timeout 3600s --quiet &
load=$!
trap 'kill "$load" 2>/dev/null || true; wait "$load" 2>/dev/null || true' EXIT
LOCKLAB_REPEAT="${LOCKLAB_REPEAT:-3}" go test -count=1 -timeout 60m -run TestMatrixRepeatable -v ./catalog
