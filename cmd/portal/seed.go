package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
)

// houseUser owns the starter bots; it cannot log in.
const houseUser = "house"

// seedHouseBots uploads each starter bot folder under dir as a house bot,
// through the same checks as a user's upload. A folder whose zip is byte
// for byte its newest version's is left alone, so running it again is safe.
func seedHouseBots(ctx context.Context, cfg Config, logger *slog.Logger, dir string, out io.Writer) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read starter bots: %w", err)
	}
	m := NewMain(cfg, logger)
	defer m.Close()
	if err := m.open(ctx); err != nil {
		return err
	}
	house, err := m.store.UserEnsure(ctx, houseUser)
	if err != nil {
		return err
	}
	var failed []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := botzip.Pack(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		res, err := m.uploads.Save(ctx, botupload.Upload{
			OwnerID: house.ID, Name: e.Name(), Zip: bytes.NewReader(data), Size: int64(len(data)),
			House: true, SkipUnchanged: true,
		})
		if err != nil {
			// One broken starter must not keep the others off the ladder.
			fmt.Fprintf(out, "%s: not seeded: %v\n", e.Name(), err)
			failed = append(failed, e.Name())
			continue
		}
		if res.Unchanged {
			fmt.Fprintf(out, "%s: unchanged (bot %d)\n", e.Name(), res.BotID)
		} else {
			fmt.Fprintf(out, "%s: bot %d version %d, build queued\n", e.Name(), res.BotID, res.Number)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("starter bots not seeded: %s", strings.Join(failed, ", "))
	}
	return nil
}
