package competition_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// clanBundle is one test's service on a rolled-back transaction.
type clanBundle struct {
	ctx    context.Context
	st     *store.Store
	svc    *competition.Service
	queued []int64
}

func (b *clanBundle) EnqueueMatchTx(_ context.Context, _ pgx.Tx, matchID int64) (bool, error) {
	b.queued = append(b.queued, matchID)
	return true, nil
}

func clanSetup(t *testing.T) *clanBundle {
	t.Helper()
	t.Parallel()
	b := &clanBundle{ctx: context.Background(), st: store.NewTx(testdb.Tx(t))}
	b.svc = competition.New(b.st, b, slog.New(slog.NewTextHandler(io.Discard, nil)), rulesets.Registry())
	return b
}

var clanSeq atomic.Int64

func (b *clanBundle) user(t *testing.T) int64 {
	t.Helper()
	var id int64
	if err := b.st.DB().QueryRow(b.ctx, `INSERT INTO users (username, password_hash) VALUES ($1, 'x') RETURNING id`,
		fmt.Sprintf("u%d", clanSeq.Add(1))).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// bot records a bot of owner; built gives it a successfully built version.
func (b *clanBundle) bot(t *testing.T, owner int64, built bool) int64 {
	t.Helper()
	res, err := b.st.UploadRecord(b.ctx, store.UploadParams{
		OwnerID: owner, Name: fmt.Sprintf("bot%d", clanSeq.Add(1)), Game: "entelect", Language: "Python3", BotType: "Python3",
		Manifest: json.RawMessage(`{}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: blob.SourceKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	if built {
		if err := b.st.BotVersionFinishBuild(b.ctx, res.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	return res.BotID
}

func (b *clanBundle) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := b.st.DB().Exec(b.ctx, sql, args...); err != nil {
		t.Fatal(err)
	}
}

// wantRefusal checks err is a refusal of kind whose message has want.
func wantRefusal(t *testing.T, err error, kind competition.Kind, want string) {
	t.Helper()
	var ce *competition.Error
	if !errors.As(err, &ce) || ce.Kind != kind || !strings.Contains(ce.Msg, want) {
		t.Fatalf("got %v, want a refusal of kind %d with %q", err, kind, want)
	}
}

func TestClanRules(t *testing.T) {
	b := clanSetup(t)
	owner, member, outsider := b.user(t), b.user(t), b.user(t)
	clan, err := b.svc.ClanCreate(b.ctx, owner, "  Kraken  ", "Deep water")
	if err != nil || clan.Name != "Kraken" || len(clan.JoinKey) < 20 {
		t.Fatalf("create: %+v, %v", clan, err)
	}
	if err := b.svc.ClanJoin(b.ctx, member, clan.ID, clan.JoinKey); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		do   func() error
		kind competition.Kind
		want string
	}{
		// Issue 4 §1: create, join by key, roles (owner, member).
		{"a one-letter name", func() error { _, err := b.svc.ClanCreate(b.ctx, outsider, "K", ""); return err }, competition.Invalid, "2 to 40"},
		{"a 41-letter name", func() error { _, err := b.svc.ClanCreate(b.ctx, outsider, strings.Repeat("k", 41), ""); return err }, competition.Invalid, "2 to 40"},
		{"a long description", func() error {
			_, err := b.svc.ClanCreate(b.ctx, outsider, "Orca", strings.Repeat("d", 501))
			return err
		}, competition.Invalid, "at most 500"},
		{"a taken name in another case", func() error { _, err := b.svc.ClanCreate(b.ctx, outsider, "KRAKEN", ""); return err }, competition.Conflict, "already a clan"},
		{"a second clan for a member", func() error { _, err := b.svc.ClanCreate(b.ctx, member, "Orca", ""); return err }, competition.Conflict, "already in the clan Kraken"},
		{"a wrong join key", func() error { return b.svc.ClanJoin(b.ctx, outsider, clan.ID, "wrong") }, competition.Forbidden, "join key is not"},
		{"an empty join key", func() error { return b.svc.ClanJoin(b.ctx, outsider, clan.ID, "") }, competition.Forbidden, "join key is not"},
		{"joining twice", func() error { return b.svc.ClanJoin(b.ctx, member, clan.ID, clan.JoinKey) }, competition.Conflict, "already in the clan"},
		{"a missing clan", func() error { return b.svc.ClanJoin(b.ctx, outsider, 999999, clan.JoinKey) }, competition.NotFound, "no such clan"},
		{"a member replacing the key", func() error { return b.svc.ClanNewKey(b.ctx, member, clan.ID) }, competition.Forbidden, "owners can replace"},
		{"a member promoting herself", func() error { return b.svc.ClanPromote(b.ctx, member, clan.ID, member) }, competition.Forbidden, "owners can promote"},
		{"promoting an outsider", func() error { return b.svc.ClanPromote(b.ctx, owner, clan.ID, outsider) }, competition.NotFound, "not a member"},
		{"an outsider leaving", func() error { return b.svc.ClanLeave(b.ctx, outsider, clan.ID) }, competition.Forbidden, "not a member"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantRefusal(t, c.do(), c.kind, c.want)
			got, err := b.st.ClanGetByID(b.ctx, clan.ID)
			if err != nil || got.JoinKey != clan.JoinKey || got.Members != 2 {
				t.Fatalf("the clan changed: %+v, %v", got, err)
			}
			if role, _ := b.st.ClanMemberRole(b.ctx, clan.ID, member); role != "member" {
				t.Fatalf("the member's role is %q", role)
			}
		})
	}
}

func TestChallengeRules(t *testing.T) {
	b := clanSetup(t)
	ann, ben := b.user(t), b.user(t)
	annBot, benBot := b.bot(t, ann, true), b.bot(t, ben, true)
	draft, off := b.bot(t, ben, false), b.bot(t, ben, true)
	b.exec(t, `UPDATE bots SET disabled = true WHERE id = $1`, off)

	cases := []struct {
		name              string
		user, mine, their int64
		kind              competition.Kind
		want              string
	}{
		// Issue 4, bad input: no built version, a disabled bot, yourself.
		{"a bot with no built version", ann, annBot, draft, competition.Conflict, "no successfully built version"},
		{"a disabled bot", ann, annBot, off, competition.Conflict, "disabled"},
		{"yourself", ben, benBot, off, competition.Invalid, "your own bot"},
		{"with another user's bot", ann, benBot, annBot, competition.Forbidden, "your own bots"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.svc.Challenge(b.ctx, c.user, c.mine, c.their)
			wantRefusal(t, err, c.kind, c.want)
		})
	}

	t.Run("challenges limited to clans", func(t *testing.T) {
		b.exec(t, `UPDATE platform_settings SET value = 'false' WHERE key = 'open_challenges'`)
		defer b.exec(t, `UPDATE platform_settings SET value = 'true' WHERE key = 'open_challenges'`)
		_, err := b.svc.Challenge(b.ctx, ann, annBot, benBot)
		wantRefusal(t, err, competition.Forbidden, "within a clan only")
		clan, err := b.svc.ClanCreate(b.ctx, ann, "Pequod", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := b.svc.ClanJoin(b.ctx, ben, clan.ID, clan.JoinKey); err != nil {
			t.Fatal(err)
		}
		if res, err := b.svc.Challenge(b.ctx, ann, annBot, benBot); err != nil || res.MatchID != nil {
			t.Fatalf("a challenge within the clan: %+v, %v", res, err)
		}
	})

	t.Run("a bot disabled after the challenge cannot play it", func(t *testing.T) {
		res, err := b.svc.Challenge(b.ctx, ben, benBot, annBot)
		if err != nil {
			t.Fatal(err)
		}
		b.exec(t, `UPDATE bots SET disabled = true WHERE id = $1`, benBot)
		defer b.exec(t, `UPDATE bots SET disabled = false WHERE id = $1`, benBot)
		_, err = b.svc.ChallengeAccept(b.ctx, ann, res.ChallengeID)
		wantRefusal(t, err, competition.Conflict, "disabled")
		if c, _ := b.st.ChallengeGetByID(b.ctx, res.ChallengeID); c.Status != "pending" || c.MatchID != nil {
			t.Fatalf("the challenge is %s", c.Status)
		}
	})

	t.Run("house bots accept at once", func(t *testing.T) {
		b.exec(t, `UPDATE bots SET house = true WHERE id = $1`, annBot)
		res, err := b.svc.Challenge(b.ctx, ben, benBot, annBot)
		if err != nil || res.MatchID == nil || b.queued[len(b.queued)-1] != *res.MatchID {
			t.Fatalf("challenge of a house bot: %+v, %v, queued %v", res, err, b.queued)
		}
	})
}

// TestChallengeEvents: the challenged owner hears of a challenge, the
// challenger of its answer (accepted with the match, or declined); a
// challenge withdrawn by its sender tells no one, nor does an acceptance
// refused because a bot cannot play.
func TestChallengeEvents(t *testing.T) {
	b := clanSetup(t)
	ann, ben := b.user(t), b.user(t)
	annBot, benBot := b.bot(t, ann, true), b.bot(t, ben, true)
	events := func() []string {
		t.Helper()
		rows, err := b.st.DB().Query(b.ctx, `
			SELECT user_id, type, data->>'challenge_id', coalesce(data->>'answer', ''), data->'bot'->>'id', data->'opponent'->>'id',
			       data->>'opponent_owner' IS NOT NULL
			FROM notify_events WHERE type LIKE 'challenge.%' ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var user int64
			var typ, id, answer, bot, opp string
			var owner bool
			if err := rows.Scan(&user, &typ, &id, &answer, &bot, &opp, &owner); err != nil {
				t.Fatal(err)
			}
			who := map[int64]string{ann: "ann", ben: "ben"}[user]
			out = append(out, fmt.Sprintf("%s %s %s %s bot=%s opp=%s %v", who, typ, id, answer, bot, opp, owner))
		}
		return out
	}
	first, err := b.svc.Challenge(b.ctx, ann, annBot, benBot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.ChallengeAccept(b.ctx, ben, first.ChallengeID); err != nil {
		t.Fatal(err)
	}
	second, err := b.svc.Challenge(b.ctx, ben, benBot, annBot)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.svc.ChallengeDecline(b.ctx, ann, second.ChallengeID); err != nil {
		t.Fatal(err)
	}
	third, err := b.svc.Challenge(b.ctx, ann, annBot, benBot)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.svc.ChallengeDecline(b.ctx, ann, third.ChallengeID); err != nil {
		t.Fatal(err)
	}
	fourth, err := b.svc.Challenge(b.ctx, ann, annBot, benBot)
	if err != nil {
		t.Fatal(err)
	}
	b.exec(t, `UPDATE bots SET disabled = true WHERE id = $1`, annBot)
	if _, err := b.svc.ChallengeAccept(b.ctx, ben, fourth.ChallengeID); err == nil {
		t.Fatal("a disabled bot's challenge was accepted")
	}
	a, bb := fmt.Sprint(annBot), fmt.Sprint(benBot)
	want := []string{
		fmt.Sprintf("ben challenge.received %d  bot=%s opp=%s true", first.ChallengeID, bb, a),
		fmt.Sprintf("ann challenge.answered %d accepted bot=%s opp=%s true", first.ChallengeID, a, bb),
		fmt.Sprintf("ann challenge.received %d  bot=%s opp=%s true", second.ChallengeID, a, bb),
		fmt.Sprintf("ben challenge.answered %d declined bot=%s opp=%s true", second.ChallengeID, bb, a),
		fmt.Sprintf("ben challenge.received %d  bot=%s opp=%s true", third.ChallengeID, bb, a),
		fmt.Sprintf("ben challenge.received %d  bot=%s opp=%s true", fourth.ChallengeID, bb, a),
	}
	if got := events(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
