package egress_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/egress"
)

func TestCheck(t *testing.T) {
	own := netip.MustParseAddr("198.51.100.7")
	prod := egress.Policy{Own: map[netip.Addr]bool{own: true}}
	dev := egress.Policy{Own: prod.Own, AllowLoopback: true}
	cases := []struct {
		addr      string
		prod, dev bool // allowed
	}{
		{"93.184.216.34", true, true},
		{"2606:2800:220:1:248:1893:25c8:1946", true, true},
		{"127.0.0.1", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"10.0.0.1", false, false},
		{"172.16.5.4", false, false},
		{"192.168.1.1", false, false},
		{"::ffff:192.168.1.1", false, false},
		{"169.254.169.254", false, false},
		{"fe80::1", false, false},
		{"fd00::1", false, false},
		{"100.64.0.1", false, false},
		{"0.0.0.0", false, false},
		{"::", false, false},
		{"224.0.0.1", false, false},
		{"64:ff9b::a00:1", false, false},
		{"198.51.100.7", false, false}, // the host's own
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		if err := prod.Check(a); (err == nil) != c.prod {
			t.Errorf("production Check(%s) = %v, want allowed %v", c.addr, err, c.prod)
		}
		if err := dev.Check(a); (err == nil) != c.dev {
			t.Errorf("development Check(%s) = %v, want allowed %v", c.addr, err, c.dev)
		}
	}
}

// TestDialerRefusesLoopback: the dialer checks the address it connects
// to, whatever name was asked for: "localhost" resolves to loopback and
// is refused before a connection is made.
func TestDialerRefusesLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the server was reached: %s %s", r.Method, r.URL)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, host := range []string{"127.0.0.1", "localhost"} {
		_, err := egress.NewPolicy().Dialer(time.Second).DialContext(ctx, "tcp", net.JoinHostPort(host, port))
		var refused *egress.RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("dial %s: %v, want a refusal", host, err)
		}
	}
	conn, err := egress.Policy{AllowLoopback: true}.Dialer(time.Second).DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		t.Fatalf("development dial: %v", err)
	}
	conn.Close()
}
