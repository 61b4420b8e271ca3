package web

import (
	"archive/zip"
	"context"
	"fmt"
	"sync"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/web/board"
)

// replayCacheSize is how many opened replays the portal keeps: a finished
// replay never changes, so players stepping through it reuse the zip's
// directory and the decoded replay.json instead of reading them per round.
const replayCacheSize = 32

// viewerWindow is how much of a replay the viewer reads from the bucket at
// a time: a round's files (a few KiB each, compressed) and the zip's
// directory come in a request or two, and the cache holds at most
// replayCacheSize windows.
const viewerWindow = 64 << 10

// replayCache holds opened replays by blob key.
type replayCache struct {
	mu    sync.Mutex
	items map[string]*board.Replay
	order []string
}

func newReplayCache() *replayCache { return &replayCache{items: map[string]*board.Replay{}} }

// open returns the replay stored at key, opening it on first use.
func (c *replayCache) open(ctx context.Context, bucket *blob.Bucket, key string) (*board.Replay, error) {
	c.mu.Lock()
	r, ok := c.items[key]
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	// Read only the zip's directory and the files a round needs, not the
	// whole replay: on S3 that is a few range requests instead of
	// megabytes. The reader outlives this request in the cache.
	ra, err := blob.NewReaderAt(context.WithoutCancel(ctx), bucket, key, viewerWindow)
	if err != nil {
		return nil, fmt.Errorf("read replay %s: %w", key, err)
	}
	zr, err := zip.NewReader(ra, ra.Size())
	if err != nil {
		return nil, fmt.Errorf("open replay %s: %w", key, err)
	}
	r, err = board.Open(zr)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", key, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; !ok {
		if len(c.order) >= replayCacheSize {
			delete(c.items, c.order[0])
			c.order = c.order[1:]
		}
		c.items[key] = r
		c.order = append(c.order, key)
	}
	return c.items[key], nil
}
