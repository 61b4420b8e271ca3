package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testenv"
)

// TestClientEndToEnd drives the battleship command's client against a real
// portal and a real worker: login with a token, submit a bot that builds
// and one that does not, list a match and download its replay twice.
func TestClientEndToEnd(t *testing.T) {
	t.Parallel()
	bs := startPortal(t, 10*time.Minute, "LADDER_INTERVAL=off")
	ctx := bs.ctx
	pool, err := pgxpool.New(ctx, bs.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st := store.New(pool)
	ann, err := st.UserCreate(ctx, store.UserCreateParams{Username: "ann", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	const token = "bs_client_test_token"
	sum := sha256.Sum256([]byte(token))
	if _, err := st.APITokenCreate(ctx, ann.ID, "laptop", sum[:]); err != nil {
		t.Fatal(err)
	}

	bin := testenv.GoBinary(t, "github.com/broadside/broadside/cmd/battleship")
	config := t.TempDir()
	// battleship runs as a contestant runs it: its own configuration
	// folder, and the token only where a step gives it.
	battleship := func(env []string, args ...string) (code int, stdout, stderr string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append([]string{"HOME=" + config, "XDG_CONFIG_HOME=" + config, "PATH=" + os.Getenv("PATH")}, env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("battleship %v: %v", args, err)
		}
		t.Logf("$ battleship %s\n%s%s(exit %d)", strings.Join(args, " "), out.String(), errOut.String(), cmd.ProcessState.ExitCode())
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}

	if code, _, stderr := battleship([]string{"BROADSIDE_TOKEN=bs_wrong"}, "login", "--portal", bs.base); code != 1 || !strings.Contains(stderr, "does not take this token") {
		t.Fatalf("login with a wrong token: exit %d: %s", code, stderr)
	}
	if code, stdout, _ := battleship([]string{"BROADSIDE_TOKEN=" + token}, "login", "--portal", bs.base); code != 0 || !strings.Contains(stdout, "as ann") {
		t.Fatalf("login: exit %d: %s", code, stdout)
	}
	creds := filepath.Join(config, "broadside", "credentials.json")
	info, err := os.Stat(creds)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	if data, _ := os.ReadFile(creds); !strings.Contains(string(data), token) || !strings.Contains(string(data), bs.base) {
		t.Fatalf("credentials file holds %s", data)
	}

	code, stdout, stderr := battleship(nil, "submit", "--name", "Pyro", filepath.Join("..", "..", "bots", "entelect-python3"))
	if code != 0 || !strings.Contains(stdout, "Build ok") {
		t.Fatalf("submit the Python starter: exit %d\n%s%s", code, stdout, stderr)
	}
	broken := t.TempDir()
	for name, body := range map[string]string{
		"bot.json": `{"BotType": "Python3", "RunFile": "bot.py", "NickName": "Broken"}`,
		"bot.py":   "def broken(:\n",
	} {
		if err := os.WriteFile(filepath.Join(broken, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr = battleship(nil, "submit", broken)
	if code != 1 || !strings.Contains(stderr, "Build failed") || !strings.Contains(stderr, "SyntaxError") {
		t.Fatalf("submit a broken bot: exit %d, want 1 with the log's end\n%s%s", code, stdout, stderr)
	}

	// A finished match of Pyro's, recorded as the worker records one:
	// playing one would add minutes for nothing this test checks.
	match := finishedMatch(t, ctx, st, bs.getenv("BLOB_URL"), ann.ID)
	code, stdout, _ = battleship(nil, "matches", "--json", "--result", "won")
	var listed []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(stdout), &listed); code != 0 || err != nil || len(listed) != 1 || listed[0].ID != match {
		t.Fatalf("matches --json: exit %d, %v: %s; want match %d", code, err, stdout, match)
	}
	if code, stdout, _ = battleship(nil, "matches", "--kind", "challenge", "--since", "2000-01-01"); code != 0 ||
		!strings.Contains(stdout, "won") || !strings.Contains(stdout, "Pyro v1 120 vs Nemo v1 40") {
		t.Fatalf("matches: exit %d: %s", code, stdout)
	}
	if code, stdout, _ = battleship(nil, "matches", "--result", "lost"); code != 0 || !strings.Contains(stdout, "No matches") {
		t.Fatalf("matches --result lost: exit %d: %s", code, stdout)
	}
	// Duel games are a kind of their own, which the client and the
	// portal's filter both take.
	if code, stdout, _ = battleship(nil, "matches", "--kind", "duel"); code != 0 || !strings.Contains(stdout, "No matches") {
		t.Fatalf("matches --kind duel: exit %d: %s", code, stdout)
	}

	out := t.TempDir()
	if code, stdout, _ = battleship(nil, "download", "--out", out, "--bot", "Pyro", "--last", "5"); code != 0 || !strings.Contains(stdout, "bytes") {
		t.Fatalf("download: exit %d: %s", code, stdout)
	}
	replay := filepath.Join(out, fmt.Sprintf("match-%d.zip", match))
	zr, err := zip.OpenReader(replay)
	if err != nil {
		t.Fatalf("downloaded replay: %v", err)
	}
	var logs []string
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "log.txt") {
			logs = append(logs, f.Name)
		}
	}
	zr.Close()
	if !slices.Equal(logs, []string{"Phase 1 - Round 0/A/log.txt"}) {
		t.Fatalf("the replay holds the logs %v, want Pyro's alone", logs)
	}
	if code, stdout, _ = battleship(nil, "download", "--out", out, fmt.Sprint(match)); code != 0 || !strings.Contains(stdout, "already here, skipped") {
		t.Fatalf("download again: exit %d: %s", code, stdout)
	}
	if code, stdout, _ = battleship(nil, "logout"); code != 0 {
		t.Fatalf("logout: exit %d: %s", code, stdout)
	}
	if _, err := os.Stat(creds); !os.IsNotExist(err) {
		t.Fatalf("credentials still there after logout: %v", err)
	}
}

// finishedMatch records a match that ann's Pyro won against a bot of
// ben's, with a replay holding both seats' logs, and returns its id.
func finishedMatch(t *testing.T, ctx context.Context, st *store.Store, blobURL string, annID int64) int64 {
	t.Helper()
	var pyro, pyroVersion int64
	if err := st.DB().QueryRow(ctx, `SELECT b.id, v.id FROM bots b JOIN bot_versions v ON v.bot_id = b.id
		WHERE b.owner_id = $1 AND b.name = 'Pyro' AND v.build_status = 'ok'`, annID).Scan(&pyro, &pyroVersion); err != nil {
		t.Fatalf("Pyro's built version: %v", err)
	}
	ben, err := st.UserCreate(ctx, store.UserCreateParams{Username: "ben", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.UploadRecord(ctx, store.UploadParams{OwnerID: ben.ID, Name: "Nemo", Game: "entelect", Language: "Python3",
		BotType: "Python3", Manifest: json.RawMessage(`{"BotType":"Python3"}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: blob.SourceKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.BotVersionFinishBuild(ctx, other.VersionID, store.BuildResult{OK: true, ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	m, err := st.MatchCreate(ctx, store.MatchCreateParams{Game: "entelect", MapSize: 1, Seed: 7, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: pyro, BotVersionID: pyroVersion}, {BotID: other.BotID, BotVersionID: other.VersionID}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"Phase 1 - Round 0/A - map.txt", "Phase 1 - Round 0/A/log.txt", "Phase 1 - Round 0/B/log.txt"} {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte("content of " + name))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	bucket, err := blob.Open(ctx, blobURL)
	if err != nil {
		t.Fatal(err)
	}
	defer bucket.Close()
	key := fmt.Sprintf("replays/%d.zip", m.ID)
	if err := blob.Put(ctx, bucket, key, bytes.NewReader(buf.Bytes()), "application/zip"); err != nil {
		t.Fatal(err)
	}
	if err := st.MatchFinish(ctx, store.MatchFinishParams{ID: m.ID, Rounds: 1, ReplayKey: key, Summary: json.RawMessage(`{"game":"entelect"}`),
		Players: []store.MatchPlayerResult{
			{Seat: 0, Key: "A", Points: 120, Outcome: "win", Rank: 1},
			{Seat: 1, Key: "B", Points: 40, Outcome: "loss", Rank: 2},
		}}); err != nil {
		t.Fatal(err)
	}
	return m.ID
}
