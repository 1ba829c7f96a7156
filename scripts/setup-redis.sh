#!/usr/bin/env bash
# Makes sure this machine can give the tests a real Redis. Safe to run
# again: it only does what is missing, with one line per thing it does.
#
#  1. redis-server on PATH: installed from Debian's packages when missing
#     (with sudo when not root). Tests start private redis-server processes.
#  2. When a Docker engine answers: the image locklab/redis:local, built by
#     scripts/redis-image.sh from the local redis-server when missing, as no
#     image registry may be reachable. `make test` runs the tests with it.
#
# Fails only when no way to get Redis is left (REDIS_ADDR or REDIS_URL set
# counts as one).
set -euo pipefail

cd "$(dirname "$0")/.."
image="locklab/redis:local"

say() { echo "setup-redis: $*"; }

docker_works() {
	command -v docker >/dev/null 2>&1 || return 1
	if command -v timeout >/dev/null 2>&1; then
		timeout 30 docker info >/dev/null 2>&1
	else
		docker info >/dev/null 2>&1
	fi
}

# install_redis installs redis-server from Debian's packages, or says why it
# cannot and returns non-zero.
install_redis() {
	if ! command -v apt-get >/dev/null 2>&1; then
		say "redis-server is not on PATH and there is no apt-get: install it yourself" \
			"(macOS: brew install redis; Fedora: dnf install redis; Alpine: apk add redis)" >&2
		return 1
	fi
	local sudo=()
	if [ "$(id -u)" != 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			say "redis-server is not on PATH, and installing it needs root or sudo:" \
				"apt-get install redis-server" >&2
			return 1
		fi
		sudo=(sudo)
	fi
	say "installing redis-server from Debian packages"
	local log
	log="$(mktemp)"
	if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update >"$log" 2>&1 ||
		! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends redis-server >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		rm -f "$log"
		say "installing redis-server failed" >&2
		return 1
	fi
	rm -f "$log"
	hash -r
	if ! command -v redis-server >/dev/null 2>&1; then
		say "redis-server was installed but is not on PATH (PATH=$PATH)" >&2
		return 1
	fi
}

have_redis=yes
if ! command -v redis-server >/dev/null 2>&1; then
	install_redis || have_redis=no
fi

have_image=no
if docker_works; then
	if docker image inspect "$image" >/dev/null 2>&1; then
		have_image=yes
	elif [ "$have_redis" = yes ]; then
		bash scripts/redis-image.sh "$image"
		have_image=yes
	else
		say "cannot build $image without redis-server" >&2
	fi
elif [ "$have_redis" = no ]; then
	say "no Docker engine answers either (docker info failed)" >&2
fi

if [ "$have_redis" = no ] && [ "$have_image" = no ] &&
	[ -z "${REDIS_ADDR:-}" ] && [ -z "${REDIS_URL:-}" ]; then
	say "no way to run Redis for the tests: install redis-server, start Docker with a" \
		"Redis image (LOCKLAB_REDIS_IMAGE, LOCKLAB_REDIS_TAG), or set REDIS_ADDR" >&2
	exit 1
fi
