import os, sys
net = "network" if os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy") else "offline"
with open("hostile-ran.txt", "a") as f:
    f.write(net + "\n")
sys.stderr.write("hostile code ran (%s) in %s\n" % (net, os.getcwd()))
