"""Reads the host's files, writes outside its folders and a file past the size limit."""
import os

marker = open("marker.txt").read().strip()
# Its own /tmp and /dev/shm are private to the sandbox: not tried here.
for d in ["/var/tmp", "/work", "/root", "/", "..", "../..", "/etc", "/usr"]:
    try:
        with open(os.path.join(d, marker), "w") as f:
            f.write("PWNED")
        print("REPORT wrote %s" % d, flush=True)
    except OSError as e:
        print("REPORT refused write %s: %s" % (d, e.strerror), flush=True)
for p in ["/etc/shadow", "/root/.bash_history", "/proc/1/environ", "/var/run/postgresql/.s.PGSQL.5432"]:
    try:
        data = open(p, "rb").read(64)
        print("REPORT read %s: %d bytes" % (p, len(data)), flush=True)
    except OSError as e:
        print("REPORT refused read %s: %s" % (p, e.strerror), flush=True)
for d in ["/work", "/root", "/home", "/sys"]:
    try:
        print("REPORT listed %s: %s" % (d, " ".join(sorted(os.listdir(d)))), flush=True)
    except OSError as e:
        print("REPORT refused list %s: %s" % (d, e.strerror), flush=True)
written = 0
try:
    with open("big.bin", "wb") as f:
        for _ in range(128):
            f.write(b"\x02" * (1 << 20))
            f.flush()
            written += 1 << 20
except OSError as e:
    print("REPORT big file stopped: %s" % e.strerror, flush=True)
print("REPORT big_file_bytes=%d" % os.path.getsize("big.bin"), flush=True)
