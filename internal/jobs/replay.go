package jobs

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/broadside/broadside/internal/blob"
)

// replayArchive is the file a match's replay is written to as a zip while
// the match plays (game.Options.ReplayZip), outside every bot's sandbox,
// then stored whole: the replay is made once, with no folder of files
// written and read back.
type replayArchive struct {
	path string
	f    *os.File
	*bufio.Writer
}

func createReplayArchive(path string) (*replayArchive, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return &replayArchive{path: path, f: f, Writer: bufio.NewWriterSize(f, 256<<10)}, nil
}

// store closes the archive and stores it at key.
func (a *replayArchive) store(ctx context.Context, b *blob.Bucket, key string) error {
	if err := a.Flush(); err != nil {
		a.f.Close()
		return fmt.Errorf("replay: %w", err)
	}
	if err := a.f.Close(); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return blob.PutFile(ctx, b, key, a.path, "application/zip")
}

// Close releases the file when the match did not get as far as store.
func (a *replayArchive) Close() error { return a.f.Close() }
