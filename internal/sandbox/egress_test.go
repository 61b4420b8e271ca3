//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestEgressDenied(t *testing.T) {
	e, err := startEgress(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	e.own[netip.MustParseAddr("192.0.2.2")] = true
	cases := []struct {
		addr   string
		denied bool
		why    string
	}{
		{"127.0.0.1:443", true, "loopback: Postgres and the portal listen there"},
		{"[::1]:443", true, "IPv6 loopback"},
		{"[::ffff:127.0.0.1]:443", true, "IPv4-mapped loopback"},
		{"10.255.255.53:443", true, "private network (RFC 1918)"},
		{"172.16.0.1:443", true, "private network (RFC 1918)"},
		{"192.168.1.1:443", true, "private network (RFC 1918)"},
		{"[fd00::1]:443", true, "unique local (RFC 4193)"},
		{"169.254.169.254:80", true, "link-local: cloud metadata service"},
		{"[fe80::1]:443", true, "IPv6 link-local"},
		{"100.64.0.1:443", true, "carrier-grade NAT (RFC 6598)"},
		{"0.0.0.0:443", true, "unspecified"},
		{"224.0.0.1:443", true, "multicast"},
		{"192.0.2.2:443", true, "one of the worker's own addresses"},
		{"203.0.113.80:443", false, "public registry"},
		{"151.101.0.1:80", false, "public, plain HTTP"},
		{"151.101.0.1:5432", true, "not a web port"},
		{"151.101.0.1:22", true, "not a web port"},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			err := e.checkDial("tcp", tc.addr, nil)
			if (err != nil) != tc.denied {
				t.Errorf("checkDial(%s) = %v, want denied %v (%s)", tc.addr, err, tc.denied, tc.why)
			}
		})
	}
}

// TestBwrapNetwork checks a command with Cmd.Network: its own network
// namespace, nothing of the host reachable directly or through the egress
// proxy, and the public internet reachable through the proxy when the
// machine itself reaches it.
func TestBwrapNetwork(t *testing.T) {
	b := newTestBwrap(t)
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// The machine's own reach, to know whether to expect the internet.
	online := false
	if c, err := net.DialTimeout("tcp", "proxy.golang.org:443", 3*time.Second); err == nil {
		online = true
		c.Close()
	}
	script := `
ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\n' ' ')
echo "ifaces $ifaces"
test -e /etc/resolv.conf && echo "resolv"
for target in "$@"; do
	echo "direct $target $(curl -s --noproxy '*' -o /dev/null -m 3 -w '%{http_code}' "http://$target/" ; echo " $?")"
	echo "proxy $target $(curl -s -o /dev/null -m 5 -p -x "$HTTPS_PROXY" -w '%{http_connect}' "http://$target/"; echo " $?")"
done
echo "online $(curl -s -o /dev/null -m 10 -w '%{http_code}' https://proxy.golang.org/)"
`
	// Loopback targets only: tests send no traffic beyond this machine's
	// loopback. The worker's other addresses are refused by the same check
	// (TestEgressDenied).
	targets := []string{"127.0.0.1:5432", fmt.Sprintf("127.0.0.1:%d", port)}
	r, err := b.Run(context.Background(), Cmd{
		Args:    append([]string{"/bin/sh", "-c", script, "sh"}, targets...),
		Network: true,
		Limits:  Limits{WallTime: 60 * time.Second, MemoryBytes: 256 << 20, Processes: 64},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := string(r.Stdout)
	t.Logf("exit %d\n%s%s", r.ExitCode, out, r.Stderr)
	if !strings.Contains(out, "ifaces lo \n") {
		t.Errorf("with Network the sandbox must keep its own namespace with only lo:\n%s", out)
	}
	for _, target := range targets {
		if !strings.Contains(out, "direct "+target+" 000 7") {
			t.Errorf("%s reachable directly from the sandbox:\n%s", target, out)
		}
		if !strings.Contains(out, "proxy "+target+" 403 56") {
			t.Errorf("%s not refused by the egress proxy:\n%s", target, out)
		}
	}
	select {
	case <-accepted:
		t.Errorf("the host listener accepted a connection from the sandbox")
	default:
	}
	if online && !strings.Contains(out, "online 200") {
		t.Errorf("the machine reaches proxy.golang.org but the sandbox does not through the proxy:\n%s", out)
	}
	if !online {
		t.Log("proxy.golang.org unreachable from this machine: the way out is not checked")
	}
}
