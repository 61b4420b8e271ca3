package main

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// zipDir zips a replay folder the way the worker stores it: paths
// relative to the folder.
func zipDir(t *testing.T, dir, to string) {
	t.Helper()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	zw := zip.NewWriter(out)
	if err := zw.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// serveView starts `battleship view` with args and returns its URL, read
// from what it prints.
func (k kit) serveView(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, k.bin, append([]string{"view"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("view printed no URL: %v", err)
	}
	m := regexp.MustCompile(`at (http://\S+/)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("view printed %q", line)
	}
	return m[1]
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestView serves a match played here, its zip as the portal stores it,
// and a folder the original 2017 engine wrote, each with an SVG board on
// its page and on a round of its own.
func TestView(t *testing.T) {
	needTool(t, "go")
	k := newKit(t)
	played := filepath.Join(t.TempDir(), "replay")
	if r := k.play(t, "-b", "entelect-go-reference", "entelect-go-reference", "-s", "1", "--seed", "5", "-l", played); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	zipped := filepath.Join(t.TempDir(), "match-1-replay.zip")
	zipDir(t, played, zipped)
	original, err := filepath.Abs("../../internal/game/entelect/testdata/golden/v1.2.2-mono-medium-10x10")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	cases := []struct {
		name string
		args []string
		// want is in the page of round 1.
		want string
	}{
		{"a match played locally", []string{played}, "Phase 2 - Round 1"},
		{"the replay zip", []string{zipped}, "Phase 2 - Round 1"},
		{"the original engine's folder, at a given address", []string{"--addr", fmt.Sprintf("127.0.0.1:%d", port), original}, "Phase 2 - Round 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := k.serveView(t, c.args...)
			status, page := getBody(t, url)
			if status != 200 || !strings.Contains(page, `<svg xmlns="http://www.w3.org/2000/svg" class="grid"`) || !strings.Contains(page, "/static/viewer.js") {
				t.Fatalf("GET /: %d\n%.2000s", status, page)
			}
			if n := strings.Count(page, `class="grid"`); n != 2 {
				t.Errorf("%d boards on the page, want 2", n)
			}
			status, round := getBody(t, url+"rounds/1")
			if status != 200 || !strings.Contains(round, c.want) || strings.Contains(round, "<html") {
				t.Errorf("GET /rounds/1: %d, not a fragment of round 1\n%.500s", status, round)
			}
			if status, _ := getBody(t, url+"rounds/100000"); status != 404 {
				t.Errorf("a round past the end: %d", status)
			}
			if status, js := getBody(t, url+"static/viewer.js"); status != 200 || !strings.Contains(js, "EventSource") {
				t.Errorf("viewer.js: %d", status)
			}
		})
	}
	t.Run("not a replay", func(t *testing.T) {
		r := k.play(t, "view", t.TempDir())
		if r.code != exitFailed || !strings.Contains(r.stderr, "no replay found") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})
	t.Run("no replay named", func(t *testing.T) {
		if r := k.play(t, "view"); r.code != exitUsage || !strings.Contains(r.stderr, "Usage: battleship view") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})
}
