package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"gocloud.dev/gcerrors"
)

// ReaderAt reads a blob at any offset through ranged reads, so archive/zip
// can open a stored zip without the whole of it in memory: its directory
// and the entries wanted are fetched, nothing else.
//
// A read that misses fetches a window of the blob at its offset (a
// request to S3); small reads that follow are served from that window, so
// walking through a zip costs a request per window, not one per read. It
// holds one window, two while reads of several goroutines miss at once,
// and is safe for concurrent use.
type ReaderAt struct {
	ctx    context.Context
	bucket *Bucket
	key    string
	size   int64
	window int

	mu  sync.Mutex
	buf []byte // the blob's bytes from off
	off int64
	// spare is a window not in use, for the next fetch.
	spare []byte
}

// NewReaderAt opens the blob at key for reads at offsets, fetching window
// bytes at a time (at least 4 KiB). Its reads use ctx; ErrNotFound when
// there is no such blob.
func NewReaderAt(ctx context.Context, b *Bucket, key string, window int) (*ReaderAt, error) {
	attrs, err := b.Attributes(ctx, key)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, fmt.Errorf("blob: read %s: %w", key, ErrNotFound)
		}
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	return &ReaderAt{ctx: ctx, bucket: b, key: key, size: attrs.Size, window: max(window, 4<<10)}, nil
}

// Size is the blob's size in bytes.
func (r *ReaderAt) Size() int64 { return r.size }

// ReadAt reads len(p) bytes at off, as io.ReaderAt does: fewer only at
// the blob's end, with io.EOF.
func (r *ReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("blob: read %s at %d: negative offset", r.key, off)
	}
	n := 0
	for n < len(p) && off < r.size {
		if c := r.cached(p[n:], off); c > 0 {
			n, off = n+c, off+int64(c)
			continue
		}
		want := int(min(int64(len(p)-n), r.size-off))
		if want >= r.window {
			// A large read goes straight into p.
			if err := r.fetch(p[n:n+want], off); err != nil {
				return n, err
			}
			n, off = n+want, off+int64(want)
			continue
		}
		c, err := r.fill(p[n:], off)
		if err != nil {
			return n, err
		}
		n, off = n+c, off+int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// cached copies what the current window holds of the blob at off into p.
func (r *ReaderAt) cached(p []byte, off int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if off < r.off || off >= r.off+int64(len(r.buf)) {
		return 0
	}
	return copy(p, r.buf[off-r.off:])
}

// fill fetches the window at off, makes it the current one and copies its
// start into p. The blob is read without the lock held: the fetch reuses
// the spare window, else the current one (reads meanwhile find it empty
// and fetch their own), so a reader used by one goroutine holds a single
// window.
func (r *ReaderAt) fill(p []byte, off int64) (int, error) {
	r.mu.Lock()
	buf := r.spare
	if buf == nil {
		buf, r.buf = r.buf, nil
	}
	r.spare = nil
	r.mu.Unlock()
	if buf == nil {
		buf = make([]byte, r.window)
	}
	buf = buf[:min(int64(r.window), r.size-off)]
	if err := r.fetch(buf, off); err != nil {
		r.mu.Lock()
		r.spare = buf[:0]
		r.mu.Unlock()
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf != nil {
		r.spare = r.buf[:0]
	}
	r.buf, r.off = buf, off
	return copy(p, buf), nil
}

// fetch reads exactly len(p) bytes of the blob at off.
func (r *ReaderAt) fetch(p []byte, off int64) error {
	rd, err := r.bucket.NewRangeReader(r.ctx, r.key, off, int64(len(p)), nil)
	if err != nil {
		return fmt.Errorf("blob: read %s at %d: %w", r.key, off, err)
	}
	defer rd.Close()
	if _, err := io.ReadFull(rd, p); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("the blob is shorter than its %d bytes", r.size)
		}
		return fmt.Errorf("blob: read %s at %d: %w", r.key, off, err)
	}
	return nil
}
