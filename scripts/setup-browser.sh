#!/usr/bin/env bash
# Installs what the browser tests of the HTML report run with (see
# report/browser), from Debian's packages, when missing. Safe to run again:
# it only does what is missing, with one line per thing it does.
#
#  - chromium: the browser the tests drive, headless;
#  - fonts-wqy-microhei: a font with Chinese glyphs, without which the
#    Chinese report renders as empty boxes.
#
# Without apt-get, or without root or sudo, it says what is missing and
# exits 0: the browser tests are skipped, and say why (they fail instead
# under LOCKLAB_REQUIRE_BROWSER=1).
set -euo pipefail

say() { echo "setup-browser: $*"; }

missing=()
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
	command -v google-chrome >/dev/null 2>&1 || missing+=(chromium)
if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
	missing+=(fonts-wqy-microhei)
fi

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	say "missing ${missing[*]}, and there is no apt-get: install them yourself; the browser tests are skipped" >&2
	exit 0
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		say "missing ${missing[*]}: installing them needs root or sudo (apt-get install ${missing[*]}); the browser tests are skipped" >&2
		exit 0
	fi
	sudo=(sudo)
fi
say "installing ${missing[*]} from Debian packages"
log="$(mktemp)"
if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >"$log" 2>&1 ||
	! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
	tail -n 20 "$log" >&2
	rm -f "$log"
	say "installing ${missing[*]} failed" >&2
	exit 1
fi
rm -f "$log"
