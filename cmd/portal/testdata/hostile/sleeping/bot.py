"""Sleeps for an hour, with a child that sleeps too."""
import subprocess
import time

subprocess.Popen(["/bin/sleep", "3600"])
print("REPORT sleeping", flush=True)
time.sleep(3600)
