package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientIP is the address rate limits count a request against. It is the
// peer's address, unless the peer is one of the trusted reverse proxies
// (Config.TrustedProxies): then it is the right-most address of
// X-Forwarded-For that is not a trusted proxy, the one the nearest
// untrusted hop connected from. Entries further left are written by the
// client and prove nothing, so they are never used.
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !isTrusted(peer, trusted) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			// A proxy we trust wrote garbage: count the proxy itself.
			return peer.String()
		}
		peer = a.Unmap()
		if !isTrusted(peer, trusted) {
			return peer.String()
		}
	}
	return peer.String()
}

// addrKey is what the limits count a client address as: an IPv4 address
// by itself, an IPv6 address by its /64. One subscriber or machine
// usually has a whole /64 to itself and can take any address in it, so
// counting each address alone would give it 2^64 allowances.
func addrKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies reads a comma-separated list of addresses and CIDR
// prefixes (TRUSTED_PROXIES).
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
