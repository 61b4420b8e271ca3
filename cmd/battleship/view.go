package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/web/board"
	"github.com/broadside/broadside/web/static"
)

const viewUsage = `Usage: battleship view [--addr HOST:PORT] REPLAY

Serves the replay viewer for REPLAY on this machine: a replay folder written
by battleship or by the original 2017 engine, or a replay zip downloaded from
the portal. Without --addr it picks a free port on 127.0.0.1. It prints the
URL and serves until interrupted.

The viewer shows every bot's log. An --addr other machines can reach (such
as 0.0.0.0:8000) shows them to anyone on the network, with a warning. Links
inside a replay folder that lead out of it are refused, and requests must
name this server (an address, localhost or the --addr host): a web page
cannot reach the viewer through a name of its own (DNS rebinding).
`

// viewCommand is `battleship view`; it returns the exit status.
func viewCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("view", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	addr := fl.String("addr", "127.0.0.1:0", "")
	err := fl.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, viewUsage)
		return exitPlayed
	}
	if err == nil && fl.NArg() != 1 {
		err = errors.New("view takes one replay folder or zip")
	}
	if err != nil {
		fmt.Fprintf(stderr, "battleship: %v\n\n%s", err, viewUsage)
		return exitUsage
	}
	if err := view(ctx, fl.Arg(0), *addr, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "battleship: %v\n", err)
		return exitFailed
	}
	return exitPlayed
}

func view(ctx context.Context, path, addr string, stdout, stderr io.Writer) error {
	fsys, closer, err := openReplay(path)
	if err != nil {
		return err
	}
	defer closer.Close()
	rp, err := board.Open(fsys)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	bound := ln.Addr().(*net.TCPAddr)
	named, _, _ := net.SplitHostPort(addr)
	handler := checkHost(viewHandler(rp, filepath.Base(path)), named, bound.Port)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	if !bound.IP.IsLoopback() {
		fmt.Fprintf(stderr, "battleship: warning: %s can be reached from other machines; "+
			"anyone on the network can see this replay, every bot's log included.\n", net.JoinHostPort(named, strconv.Itoa(bound.Port)))
	}
	fmt.Fprintf(stdout, "Viewing %s at http://%s/\n", path, ln.Addr())
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openReplay opens a replay folder, or a zip of one.
func openReplay(path string) (fs.FS, io.Closer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open replay: %w", err)
	}
	if fi.IsDir() {
		// A replay folder comes from bots' output: a link in it that
		// leads out of it (to ~/.ssh, say) is refused, not followed.
		root, err := os.OpenRoot(path)
		if err != nil {
			return nil, nil, fmt.Errorf("open replay: %w", err)
		}
		return root.FS(), root, nil
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is neither a replay folder nor a zip: %w", path, err)
	}
	return zr, zr, nil
}

// viewHandler serves the viewer of one replay: the page at a round, each
// round's fragment, and the stylesheet and script. Everything is local, so
// every bot's log is shown.
func viewHandler(rp *board.Replay, title string) http.Handler {
	o := board.Options{ShowLog: func(string) bool { return true }}
	nav := board.Nav{Page: "/", Fragments: "/rounds/"}
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static.FS)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		round, err := strconv.Atoi(r.URL.Query().Get("round"))
		if err != nil {
			round = rp.Count() - 1 // a replay opens on its end, as on the portal
		}
		f, err := rp.Frame(round, o)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		render(w, r, board.Page(title, f, board.ChartOf(rp.Scores(o)), nav))
	})
	mux.HandleFunc("GET /rounds/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil || n < 0 || n >= rp.Count() {
			http.Error(w, fmt.Sprintf("no such round; this replay has %d", rp.Count()), http.StatusNotFound)
			return
		}
		f, err := rp.Frame(n, o)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		render(w, r, board.Body(f))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	})
}

func render(w http.ResponseWriter, r *http.Request, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// checkHost answers only requests whose Host names this server: an IP
// address, localhost, or the host given in --addr (named), on its port.
// A page of another site whose name was pointed at this machine (DNS
// rebinding) sends its own name, and is refused.
func checkHost(next http.Handler, named string, port int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, p, err := net.SplitHostPort(r.Host)
		if err != nil {
			host, p = r.Host, "80"
		}
		_, ipErr := netip.ParseAddr(strings.Trim(host, "[]"))
		known := ipErr == nil || strings.EqualFold(host, "localhost") || (named != "" && strings.EqualFold(host, named))
		if !known || p != strconv.Itoa(port) {
			http.Error(w, fmt.Sprintf("This viewer answers to http://localhost:%d/ or an address of this machine, not to %q.", port, r.Host),
				http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
