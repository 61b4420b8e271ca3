package jobs

import (
	"context"
	"fmt"
	"os"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botzip"
)

// storeReplay zips the replay folder (regular files only) into zipPath and
// stores it at key.
func storeReplay(ctx context.Context, b *blob.Bucket, dir, zipPath, key string) error {
	f, err := os.Create(zipPath)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	// Each file keeps its own time, as the engine wrote it: without one,
	// zip tools show the entries as written in 1980.
	if err := botzip.WriteFolder(f, dir, botzip.FolderOptions{}); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return blob.PutFile(ctx, b, key, zipPath, "application/zip")
}
