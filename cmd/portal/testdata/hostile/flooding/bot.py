"""Writes 1 GiB to stdout and to stderr."""
import sys

chunk = b"x" * (1 << 20)
for _ in range(1024):
    sys.stdout.buffer.write(chunk)
    sys.stderr.buffer.write(chunk)
