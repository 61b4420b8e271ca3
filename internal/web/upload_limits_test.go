package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/web"
)

// TestUploadLimits fills one user's build queue and then their hourly
// uploads, on the platform's own River queue: past each limit the API
// answers 429 with Retry-After and the upload page says why, nothing of
// the refused upload is kept, and another user is not held back.
func TestUploadLimits(t *testing.T) {
	b := boot(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()}, "mem://", func(c *web.Config) {
		c.UploadMaxQueuedBuilds, c.UploadsPerHour = 2, 3
	}, func(pool *pgxpool.Pool) web.Queue {
		q, err := jobs.NewClient(pool)
		if err != nil {
			t.Fatal(err)
		}
		return q
	})
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	annTok := ann.apiToken("laptop")
	upload := func(token string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/api/bots?name=Pyro", bytes.NewReader(goodZip(t)))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/zip")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		msg, _ := out["error"].(string)
		return res.StatusCode, msg, res.Header
	}
	refused := func(what string, token string, want string, minWait int) {
		t.Helper()
		versions := b.count(t, "bot_versions")
		status, msg, h := upload(token)
		wait, err := strconv.Atoi(h.Get("Retry-After"))
		if status != http.StatusTooManyRequests || !strings.Contains(msg, want) || err != nil || wait < minWait {
			t.Fatalf("%s: %d %q, Retry-After %q; want 429 saying %q, waiting at least %ds", what, status, msg, h.Get("Retry-After"), want, minWait)
		}
		t.Logf("%s: %s (Retry-After %s)", what, msg, h.Get("Retry-After"))
		if b.count(t, "bot_versions") != versions {
			t.Fatalf("%s: the refused upload was recorded", what)
		}
	}

	for range 2 {
		if status, msg, _ := upload(annTok); status != http.StatusCreated {
			t.Fatalf("upload within the limits: %d %s", status, msg)
		}
	}
	refused("a third build while two wait", annTok, "You have 2 builds waiting or running", 1)
	res := ann.upload("", goodZip(t))
	if res.status != http.StatusTooManyRequests || !strings.Contains(pageError(res.body), "builds waiting or running") ||
		!strings.Contains(res.body, `name="zip"`) {
		t.Fatalf("upload page past the build limit: %d %s", res.status, pageError(res.body))
	}
	if res := ben.upload("Flint", goodZip(t)); res.status != http.StatusSeeOther {
		t.Fatalf("another user's upload: %d %s", res.status, pageError(res.body))
	}

	// The builds end (as a worker ends them): the queue has room again,
	// but not the hour.
	if _, err := b.st.DB().Exec(b.ctx, `UPDATE river_job SET state = 'completed', finalized_at = now()`); err != nil {
		t.Fatal(err)
	}
	if status, msg, _ := upload(annTok); status != http.StatusCreated {
		t.Fatalf("upload once the builds ended: %d %s", status, msg)
	}
	refused("a fourth upload within the hour", annTok, "You uploaded 3 versions in the last hour, the most allowed", 3000)
	res = ann.upload("", goodZip(t))
	if res.status != http.StatusTooManyRequests || !strings.Contains(pageError(res.body), "the next upload is possible in") {
		t.Fatalf("upload page past the hourly limit: %d %s", res.status, pageError(res.body))
	}
}
