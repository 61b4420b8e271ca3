"""Prints its environment and every environment and command line it can read in /proc."""
import os

for k, v in sorted(os.environ.items()):
    print("REPORT env %s=%s" % (k, v), flush=True)
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    for what in ("environ", "cmdline"):
        try:
            data = open("/proc/%s/%s" % (pid, what), "rb").read()
            print("REPORT %s %s: %s" % (pid, what, data.replace(b"\0", b" ").decode("utf-8", "replace")), flush=True)
        except OSError as e:
            print("REPORT refused %s %s: %s" % (pid, what, e.strerror), flush=True)
