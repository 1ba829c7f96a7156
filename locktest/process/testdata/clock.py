"""A program for the driver's tests: every acquire sends a clock notice
with time.time() and answers busy."""
import sys
import time

print("ready", flush=True)
for line in sys.stdin:
    print("clock %d" % int(time.time() * 1000), flush=True)
    if sys.stdin.readline().strip() != "go":
        sys.exit(2)
    print("busy", flush=True)
