package web_test

import (
	"archive/zip"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/testblob"
)

// TestS3Storage runs the portal's uploads and downloads against a real S3
// server on loopback, and stops that server under an upload.
func TestS3Storage(t *testing.T) {
	srv := testblob.Start(t)
	b := setupBucket(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()}, srv.NewBucket(t))
	alice := b.browser(t)
	alice.register("alice")

	res := alice.upload("", goodZip(t))
	var botID int64
	if _, err := fmt.Sscanf(res.header.Get("Location"), "/bots/%d?uploaded=1", &botID); res.status != http.StatusSeeOther || err != nil {
		t.Fatalf("upload: status %d to %q: %s", res.status, res.header.Get("Location"), res.body)
	}
	attrs, err := b.blobs.Attributes(b.ctx, blob.SourceKey(botID, 1))
	if err != nil || attrs.Size != int64(len(goodZip(t))) {
		t.Fatalf("zip in S3: %+v, %v", attrs, err)
	}

	aBot, aVer := b.builtBot(t, b.userID(t, "alice"), "Ahab")
	bBot, bVer := b.builtBot(t, b.userID(t, "alice"), "Nemo")
	matchID := b.playedMatch(t, [2][2]int64{{aBot, aVer}, {bBot, bVer}})
	matchPath := fmt.Sprintf("/matches/%d", matchID)

	t.Run("the replay viewer reads rounds from S3", func(t *testing.T) {
		page := alice.get(matchPath + "?round=1")
		if page.status != 200 || !strings.Contains(page.body, "round one board of A") {
			t.Fatalf("status %d, round one missing", page.status)
		}
	})
	t.Run("the replay download is streamed with its length and type", func(t *testing.T) {
		stored, err := b.blobs.ReadAll(b.ctx, fmt.Sprintf("replays/%d.zip", matchID))
		if err != nil {
			t.Fatal(err)
		}
		res := alice.get(matchPath + "/replay.zip")
		if res.status != 200 || res.header.Get("Content-Type") != "application/zip" ||
			res.header.Get("Content-Length") != strconv.Itoa(len(stored)) || res.body != string(stored) {
			t.Fatalf("status %d, type %q, length %q (stored %d bytes), body %d bytes",
				res.status, res.header.Get("Content-Type"), res.header.Get("Content-Length"), len(stored), len(res.body))
		}
		if _, err := zip.NewReader(strings.NewReader(res.body), int64(len(res.body))); err != nil {
			t.Fatalf("not a zip: %v", err)
		}
	})
	t.Run("a replay missing from storage is a clear 404", func(t *testing.T) {
		if err := b.blobs.Delete(b.ctx, fmt.Sprintf("replays/%d.zip", matchID)); err != nil {
			t.Fatal(err)
		}
		res := alice.get(matchPath + "/replay.zip")
		if res.status != http.StatusNotFound || !strings.Contains(res.body, "replay file is missing") {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
	})

	t.Run("with the server down an upload fails whole", func(t *testing.T) {
		versions, builds := b.count(t, "bot_versions"), len(b.queue.buildIDs())
		srv.Stop()
		res := alice.upload("Second", goodZip(t))
		if res.status != http.StatusInternalServerError || !strings.Contains(res.body, "Please try again") {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		if n := b.count(t, "bot_versions"); n != versions {
			t.Errorf("%d versions recorded, want %d: the failed upload left a row", n, versions)
		}
		if got := len(b.queue.buildIDs()); got != builds {
			t.Errorf("%d builds queued, want %d", got, builds)
		}
		srv.Restart(t)
		if res := alice.upload("Second", goodZip(t)); res.status != http.StatusSeeOther {
			t.Fatalf("upload once the server is back: status %d: %s", res.status, res.body)
		}
	})
}
