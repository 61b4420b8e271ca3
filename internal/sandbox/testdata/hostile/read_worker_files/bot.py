import os
import sys

# Walks the file system looking for the worker's files and other users' data.
rnd = sys.argv[2]
found = []
for top in ["/work", "/root", "/home", "/var/lib/postgresql", "/var/run/postgresql", "/run", "/srv", "/mnt", "/farm"]:
    for dirpath, dirnames, filenames in os.walk(top):
        for f in filenames:
            found.append(os.path.join(dirpath, f))
        if len(found) > 200:
            break
# /root/.pyenv/versions and /root/.rustup/toolchains are the Python and Rust
# runtimes themselves, and the programs folders (links to the interpreters a
# bot finds first on its PATH) are the platform's own: visible on purpose.
found = [f for f in found if not f.startswith(("/root/.pyenv/versions/", "/root/.rustup/toolchains/",
                                              "/root/.cache/broadside/programs/"))]
with open(os.path.join(rnd, "loot.txt"), "a") as out:
    for f in found:
        out.write("PWNED found " + f + "\n")
with open(os.path.join(rnd, "command.txt"), "w") as out:
    out.write("1,0,0")
