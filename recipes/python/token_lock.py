"""A token lock served over locklab's line protocol: the complete example
of docs/exec.md. Lock with SET key <token> NX PX ttl; release and refresh
with Lua scripts that act only while the key still holds the token. The
token is the handle.

    lockcheck -exec '/usr/bin/python3 recipes/python/token_lock.py'
"""

import os
import sys
import uuid

import redis

host, _, port = os.environ["LOCKLAB_REDIS_ADDR"].rpartition(":")
r = redis.Redis(host=host, port=int(port),
                password=os.environ.get("LOCKLAB_REDIS_PASSWORD") or None)

release_script = r.register_script("""
if redis.call("GET", KEYS[1]) == ARGV[1] then
    return redis.call("DEL", KEYS[1])
end
return 0
""")

refresh_script = r.register_script("""
if redis.call("GET", KEYS[1]) == ARGV[1] then
    return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0
""")


def answer(line):
    print(line, flush=True)


answer("ready refresh")
keys = {}  # token -> key
for line in sys.stdin:
    request = line.split()
    try:
        if request[0] == "acquire":
            key, ttl_ms = request[1], int(request[2])
            token = uuid.uuid4().hex
            if r.set(key, token, nx=True, px=ttl_ms):
                keys[token] = key
                answer("ok " + token)
            else:
                answer("busy")
        elif request[0] == "release":
            token = request[1]
            if release_script(keys=[keys[token]], args=[token]) == 1:
                answer("ok")
            else:
                answer("not-held the key no longer holds this token")
        elif request[0] == "refresh":
            token, ttl_ms = request[1], int(request[2])
            if refresh_script(keys=[keys[token]], args=[token, ttl_ms]) == 1:
                answer("ok")
            else:
                answer("not-held the key no longer holds this token")
        else:
            answer("error unknown request " + request[0])
    except Exception as e:  # a lost connection, an error reply
        answer("error " + " ".join(str(e).split()))
