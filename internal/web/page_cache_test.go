package web

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestPublicListCache: the match list and head to head are served from
// memory within the interval, each list and page under its own key, and
// read afresh after it.
func TestPublicListCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, owner := cacheTestStore(t)
	a, av := cacheTestBot(t, st, owner, "first")
	b, bv := cacheTestBot(t, st, owner, "second")
	play := func() {
		m, err := st.MatchCreate(ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 1, Kind: "challenge",
			Players: []store.MatchPlayerParams{{BotID: a, BotVersionID: av}, {BotID: b, BotVersionID: bv}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.MatchStart(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		if err := st.MatchFinish(ctx, store.MatchFinishParams{ID: m.ID, Rounds: 1, Summary: json.RawMessage(`{}`),
			Players: []store.MatchPlayerResult{{Seat: 0, Outcome: "win", Rank: 1}, {Seat: 1, Outcome: "loss", Rank: 2}}}); err != nil {
			t.Fatal(err)
		}
	}
	clock := time.Unix(1_000_000, 0)
	h := &Handler{store: st, board: newLeaderboardCache(2*time.Second, func() time.Time { return clock })}
	list := func(p store.MatchListParams) int {
		t.Helper()
		ms, err := h.matchRows(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return len(ms)
	}
	vs := func(x, y int64) int {
		t.Helper()
		d, err := h.headToHeadData(ctx, x, y, false)
		if err != nil {
			t.Fatal(err)
		}
		if d.sum.Games != len(d.matches) {
			t.Fatalf("summary of %d games beside %d matches", d.sum.Games, len(d.matches))
		}
		return d.sum.Games
	}

	play()
	first := store.MatchListParams{Limit: 51}
	if n := list(first); n != 1 {
		t.Fatalf("first read: %d matches", n)
	}
	if n := vs(a, b); n != 1 {
		t.Fatalf("first head to head: %d games", n)
	}
	play()
	clock = clock.Add(time.Second)
	for _, c := range []struct {
		name string
		got  int
		want int
	}{
		{"the same list within the interval", list(first), 1},
		{"the same pair within the interval", vs(a, b), 1},
		{"a list of another size", list(store.MatchListParams{Limit: 10}), 2},
		{"the second page", list(store.MatchListParams{Limit: 1, Offset: 1}), 1},
		{"the list with hidden games", list(store.MatchListParams{Limit: 51, WithHidden: true}), 2},
		{"a bot's list", list(store.MatchListParams{Limit: 51, BotID: a}), 2},
		{"the pair the other way round", vs(b, a), 2},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	clock = clock.Add(2 * time.Second)
	if n := list(first); n != 2 {
		t.Errorf("after the interval: %d matches, want 2", n)
	}
	if n := vs(a, b); n != 2 {
		t.Errorf("head to head after the interval: %d games, want 2", n)
	}
}

// cacheTestStore is a store in a rolled-back transaction, with a user
// to own bots.
func cacheTestStore(t *testing.T) (*store.Store, int64) {
	t.Helper()
	st := store.NewTx(testdb.Tx(t))
	owner, err := st.UserCreate(context.Background(), store.UserCreateParams{Username: "owner", PasswordHash: "!"})
	if err != nil {
		t.Fatal(err)
	}
	return st, owner.ID
}

// cacheTestBot uploads a bot for owner with one built version.
func cacheTestBot(t *testing.T, st *store.Store, owner int64, name string) (botID, versionID int64) {
	t.Helper()
	ctx := context.Background()
	res, err := st.UploadRecord(ctx, store.UploadParams{
		OwnerID: owner, Name: name, Game: "entelect", Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(`{}`), SourceSHA256: "00", SourceSize: 1, SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.BotVersionFinishBuild(ctx, res.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	return res.BotID, res.VersionID
}
