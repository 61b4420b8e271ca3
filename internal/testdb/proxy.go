package testdb

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy stands between the code under test and PostgreSQL as a network
// would, so a test can take the database away for real: Cut drops every
// connection and refuses new ones until Restore.
type Proxy struct {
	ln       net.Listener
	upstream string
	url      string

	mu    sync.Mutex
	up    bool
	conns map[net.Conn]struct{}
}

// StartProxy forwards a local port to the server of dbURL until the test
// ends.
func StartProxy(t testing.TB, dbURL string) *Proxy {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("testdb: proxy: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testdb: proxy: %v", err)
	}
	p := &Proxy{ln: ln, upstream: u.Host, up: true, conns: map[net.Conn]struct{}{}}
	u.Host = ln.Addr().String()
	p.url = u.String()
	t.Cleanup(func() {
		ln.Close()
		p.Cut()
	})
	go p.serve()
	return p
}

// URL is the database's URL through the proxy.
func (p *Proxy) URL() string { return p.url }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

// forward joins one client to a new upstream connection, or hangs up at
// once while the proxy is cut.
func (p *Proxy) forward(c net.Conn) {
	if !p.isUp() {
		c.Close()
		return
	}
	u, err := net.Dial("tcp", p.upstream)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if !p.up {
		p.mu.Unlock()
		c.Close()
		u.Close()
		return
	}
	p.conns[c], p.conns[u] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(u, c)
	go pipe(c, u)
	<-done
	c.Close()
	u.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, u)
	p.mu.Unlock()
}

func (p *Proxy) isUp() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.up
}

// Cut drops every connection and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = false
	for c := range p.conns {
		c.Close()
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = true
}
