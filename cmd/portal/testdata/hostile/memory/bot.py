"""Holds 2 GiB in one turn, 64 MiB at a time, every page populated."""
import mmap

held = []
for i in range(32):
    held.append(mmap.mmap(-1, 64 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE))
    print("REPORT held_mib=%d" % ((i + 1) * 64), flush=True)
print("REPORT PWNED held 2 GiB", flush=True)
