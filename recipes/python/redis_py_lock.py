"""redis-py's Lock, served to locklab's suite over the line protocol of
docs/exec.md. Run it with the interpreter that has redis-py (Debian's
python3-redis: /usr/bin/python3).

The lock is redis-py's own, used as its documentation shows:

    lock = r.lock(key, timeout=seconds)
    lock.acquire(blocking=False)   # SET key <uuid1 token> NX PX ms
    lock.extend(seconds, replace_ttl=True)  # Lua: PEXPIRE if the token matches
    lock.release()                 # Lua: DEL if the token matches

One attempt per acquire request (blocking=False): the suite does the
waiting. The rest of this file is the protocol.
"""

import os
import sys

import redis
from redis.exceptions import LockError


def connect():
    host, _, port = os.environ["LOCKLAB_REDIS_ADDR"].rpartition(":")
    return redis.Redis(host=host.strip("[]"), port=int(port),
                       password=os.environ.get("LOCKLAB_REDIS_PASSWORD") or None)


def acquire(r, key, ttl_ms):
    """Returns the held Lock, or None when someone else holds it."""
    lock = r.lock(key, timeout=ttl_ms / 1000)
    if not lock.acquire(blocking=False):
        return None
    return lock


def release(lock):
    """Returns None when released, or why the lock was not held."""
    try:
        lock.release()
    except LockError as e:  # LockNotOwnedError too
        return str(e)
    return None


def refresh(lock, ttl_ms):
    """Makes the lock live ttl_ms from now; returns as release does."""
    try:
        lock.extend(ttl_ms / 1000, replace_ttl=True)
    except LockError as e:
        return str(e)
    return None


def answer(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def one_line(s):
    return " ".join(str(s).split()) or "(no message)"


def serve():
    r = connect()
    locks = {}
    answer("ready refresh")
    for line in sys.stdin:
        args = line.split()
        try:
            if args[0] == "acquire":
                lock = acquire(r, args[1], int(args[2]))
                if lock is None:
                    answer("busy")
                else:
                    handle = "h%d" % (len(locks) + 1)
                    locks[handle] = lock
                    answer("ok " + handle)
            elif args[0] in ("release", "refresh"):
                lock = locks.get(args[1])
                if lock is None:
                    answer("error no lock has the handle " + args[1])
                    continue
                if args[0] == "release":
                    why = release(lock)
                else:
                    why = refresh(lock, int(args[2]))
                answer("ok" if why is None else "not-held " + one_line(why))
            else:
                answer("error unknown request: " + one_line(line))
        except Exception as e:  # a lost connection, an error reply
            answer("error %s: %s" % (type(e).__name__, one_line(e)))


if __name__ == "__main__":
    serve()
