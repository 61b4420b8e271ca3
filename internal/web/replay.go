package web

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"sync"

	"gocloud.dev/blob"

	"github.com/broadside/broadside/web/board"
)

// replayCacheSize is how many opened replays the portal keeps: a finished
// replay never changes, so players stepping through it reuse the zip's
// directory and the decoded replay.json instead of reading them per round.
const replayCacheSize = 32

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
	attrs, err := bucket.Attributes(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read replay %s: %w", key, err)
	}
	// Read only the zip's directory and the files a round needs, not the
	// whole replay: on S3 that is a few range requests instead of
	// megabytes. The reader outlives this request in the cache.
	ra := &blobReaderAt{ctx: context.WithoutCancel(ctx), bucket: bucket, key: key}
	zr, err := zip.NewReader(ra, attrs.Size)
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

// blobReaderAt reads a blob by ranges.
type blobReaderAt struct {
	ctx    context.Context
	bucket *blob.Bucket
	key    string
}

func (b *blobReaderAt) ReadAt(p []byte, off int64) (int, error) {
	r, err := b.bucket.NewRangeReader(b.ctx, b.key, off, int64(len(p)), nil)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n, err := io.ReadFull(r, p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF // a read past the end, as io.ReaderAt reports it
	}
	return n, err
}
