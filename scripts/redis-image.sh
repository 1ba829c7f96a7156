#!/usr/bin/env bash
# Builds the Docker image locklab/redis:local without any image registry.
#
# The image is a bare root filesystem holding this machine's redis-server
# binary, the shared libraries it links against, the dynamic loader, a
# minimal /etc/passwd and /tmp. It is fed to `docker import`, so no base
# image has to be pulled. The image is then started once and PINGed to make
# sure it works.
#
# Needs: redis-server on PATH (scripts/setup-redis.sh installs it), ldd,
# tar and a Docker engine that answers. Linux only: the binary must be one
# the engine's kernel can run.
#
# Usage: scripts/redis-image.sh [IMAGE]   (IMAGE defaults to locklab/redis:local)
#
# redistest runs locklab/redis:local by default when LOCKLAB_REDIS_IMAGE and
# LOCKLAB_REDIS_TAG are unset; another IMAGE needs them set.
set -euo pipefail

image="${1:-locklab/redis:local}"

die() {
	echo "redis-image: $*" >&2
	exit 1
}

command -v docker >/dev/null 2>&1 || die "docker is not on PATH"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (docker info failed)"
server="$(command -v redis-server 2>/dev/null)" ||
	die "redis-server is not on PATH; run scripts/setup-redis.sh or apt-get install redis-server"
command -v ldd >/dev/null 2>&1 || die "ldd is not on PATH"

# On Debian /usr/bin/redis-server is a symlink to redis-check-rdb: the same
# binary picks its role from argv[0], and it is always started as
# /usr/bin/redis-server in the image.
binary="$(readlink -f "$server")"

work="$(mktemp -d)"
cid=""
cleanup() {
	if [ -n "$cid" ]; then
		docker rm -f "$cid" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

root="$work/rootfs"
mkdir -p "$root/usr/bin" "$root/etc" "$root/data"
mkdir -m 1777 "$root/tmp"
cp "$binary" "$root/usr/bin/redis-server"
chmod 0755 "$root/usr/bin/redis-server"

# Copy every library ldd names, and the loader, to the path ldd names, with
# symlinks resolved. Lines look like "libx.so.1 => /lib/.../libx.so.1 (0x..)"
# or "/lib64/ld-linux-x86-64.so.2 (0x...)"; linux-vdso has no file.
libs="$(ldd "$binary" | awk '
	$2 == "=>" && $3 ~ /^\// { print $3; next }
	$1 ~ /^\// { print $1 }
')"
[ -n "$libs" ] || die "ldd listed no libraries for $binary"
while IFS= read -r lib; do
	dest="$root$lib"
	mkdir -p "$(dirname "$dest")"
	cp -L "$lib" "$dest"
done <<<"$libs"

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
redis:x:999:999:redis:/data:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
redis:x:999:
nogroup:x:65534:
EOF
chown -R 999:999 "$root/data" 2>/dev/null || true

tar -C "$root" --numeric-owner -c . |
	docker import \
		--change 'EXPOSE 6379/tcp' \
		--change 'WORKDIR /data' \
		--change 'ENTRYPOINT ["/usr/bin/redis-server"]' \
		--change 'CMD ["--bind","0.0.0.0","--protected-mode","no","--save","","--appendonly","no"]' \
		- "$image" >/dev/null

# Verify: start it once and PING it through the published port, the way the
# tests reach it. Some engines do not forward published ports to the host
# (see redistest), so the container's bridge address is tried as well.
cid="$(docker run -d -p 127.0.0.1::6379 "$image")"

ping_at() { # host port
	local reply=""
	if command -v redis-cli >/dev/null 2>&1; then
		reply="$(timeout 2 redis-cli -h "$1" -p "$2" PING 2>/dev/null)" || true
	else
		# shellcheck disable=SC2016 # expanded by the inner bash
		reply="$(timeout 2 bash -c 'exec 3<>/dev/tcp/"$1"/"$2"; printf "PING\r\n" >&3; head -c 5 <&3' _ "$1" "$2" 2>/dev/null)" || true
	fi
	case "$reply" in *PONG*) return 0 ;; esac
	return 1
}

hostport="$(docker port "$cid" 6379/tcp | head -n1)"
bridge="$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$cid")"
how=""
for _ in $(seq 1 50); do
	if [ -n "$hostport" ] && ping_at "${hostport%:*}" "${hostport##*:}"; then
		how="published port $hostport"
		break
	fi
	if [ -n "$bridge" ] && ping_at "$bridge" 6379; then
		how="bridge address $bridge:6379"
		break
	fi
	sleep 0.2
done
if [ -z "$how" ]; then
	docker logs "$cid" >&2 || true
	die "built $image but it did not answer PING"
fi
version="$("$server" --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')"
echo "redis-image: built $image (redis ${version:-?}), PONG via $how"
