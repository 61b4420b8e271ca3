"""Starts 500 sleeping processes and keeps them alive at once."""
import subprocess
import time

alive, err = [], ""
for i in range(500):
    try:
        alive.append(subprocess.Popen(["/bin/sleep", "60"]))
        if len(alive) % 16 == 0:
            print("REPORT processes=%d" % len(alive), flush=True)
    except OSError as e:
        err = str(e)
        break
print("REPORT processes=%d error=%s" % (len(alive), err), flush=True)
if len(alive) >= 500:
    print("REPORT PWNED 500 processes", flush=True)
time.sleep(1)
