package store_test

import (
	"errors"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

func TestBot(t *testing.T) {
	t.Run("create and get", func(t *testing.T) {
		b := setup(t)
		owner := b.user(t)
		bot, err := b.st.BotCreate(b.ctx, store.BotCreateParams{OwnerID: owner, Name: "Nelson", Game: "entelect"})
		if err != nil {
			t.Fatal(err)
		}
		if bot.Game != "entelect" || bot.OwnerID != owner || bot.CurrentVersionID != nil || bot.OwnerName == "" {
			t.Fatalf("got %+v", bot)
		}
	})
	t.Run("name taken by same owner in other case is a conflict", func(t *testing.T) {
		b := setup(t)
		owner := b.user(t)
		if _, err := b.st.BotCreate(b.ctx, store.BotCreateParams{OwnerID: owner, Name: "Nelson", Game: "entelect"}); err != nil {
			t.Fatal(err)
		}
		_, err := b.st.BotCreate(b.ctx, store.BotCreateParams{OwnerID: owner, Name: "NELSON", Game: "entelect"})
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("got %v, want ErrConflict", err)
		}
	})
	t.Run("missing bot is not found", func(t *testing.T) {
		b := setup(t)
		if _, err := b.st.BotGetByID(b.ctx, -1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
		if err := b.st.BotSetDisabled(b.ctx, -1, true); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("disable and house flags", func(t *testing.T) {
		b := setup(t)
		bot, _ := b.builtBot(t, "entelect")
		if err := b.st.BotSetDisabled(b.ctx, bot.ID, true); err != nil {
			t.Fatal(err)
		}
		if err := b.st.BotSetHouse(b.ctx, bot.ID, true); err != nil {
			t.Fatal(err)
		}
		got, err := b.st.BotGetByID(b.ctx, bot.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Disabled || !got.House {
			t.Fatalf("got %+v", got)
		}
	})
}

func TestBotVersionBuild(t *testing.T) {
	t.Run("success makes the version current, once", func(t *testing.T) {
		b := setup(t)
		bot, v1 := b.builtBot(t, "entelect")
		if *bot.CurrentVersionID != v1 {
			t.Fatalf("current %d, want %d", *bot.CurrentVersionID, v1)
		}
		err := b.st.BotVersionFinishBuild(b.ctx, v1, store.BuildResult{OK: false, Log: "again"})
		if !errors.Is(err, store.ErrBuildDone) {
			t.Fatalf("second outcome: got %v, want ErrBuildDone", err)
		}
		if err := b.st.BotVersionStartBuild(b.ctx, v1); !errors.Is(err, store.ErrBuildDone) {
			t.Fatalf("restart finished build: got %v, want ErrBuildDone", err)
		}
		v, err := b.st.BotVersionGetByID(b.ctx, v1)
		if err != nil {
			t.Fatal(err)
		}
		if v.BuildStatus != store.BuildOK || v.BuildLog != "ok" || v.BuiltAt == nil || v.ArtifactKey == "" {
			t.Fatalf("version changed after its build: %+v", v)
		}
	})
	t.Run("failed build keeps the previous current version", func(t *testing.T) {
		b := setup(t)
		bot, v1 := b.builtBot(t, "entelect")
		v2 := b.version(t, bot)
		if err := b.st.BotVersionStartBuild(b.ctx, v2); err != nil {
			t.Fatal(err)
		}
		if err := b.st.BotVersionStartBuild(b.ctx, v2); err != nil {
			t.Fatalf("a crashed build may restart: %v", err)
		}
		if err := b.st.BotVersionFinishBuild(b.ctx, v2, store.BuildResult{Log: "syntax error"}); err != nil {
			t.Fatal(err)
		}
		got, _ := b.st.BotGetByID(b.ctx, bot.ID)
		if *got.CurrentVersionID != v1 {
			t.Fatalf("current %d, want %d", *got.CurrentVersionID, v1)
		}
		v, _ := b.st.BotVersionGetByID(b.ctx, v2)
		if v.BuildStatus != store.BuildFailed || v.BuildLog != "syntax error" {
			t.Fatalf("got %+v", v)
		}
	})
	t.Run("an older version finishing late does not replace a newer current one", func(t *testing.T) {
		b := setup(t)
		bot, _ := b.builtBot(t, "entelect")
		v2 := b.version(t, bot)
		v3 := b.version(t, bot)
		for _, v := range []int64{v3, v2} {
			if err := b.st.BotVersionFinishBuild(b.ctx, v, store.BuildResult{OK: true, ArtifactKey: "k"}); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := b.st.BotGetByID(b.ctx, bot.ID)
		if *got.CurrentVersionID != v3 {
			t.Fatalf("current %d, want newest %d", *got.CurrentVersionID, v3)
		}
	})
	t.Run("unknown version", func(t *testing.T) {
		b := setup(t)
		if err := b.st.BotVersionStartBuild(b.ctx, -5); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
		if err := b.st.BotVersionFinishBuild(b.ctx, -5, store.BuildResult{}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v", err)
		}
	})
}
