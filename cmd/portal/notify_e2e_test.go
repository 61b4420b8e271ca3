//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/notify"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
)

// TestWebhookEndToEnd: a contestant registers a webhook through the API
// and uploads a bot; the real worker builds it and delivers a signed
// build.finished to the hook, whose endpoint answers 500 at first, so the
// delivery is retried and then recorded with the 200 the API reports.
func TestWebhookEndToEnd(t *testing.T) {
	t.Parallel()
	testenv.RequireErr(t, "an enforced sandbox", sandbox.Require(sandbox.Probe(context.Background())))
	bs := startPortal(t, 10*time.Minute, "DEV_MODE=true", "LADDER_INTERVAL=off")
	ctx := bs.ctx
	pool, err := pgxpool.New(ctx, bs.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	api := hostileAPI{t: t, base: bs.base, token: newAPIToken(t, ctx, store.New(pool), "ann")}

	type delivery struct {
		header http.Header
		body   []byte
	}
	got := make(chan delivery, 8)
	var mu sync.Mutex
	calls := 0
	hookSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			w.WriteHeader(http.StatusInternalServerError)
		}
		got <- delivery{r.Header.Clone(), body}
	}))
	defer hookSrv.Close()

	var hook struct {
		ID     int64  `json:"id"`
		Secret string `json:"secret"`
		Error  string `json:"error"`
	}
	reqBody := fmt.Appendf(nil, `{"url": %q, "events": ["build.finished", "build.failed"]}`, hookSrv.URL+"/broadside")
	if status := api.do("POST", "/api/me/webhooks", "application/json", reqBody, &hook); status != http.StatusCreated {
		t.Fatalf("register webhook: %d %s", status, hook.Error)
	}
	botID := api.upload(filepath.Join("..", "..", "bots", "entelect-python3"), "Pyro", nil)
	api.waitBuilt(ctx, botID)

	var firstID int64
	for attempt := 1; attempt <= 2; attempt++ {
		var d delivery
		select {
		case d = <-got:
		case <-ctx.Done():
			t.Fatalf("gave up waiting for delivery attempt %d", attempt)
		}
		if err := notify.Verify(hook.Secret, d.header.Get("X-Broadside-Signature"), d.header.Get("X-Broadside-Timestamp"),
			d.body, time.Now(), 5*time.Minute); err != nil {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		var p struct {
			ID   int64  `json:"id"`
			Type string `json:"type"`
			Data struct {
				Bot struct {
					ID   int64  `json:"id"`
					Name string `json:"name"`
				} `json:"bot"`
				Version int `json:"version"`
			} `json:"data"`
		}
		if err := json.Unmarshal(d.body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Type != "build.finished" || p.Data.Bot.ID != botID || p.Data.Bot.Name != "Pyro" || p.Data.Version != 1 {
			t.Fatalf("attempt %d: %s", attempt, d.body)
		}
		if attempt == 1 {
			firstID = p.ID
		} else if p.ID != firstID {
			t.Fatalf("the retry carries event %d, the first attempt %d", p.ID, firstID)
		}
	}
	// The worker records the answer after it came; the API shows it.
	for {
		var n struct {
			Deliveries []struct {
				Status     string `json:"status"`
				StatusCode *int   `json:"status_code"`
				Attempts   int    `json:"attempts"`
			} `json:"deliveries"`
		}
		api.do("GET", "/api/me/notifications", "", nil, &n)
		if len(n.Deliveries) == 1 && n.Deliveries[0].Status == "delivered" {
			if d := n.Deliveries[0]; d.Attempts != 2 || d.StatusCode == nil || *d.StatusCode != http.StatusOK {
				t.Fatalf("delivery: %+v", d)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for the delivery to be recorded: %+v", n.Deliveries)
		case <-time.After(250 * time.Millisecond):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 {
		t.Errorf("the endpoint was called %d times", calls)
	}
}
