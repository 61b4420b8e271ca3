//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/broadside/broadside/internal/egress"
)

// A command with Cmd.Network keeps a network namespace of its own, with
// only a loopback interface: sharing the host's would expose every service
// listening on the host (Postgres on 127.0.0.1:5432, the portal). Its way
// out is an HTTP proxy. Inside the sandbox a relay (the worker's binary
// again, as PID 1) listens on 127.0.0.1:egressPort and forwards each
// connection to a Unix socket mounted from the host, where the worker's
// egress proxy dials only public addresses on the web ports.
const (
	egressPort   = "3128"
	egressSocket = "/.broadside-egress.sock"
)

// egressEnv points package managers at the relay. Go, pip, npm, yarn,
// cargo, curl and dotnet read the usual variables; Maven reads MAVEN_OPTS.
func egressEnv() []string {
	u := "http://127.0.0.1:" + egressPort
	return []string{
		"HTTP_PROXY=" + u, "HTTPS_PROXY=" + u, "http_proxy=" + u, "https_proxy=" + u,
		"npm_config_proxy=" + u, "npm_config_https_proxy=" + u, "NO_PROXY=", "no_proxy=",
		"MAVEN_OPTS=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=" + egressPort +
			" -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=" + egressPort,
	}
}

// egressPorts are the destination ports the proxy dials: package registries
// and source hosts speak HTTP and HTTPS.
var egressPorts = map[string]bool{"80": true, "443": true}

// egressProxy is the host side of one command's way out.
type egressProxy struct {
	dir     string
	socket  string
	srv     *http.Server
	dialer  *net.Dialer
	forward *httputil.ReverseProxy
	own     map[netip.Addr]bool
	log     *slog.Logger

	mu      sync.Mutex
	tunnels map[net.Conn]bool
}

// startEgress starts a proxy listening on a Unix socket in a private
// folder; close stops it and removes the folder.
func startEgress(log *slog.Logger) (*egressProxy, error) {
	dir, err := os.MkdirTemp("", "broadside-egress-")
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	// The worker's own addresses reach its services as well as loopback.
	e := &egressProxy{dir: dir, socket: filepath.Join(dir, "proxy.sock"), own: egress.OwnAddresses(),
		log: log, tunnels: map[net.Conn]bool{}}
	e.dialer = &net.Dialer{Timeout: 15 * time.Second, Control: e.checkDial}
	e.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{DialContext: e.dialer.DialContext, ResponseHeaderTimeout: time.Minute},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "sandbox egress: "+err.Error(), http.StatusBadGateway)
		},
	}
	ln, err := net.Listen("unix", e.socket)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	e.srv = &http.Server{Handler: e, ReadHeaderTimeout: 30 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// close stops the proxy, ends its tunnels and removes its socket.
func (e *egressProxy) close() {
	_ = e.srv.Close()
	e.mu.Lock()
	for c := range e.tunnels {
		c.Close()
	}
	e.tunnels = nil
	e.mu.Unlock()
	os.RemoveAll(e.dir)
}

// denied reports whether a is an address of the host or of a network that
// is not the public internet (the rule the portal's webhooks follow too).
func (e *egressProxy) denied(a netip.Addr) bool {
	return egress.NotPublic(a) || e.own[a.Unmap()]
}

// checkDial runs on the resolved address of every connection the proxy
// makes, so a name that resolves to a host address is refused too.
func (e *egressProxy) checkDial(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("sandbox egress: %w", err)
	}
	if e.denied(ap.Addr()) {
		return fmt.Errorf("sandbox egress: %s is not a public address", ap.Addr())
	}
	if !egressPorts[fmt.Sprint(ap.Port())] {
		return fmt.Errorf("sandbox egress: port %d is not a web port", ap.Port())
	}
	return nil
}

// ServeHTTP tunnels CONNECT requests and forwards plain HTTP requests.
func (e *egressProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		e.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "sandbox egress: not a proxy request", http.StatusBadRequest)
		return
	}
	e.forward.ServeHTTP(w, r)
}

func (e *egressProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	up, err := e.dialer.DialContext(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		e.log.Info("sandbox egress refused", "host", r.Host, "err", err)
		http.Error(w, fmt.Sprintf("sandbox egress: %s: %v", r.Host, err), http.StatusForbidden)
		return
	}
	down, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		http.Error(w, "sandbox egress: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if !e.track(up, down) {
		return
	}
	defer e.untrack(up, down)
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		// Bytes the client sent after its request are in buf.
		_, _ = io.Copy(up, buf)
		closeWrite(up)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(down, up)
		closeWrite(down)
		done <- struct{}{}
	}()
	<-done
	<-done
}

// track registers a tunnel's connections so close can end them; it
// refuses (and closes them) once the proxy is closed.
func (e *egressProxy) track(conns ...net.Conn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tunnels == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		e.tunnels[c] = true
	}
	return true
}

func (e *egressProxy) untrack(conns ...net.Conn) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(e.tunnels, c)
	}
}

// closeWrite half-closes c where it can, so the other side sees the end of
// the stream while replies still flow.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	c.Close()
}
