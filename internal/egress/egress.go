// Package egress decides which addresses the platform's own outgoing
// requests may reach: only the public internet, never the host itself nor
// a private, loopback, link-local or reserved network. The check runs on
// the resolved address of each connection (a net.Dialer Control function),
// so a name that resolves to an internal address, or that changes its
// answer between a check and the connection (DNS rebinding), is refused
// too.
package egress

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// reservedPrefixes are address ranges that are neither private nor public:
// this network, carrier-grade NAT, IETF protocol assignments,
// benchmarking, reserved, and NAT64 (which could reach any IPv4 address,
// private ones included).
var reservedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

// NotPublic reports whether a is not an address of the public internet.
func NotPublic(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return true
	}
	for _, p := range reservedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// OwnAddresses returns the host's interface addresses.
func OwnAddresses() map[netip.Addr]bool {
	own := map[netip.Addr]bool{}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				own[p.Addr().Unmap()] = true
			}
		}
	}
	return own
}

// Policy is the rule a dialer applies.
type Policy struct {
	// Own are the host's addresses, refused like loopback.
	Own map[netip.Addr]bool
	// AllowLoopback lets connections reach loopback addresses, for
	// development and tests only (DEV_MODE).
	AllowLoopback bool
}

// NewPolicy returns the production policy with the host's addresses.
func NewPolicy() Policy { return Policy{Own: OwnAddresses()} }

// RefusedError is the error of a connection the policy refused.
type RefusedError struct{ Addr netip.Addr }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("egress: %s is not a public address", e.Addr)
}

// Check refuses an address that is not public.
func (p Policy) Check(a netip.Addr) error {
	a = a.Unmap()
	if p.AllowLoopback && a.IsLoopback() {
		return nil
	}
	if NotPublic(a) || p.Own[a] {
		return &RefusedError{Addr: a}
	}
	return nil
}

// Control is a net.Dialer Control function that refuses connections to
// addresses the policy refuses.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("egress: %w", err)
	}
	return p.Check(ap.Addr())
}

// Dialer returns a dialer that applies the policy to every connection.
func (p Policy) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: p.Control}
}
