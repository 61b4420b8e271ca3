package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
)

// TestBuildLogStreamEnd: the end of a build deletes its live chunks, so a
// stream may learn of the last chunks only after they are gone (here the
// last chunk and the end commit together). The owner still gets the whole
// recorded log before "end": from the first chunk, or after the chunk a
// reconnecting client names. A record that does not begin with what the
// client has (a platform failure replaces the log) adds nothing.
func TestBuildLogStreamEnd(t *testing.T) {
	b := setup(t, nil)
	ann := b.browser(t)
	ann.register("ann")
	token := ann.apiToken("laptop")
	owner := b.userID(t, "ann")
	const first, last = "$ make\n", "g++ -o bot bot.cpp\n"
	const record = first + last + "\nBuild succeeded.\n"
	for i, c := range []struct {
		name, lastEventID, record, want string
	}{
		{"from the start", "", record, record},
		{"after chunk 0", "0", record, last + "\nBuild succeeded.\n"},
		{"another record", "", "The build could not run because of a platform problem.\n", first},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := b.buildingVersion(t, owner, fmt.Sprintf("Ahab%d", i))
			if err := b.st.BuildLogAppend(b.ctx, up.VersionID, store.BuildLogChunk{Seq: 0, Text: first}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(b.ctx)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
				fmt.Sprintf("%s/bots/%d/versions/%d/events", b.srv.URL, up.BotID, up.Number), nil)
			req.Header.Set("Authorization", "Bearer "+token)
			if c.lastEventID != "" {
				req.Header.Set("Last-Event-ID", c.lastEventID)
			}
			s := openRequest(t, req)
			if name, data := s.next(t); name != "status" {
				t.Fatalf("first event %s %s, want the status", name, data)
			}
			var got string
			if c.lastEventID == "" {
				got += logText(t, s)
			}
			err := b.st.InTx(b.ctx, func(_ pgx.Tx, st *store.Store) error {
				if err := st.BuildLogAppend(b.ctx, up.VersionID, store.BuildLogChunk{Seq: 1, Text: last}); err != nil {
					return err
				}
				return st.BotVersionFinishBuild(b.ctx, up.VersionID, store.BuildResult{Log: c.record})
			})
			if err != nil {
				t.Fatal(err)
			}
			for {
				name, data := s.next(t)
				if name == "end" {
					break
				}
				if name != "log" {
					t.Fatalf("event %s %s before the end", name, data)
				}
				got += logTextOf(t, data)
			}
			if got != c.want {
				t.Errorf("the stream's log:\n%q\nwant:\n%q", got, c.want)
			}
		})
	}
}

// buildingVersion records an upload of a bot named name for owner and
// marks its version as building.
func (b *testBundle) buildingVersion(t *testing.T, owner int64, name string) *store.UploadResult {
	t.Helper()
	up, err := b.st.UploadRecord(b.ctx, store.UploadParams{OwnerID: owner, Name: name, Game: "entelect",
		Language: "Python3", BotType: "Python3", Manifest: []byte(`{}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: func(id int64, n int) string { return fmt.Sprintf("bots/%d/%d.zip", id, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionStartBuild(b.ctx, up.VersionID); err != nil {
		t.Fatal(err)
	}
	return up
}

// logText reads the next event, a "log" one, and returns its text.
func logText(t *testing.T, s *sseStream) string {
	t.Helper()
	name, data := s.next(t)
	if name != "log" {
		t.Fatalf("event %s %s, want a log", name, data)
	}
	return logTextOf(t, data)
}

func logTextOf(t *testing.T, data string) string {
	t.Helper()
	var ev struct{ Text string }
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		t.Fatalf("log event %s: %v", data, err)
	}
	return ev.Text
}
