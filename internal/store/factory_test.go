package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// testBundle is one test's store inside a rolled-back transaction.
type testBundle struct {
	ctx context.Context
	st  *store.Store
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	t.Parallel()
	return &testBundle{ctx: context.Background(), st: store.NewTx(testdb.Tx(t))}
}

var seq atomic.Int64

// user inserts a user directly: accounts belong to the portal's files.
func (b *testBundle) user(t *testing.T) int64 {
	t.Helper()
	var id int64
	name := fmt.Sprintf("user%d_%s", seq.Add(1), t.Name())
	if err := b.st.DB().QueryRow(b.ctx, `INSERT INTO users (username, password_hash) VALUES ($1, 'x') RETURNING id`,
		name).Scan(&id); err != nil {
		t.Fatalf("insert user: %v", err)
	}
	return id
}

// builtBot creates a bot of a fresh user with one successfully built
// version, its current one.
func (b *testBundle) builtBot(t *testing.T, game string) (*store.Bot, int64) {
	t.Helper()
	bot, err := b.st.BotCreate(b.ctx, store.BotCreateParams{OwnerID: b.user(t), Name: "bot", Game: game, Language: "Python3"})
	if err != nil {
		t.Fatalf("create bot: %v", err)
	}
	v := b.version(t, bot)
	if err := b.st.BotVersionFinishBuild(b.ctx, v, store.BuildResult{OK: true, Log: "ok", ArtifactKey: fmt.Sprintf("artifacts/%d.tar.gz", v)}); err != nil {
		t.Fatalf("finish build: %v", err)
	}
	bot, err = b.st.BotGetByID(b.ctx, bot.ID)
	if err != nil {
		t.Fatal(err)
	}
	return bot, v
}

// version uploads a new version of bot and returns its id.
func (b *testBundle) version(t *testing.T, bot *store.Bot) int64 {
	t.Helper()
	res, err := b.st.UploadRecord(b.ctx, store.UploadParams{
		OwnerID: bot.OwnerID, Name: bot.Name, Game: bot.Game, Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(`{"BotType":"Python3"}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatalf("upload version: %v", err)
	}
	return res.VersionID
}

// match creates a queued match between built bots.
func (b *testBundle) match(t *testing.T, ranked bool, seats ...int64) *store.MatchRow {
	t.Helper()
	p := store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 42, Kind: "ladder", Ranked: ranked}
	for _, botID := range seats {
		bot, err := b.st.BotGetByID(b.ctx, botID)
		if err != nil {
			t.Fatal(err)
		}
		p.Players = append(p.Players, store.MatchPlayerParams{BotID: botID, BotVersionID: *bot.CurrentVersionID})
	}
	m, err := b.st.MatchCreate(b.ctx, p)
	if err != nil {
		t.Fatalf("create match: %v", err)
	}
	return m
}
