package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
)

// TestBuildLogStreamEnd: the end of a build deletes its live chunks, so a
// stream may learn of the last chunks only after they are gone (here the
// last chunk and the end commit together). The owner still gets the whole
// recorded log before "end": from the first chunk, or after the chunk a
// reconnecting client names. A record that does not begin with what the
// client has (a platform failure replaces the log) adds nothing. The
// "building" announcement of the version's start may reach the portal
// after the stream opened: the stream then says "restart" and the client,
// as the bot page's script does, starts its log again, which the want
// after a restart gives.
func TestBuildLogStreamEnd(t *testing.T) {
	b := setup(t, nil)
	ann := b.browser(t)
	ann.register("ann")
	token := ann.apiToken("laptop")
	owner := b.userID(t, "ann")
	const first, last = "$ make\n", "g++ -o bot bot.cpp\n"
	const record = first + last + "\nBuild succeeded.\n"
	const other = "The build could not run because of a platform problem.\n"
	for i, c := range []struct {
		name, lastEventID, record, want, wantRestarted string
	}{
		{"from the start", "", record, record, record},
		{"after chunk 0", "0", record, last + "\nBuild succeeded.\n", record},
		{"another record", "", other, first, other},
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
			rest, restarted := logToEnd(t, s)
			got, want := got+rest, c.want
			if restarted {
				got, want = rest, c.wantRestarted
			}
			if got != want {
				t.Errorf("the stream's log:\n%q\nwant:\n%q", got, want)
			}
		})
	}
}

// TestBuildStreamAfterListenerLost: events committed while the portal's
// listener was cut off were never announced; once it listens again the
// streams it serves catch up. Here a build ends while the listener is
// down, and its owner's stream still gets the rest of the log and the end
// instead of waiting forever.
func TestBuildStreamAfterListenerLost(t *testing.T) {
	b := setup(t, nil)
	ann := b.browser(t)
	ann.register("ann")
	token := ann.apiToken("laptop")
	owner := b.userID(t, "ann")
	const first, record = "$ make\n", "$ make\ng++ -o bot bot.cpp\n\nBuild succeeded.\n"
	up := b.buildingVersion(t, owner, "Ahab")
	if err := b.st.BuildLogAppend(b.ctx, up.VersionID, store.BuildLogChunk{Seq: 0, Text: first}); err != nil {
		t.Fatal(err)
	}
	listener := b.listenerPID(t, "build_events")
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
		fmt.Sprintf("%s/bots/%d/versions/%d/events", b.srv.URL, up.BotID, up.Number), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	s := openRequest(t, req)
	if name, data := s.next(t); name != "status" {
		t.Fatalf("first event %s %s, want the status", name, data)
	}
	got := logText(t, s)

	// Cut the listener off and wait until its session is gone, then end
	// the build: nobody hears of it.
	var gone bool
	if err := b.pool.QueryRow(b.ctx, `SELECT pg_terminate_backend($1, 30000)`, listener).Scan(&gone); err != nil || !gone {
		t.Fatalf("terminate the portal's listener (pid %d): %v, %v", listener, gone, err)
	}
	err := b.st.InTx(b.ctx, func(_ pgx.Tx, st *store.Store) error {
		if err := st.BuildLogAppend(b.ctx, up.VersionID, store.BuildLogChunk{Seq: 1, Text: "g++ -o bot bot.cpp\n"}); err != nil {
			return err
		}
		return st.BotVersionFinishBuild(b.ctx, up.VersionID, store.BuildResult{Log: record})
	})
	if err != nil {
		t.Fatal(err)
	}
	rest, restarted := logToEnd(t, s)
	if got += rest; restarted {
		got = rest // the start's announcement, late: the whole log again
	}
	if got != record {
		t.Errorf("the stream's log:\n%q\nwant:\n%q", got, record)
	}
}

// listenerPID is the database session of the portal's listener on
// channel, once it listens.
func (b *testBundle) listenerPID(t *testing.T, channel string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var pid int
		err := b.pool.QueryRow(b.ctx, `SELECT pid FROM pg_stat_activity
			WHERE datname = current_database() AND query = $1`, `LISTEN "`+channel+`"`).Scan(&pid)
		if err == nil {
			return pid
		}
		if !errors.Is(err, pgx.ErrNoRows) || time.Now().After(deadline) {
			t.Fatalf("the portal's listener on %s: %v", channel, err)
		}
		time.Sleep(20 * time.Millisecond)
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

// logToEnd reads the log events up to "end" and returns their text; after
// a "restart" the text starts again, as the bot page's script does.
func logToEnd(t *testing.T, s *sseStream) (text string, restarted bool) {
	t.Helper()
	for {
		name, data := s.next(t)
		switch name {
		case "end":
			return text, restarted
		case "log":
			text += logTextOf(t, data)
		case "restart":
			text, restarted = "", true
		default:
			t.Fatalf("event %s %s before the end", name, data)
		}
	}
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
