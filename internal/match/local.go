package match

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
)

// LocalRunner returns the runner of a match played on one's own machine:
// with confined, the bubblewrap runner, as the platform plays, when this
// machine can enforce it; else the host runner. The returned func gives
// back the cgroups it took.
func LocalRunner(ctx context.Context, confined bool, log *slog.Logger) (sandbox.Runner, func(), error) {
	if !confined {
		return sandbox.NewHost(sandbox.HostConfig{}), func() {}, nil
	}
	cgroups, err := sandbox.Delegate(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("this machine cannot confine bots: %w", err)
	}
	log.Debug("cgroups for the sandbox", "version", cgroups.Version, "how", cgroups.How, "dir", cgroups.Dir)
	if err := sandbox.Require(sandbox.Probe(ctx)); err != nil {
		cgroups.Close()
		return nil, nil, fmt.Errorf("this machine cannot confine bots: %w", err)
	}
	b, err := sandbox.NewMatchSandbox(log)
	if err != nil {
		cgroups.Close()
		return nil, nil, err
	}
	return b, cgroups.Close, nil
}

// ReplayFolder is dir made absolute (bots run in their own folders, so a
// relative path would point elsewhere for them), else Replays/{seed} in
// the current folder, with a suffix when that is taken.
func ReplayFolder(dir string, seed int64) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("replay folder: %w", err)
		}
		return abs, nil
	}
	base, err := filepath.Abs(filepath.Join("Replays", strconv.FormatInt(seed, 10)))
	if err != nil {
		return "", fmt.Errorf("replay folder: %w", err)
	}
	out := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
			return out, nil
		}
		out = fmt.Sprintf("%s-%d", base, n)
	}
}

// RandomSeed draws a non-negative seed, so that it prints and parses back.
func RandomSeed() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("seed: %w", err)
	}
	return int64(binary.BigEndian.Uint64(b[:]) >> 1), nil
}

// WriteBotLogs puts each bot's own log of the match in the replay folder,
// as <key>/log.txt, unless the rule set writes them itself (Entelect, round
// by round). The portal does not do this: there a bot's log goes to its
// owner only.
func WriteBotLogs(traits game.Traits, replayDir string, sum *game.Summary) error {
	if traits.WritesBotLogs {
		return nil
	}
	for i, p := range sum.Players {
		key := p.Key
		if key == "" || !filepath.IsLocal(key) || strings.ContainsAny(key, `/\`) {
			key = fmt.Sprint(i)
		}
		dir := filepath.Join(replayDir, key)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("bot log: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "log.txt"), []byte(p.Log), 0o644); err != nil {
			return fmt.Errorf("bot log: %w", err)
		}
	}
	return nil
}
