package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/testenv"
)

// startView runs `battleship view args...` in this process until the test
// ends and returns the port it serves on and what it writes on stderr.
func startView(t *testing.T, args ...string) (port string, stderr *testenv.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	stderr = &testenv.Buffer{}
	done := make(chan int, 1)
	go func() { done <- viewCommand(ctx, args, w, stderr); w.Close() }()
	t.Cleanup(func() { cancel(); <-done })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("view printed no URL: %v; stderr: %s", err, stderr)
	}
	go io.Copy(io.Discard, out)
	m := regexp.MustCompile(`at http://\S+:(\d+)/`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("view printed %q", line)
	}
	return m[1], stderr
}

// getAs fetches path from the viewer on 127.0.0.1:port with the Host
// header host.
func getAs(t *testing.T, port, host, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+port+path, nil)
	req.Host = host
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestViewSafety: a replay folder's links that lead out of it are not
// followed (one inside it is); the viewer answers only requests that name
// it, so a page of another site pointed at it by DNS cannot read it; and
// an address other machines can reach is served with a warning.
func TestViewSafety(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replay")
	if err := os.CopyFS(dir, os.DirFS("../../internal/game/entelect/testdata/golden/v1.2.2-mono-small-7x7")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(secret, []byte("SECRET KEY MATERIAL"), 0o600); err != nil {
		t.Fatal(err)
	}
	round := filepath.Join(dir, "Phase 1 - Round 0")
	for link, target := range map[string]string{
		"A/log.txt":     secret,                                                            // out of the folder, absolute
		"A/command.txt": "../../../" + filepath.Base(filepath.Dir(secret)) + "/id_ed25519", // out, relative
		"B/log.txt":     "place.txt",                                                       // inside
	} {
		if err := os.Symlink(target, filepath.Join(round, link)); err != nil {
			t.Fatal(err)
		}
	}

	port, stderr := startView(t, dir)
	status, page := getAs(t, port, "127.0.0.1:"+port, "/")
	if status != http.StatusOK || strings.Contains(page, "SECRET") {
		t.Errorf("GET /: %d, the secret shown: %v", status, strings.Contains(page, "SECRET"))
	}
	if !strings.Contains(page, "Carrier 2 5 South") {
		t.Errorf("the link inside the folder was not followed")
	}
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("a warning for a loopback address: %s", stderr)
	}

	for _, c := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST:" + port, http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusMisdirectedRequest},
		{"localhost.evil.example:" + port, http.StatusMisdirectedRequest},
		{"evil.example", http.StatusMisdirectedRequest},
		{"127.0.0.1:1", http.StatusMisdirectedRequest},
	} {
		if status, _ := getAs(t, port, c.host, "/rounds/0"); status != c.want {
			t.Errorf("Host %q: %d, want %d", c.host, status, c.want)
		}
	}

	t.Run("reachable from other machines", func(t *testing.T) {
		port, stderr := startView(t, "--addr", "0.0.0.0:0", dir)
		if !strings.Contains(stderr.String(), "warning: 0.0.0.0:"+port+" can be reached from other machines") {
			t.Errorf("no warning for 0.0.0.0: %q", stderr)
		}
		if status, _ := getAs(t, port, "127.0.0.1:"+port, "/"); status != http.StatusOK {
			t.Errorf("GET /: %d", status)
		}
	})
	t.Run("a host name given", func(t *testing.T) {
		port, _ := startView(t, "--addr", "localhost:0", dir)
		if status, _ := getAs(t, port, fmt.Sprintf("localhost:%s", port), "/"); status != http.StatusOK {
			t.Errorf("GET / as localhost: %d", status)
		}
	})
}
