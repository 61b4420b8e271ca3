package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
)

// sseEvent is one event read from a server-sent event stream.
type sseEvent struct {
	name, data, id string
	at             time.Time
}

// readSSE reads the event stream at url with client until it ends or
// ctx does, sending each event on the returned channel, which closes at
// the end. Events are read one at a time, as a browser's EventSource does.
func readSSE(ctx context.Context, t *testing.T, client *http.Client, url string, header http.Header) <-chan sseEvent {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		res.Body.Close()
		t.Fatalf("GET %s: %s, %s", url, res.Status, ct)
	}
	out := make(chan sseEvent, 64)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					ev.at = time.Now()
					out <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			}
		}
	}()
	return out
}

// loginClient signs user in with a plain HTTP client, as a script would,
// and returns the client holding the session.
func loginClient(t *testing.T, ctx context.Context, base, user string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/login", nil)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no form token on the login page:\n%s", body)
	}
	form := url.Values{"username": {user}, "password": {"correct horse battery"}, "csrf_token": {string(m[1])}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "Log out") {
		t.Fatalf("login as %s: %s\n%.2000s", user, res.Status, body)
	}
	return c
}

// slowCppZip is the C++ starter whose Makefile waits before compiling, so
// its build lasts long enough to be watched.
func slowCppZip(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "bots", "entelect-cplusplus")
	for _, name := range []string{"bot.cpp", "json.hpp", "bot.json"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk := "bot: bot.cpp json.hpp\n\t@echo waiting before compiling\n\tsleep 15\n\tg++ -std=c++17 -O1 -o bot bot.cpp\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := botzip.Pack(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "slow.zip")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBrowserBuildLogLive uploads a bot whose build takes a while and
// follows the build as its owner does: the bot page in Chromium shows the
// log while the build runs and the result when it ends, without polling;
// a plain SSE client of the owner gets the log piece by piece before the
// end, and one of a visitor gets the status without the log.
func TestBrowserBuildLogLive(t *testing.T) {
	t.Parallel()
	bs := startPortal(t, 8*time.Minute, "LADDER_INTERVAL=off")
	ctx, base := bs.ctx, bs.base
	conn, err := pgx.Connect(ctx, bs.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	shots := t.ArtifactDir()
	d := newDriver(t, ctx, base)
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(d.browser, chromedp.FullScreenshot(100))
		if err != nil {
			d.fail("screenshot "+name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.run("viewport", chromedp.EmulateViewport(1280, 900))
	d.run("bea registers", d.register("bea"))
	owner := loginClient(t, ctx, base, "bea")

	d.run("upload the slow bot", d.uploadBuilding("Slowpoke", slowCppZip(t)))
	loc := d.get("the bot page", chromedp.Location())
	botPath := strings.SplitN(strings.TrimPrefix(loc, base), "?", 2)[0]
	events := base + botPath + "/versions/1/events"
	mine := readSSE(ctx, t, owner, events, nil)
	theirs := readSSE(ctx, t, http.DefaultClient, events, nil)

	// The log shows on the page while the build runs; the page has not
	// reloaded (a refresh would drop the mark).
	d.run("mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	d.run("the log appears while building", chromedp.Poll[chromedp.Void](
		`window.notReloaded === true && document.querySelector("pre.build-log").textContent.includes("$ ") &&
		 document.querySelector(".build-live").parentElement.querySelector("span").textContent === "building"`,
		chromedp.WithPollingTimeout(3*time.Minute)))
	shot("build-live")

	// The owner's stream: the log before the end, read while the build
	// is still going, and the pieces make up the recorded log.
	var text strings.Builder
	var names []string
	sawLogWhileBuilding := false
	for ev := range mine {
		names = append(names, ev.name)
		switch ev.name {
		case "log":
			var status string
			if err := conn.QueryRow(ctx, `SELECT build_status FROM bot_versions WHERE number = 1 AND bot_id = (SELECT id FROM bots WHERE name = 'Slowpoke')`).Scan(&status); err != nil {
				t.Fatal(err)
			}
			if status == "building" {
				sawLogWhileBuilding = true
			}
			m := regexp.MustCompile(`"text":("(?:[^"\\]|\\.)*")`).FindStringSubmatch(ev.data)
			if m == nil {
				t.Fatalf("log event without text: %s", ev.data)
			}
			var s string
			fmt.Sscanf(m[1], "%q", &s)
			text.WriteString(s)
		case "end":
			if ev.data != `{"status":"ok"}` {
				t.Errorf("end of the build: %s", ev.data)
			}
		}
	}
	if len(names) == 0 || names[0] != "status" || names[len(names)-1] != "end" {
		t.Fatalf("owner's events %v", names)
	}
	if !sawLogWhileBuilding {
		t.Errorf("no log event arrived while the build ran: %v", names)
	}
	var recorded string
	if err := conn.QueryRow(ctx, `SELECT build_log FROM bot_versions WHERE number = 1 AND bot_id = (SELECT id FROM bots WHERE name = 'Slowpoke')`).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	if text.String() != recorded {
		t.Errorf("the streamed log differs from the recorded one:\nstreamed:\n%s\nrecorded:\n%s", text.String(), recorded)
	}
	var visitor []string
	for ev := range theirs {
		visitor = append(visitor, ev.name)
		if ev.name == "log" {
			t.Errorf("a visitor got the build log: %s", ev.data)
		}
	}
	if len(visitor) == 0 || visitor[len(visitor)-1] != "end" {
		t.Errorf("visitor's events %v", visitor)
	}

	// The page reloads itself with the result and the whole log.
	d.run("the page shows the result", chromedp.WaitVisible(`//span[contains(@class, "build-ok")]`),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("details pre")].some(p => p.textContent.includes("Build succeeded."))`))
	shot("build-done")

	// A finished build's stream ends at once.
	for ev := range readSSE(ctx, t, owner, events, nil) {
		if ev.name != "end" {
			t.Errorf("finished build streams %s", ev.name)
		}
	}
}
