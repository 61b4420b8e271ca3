package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
)

// headerLines lists each item of the page's header with the number of
// lines its text takes: "Log out=1".
const headerLines = `(() => {
	const out = [];
	document.querySelectorAll("header.site nav > a, header.site nav button").forEach(el => {
		const r = document.createRange();
		r.selectNodeContents(el);
		const tops = new Set(Array.from(r.getClientRects()).map(c => Math.round(c.top)));
		out.push(el.textContent.trim() + "=" + tops.size);
	});
	return out.join("\n");
})()`

// TestBrowserHeaderFits: in a laptop's 1280 px window, the header of an
// organiser with a 32-character name, the longest header there is, keeps
// every link and "Log out" on one line each. How full a row gets depends
// on the fonts of the machine, so the header is then narrowed until each
// item stands on a row of its own, squeezed as far as a wider font could:
// an item that breaks inside (the "Log out" button did) fails there.
func TestBrowserHeaderFits(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	getenv, dbURL := testEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	cfg, err := parseConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := m.Run(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	d := newDriver(t, ctx, "http://"+m.Addr())
	name := "Wilhelmina_Vandersteen-Rasmussen" // 32 characters, the most a name may have
	d.run("a laptop's window", chromedp.EmulateViewport(1280, 900))
	d.run("register", d.register(name))
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `UPDATE users SET role = 'organiser' WHERE username = $1`, name); err != nil {
		t.Fatal(err)
	}
	d.run("see the header as an organiser", navigate(d.base+"/account"), chromedp.WaitVisible(`//a[text()="Admin"]`))
	check := func(when string) {
		t.Helper()
		lines := d.get("the header's items "+when, chromedp.Evaluate[string](headerLines))
		if !strings.Contains(lines, "Log out=") || !strings.Contains(lines, "Admin=") || !strings.Contains(lines, name+"=") {
			t.Fatalf("the header's items %s:\n%s", when, lines)
		}
		for _, item := range strings.Split(lines, "\n") {
			if !strings.HasSuffix(item, "=1") {
				t.Errorf("%s, a header item takes more than one line: %s", when, item)
			}
		}
	}
	check("at 1280 px")
	d.get("narrow the header", chromedp.Evaluate[string](`document.querySelector("header.site nav").style.maxWidth = "40px"`))
	check("with the header squeezed")
}
