#!/usr/bin/env bash
# Installs what the tests of locks in other languages run with (see
# docs/exec.md), from Debian's packages, when missing. Safe to run again: it
# only does what is missing, with one line per thing it does.
#
#  - php-cli and php-redis: the documents' recipes in PHP (recipes/php);
#  - php-symfony-lock, php-symfony-semaphore, php-illuminate-cache and
#    php-illuminate-redis: the PHP frameworks' locks (recipes/php/
#    symfony-lock.php, symfony-semaphore.php, laravel.php,
#    laravel-funnel.php), found through PHP's include path (/usr/share/php);
#  - python3-redis: redis-py, for recipes/python, run with /usr/bin/python3;
#  - faketime: libfaketime, which runs a program with its clock skewed.
#
# Without apt-get, or without root or sudo, it says what is missing and
# exits 0: the tests that need it are skipped, and say why (they fail
# instead under LOCKLAB_REQUIRE_LANGS=1).
set -euo pipefail

say() { echo "setup-langs: $*"; }

missing=()
php -r 'exit(class_exists("Redis") ? 0 : 1);' >/dev/null 2>&1 || {
	command -v php >/dev/null 2>&1 || missing+=(php-cli)
	missing+=(php-redis)
}
# A library's autoloader on PHP's include path, as Debian installs it.
on_include_path() {
	php -n -r "exit(stream_resolve_include_path('$1') ? 0 : 1);" >/dev/null 2>&1
}
on_include_path Symfony/Component/Lock/autoload.php || missing+=(php-symfony-lock)
on_include_path Symfony/Component/Semaphore/autoload.php || missing+=(php-symfony-semaphore)
on_include_path Illuminate/Cache/autoload.php || missing+=(php-illuminate-cache)
on_include_path Illuminate/Redis/autoload.php || missing+=(php-illuminate-redis)
/usr/bin/python3 -c 'import redis' >/dev/null 2>&1 || missing+=(python3-redis)
have_faketime() {
	local f
	for f in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
		[ -e "$f" ] && return 0
	done
	return 1
}
have_faketime || missing+=(faketime)

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	say "missing ${missing[*]}, and there is no apt-get: install them yourself; their tests are skipped" >&2
	exit 0
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		say "missing ${missing[*]}: installing them needs root or sudo (apt-get install ${missing[*]}); their tests are skipped" >&2
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
