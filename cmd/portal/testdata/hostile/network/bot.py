"""Tries Postgres, the test's listener on every host address, the metadata service and DNS."""
import socket

port = int(open("port.txt").read())
targets = [("127.0.0.1", 5432), ("127.0.0.1", port), ("169.254.169.254", 80), ("1.1.1.1", 443)]
targets += [(a, port) for a in open("hosts.txt").read().split()]
for host, p in targets:
    try:
        socket.create_connection((host, p), timeout=1).close()
        print("REPORT PWNED connected %s:%d" % (host, p), flush=True)
    except OSError as e:
        print("REPORT refused %s:%d: %s" % (host, p, e), flush=True)
try:
    print("REPORT PWNED resolved %s" % socket.gethostbyname("example.com"), flush=True)
except OSError as e:
    print("REPORT refused dns: %s" % e, flush=True)
