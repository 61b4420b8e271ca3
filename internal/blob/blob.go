// Package blob stores the platform's files: uploaded bot zips, built
// artifacts and match replays. It opens a gocloud.dev bucket by URL, so a
// single worker uses a local folder (file://) and a fleet shares S3 (s3://)
// without code changes.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	gcblob "gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// buckets
	_ "gocloud.dev/blob/memblob"  // mem:// buckets, for tests
	_ "gocloud.dev/blob/s3blob"   // s3:// buckets
	"gocloud.dev/gcerrors"
)

// Bucket is an opened bucket (gocloud.dev/blob).
type Bucket = gcblob.Bucket

// ErrNotFound is returned when a key holds no blob.
var ErrNotFound = errors.New("blob: not found")

// Open opens the bucket at rawURL. A plain path or a file:// URL is a local
// folder, created if missing; s3://bucket?region=... is S3 or an
// S3-compatible store (credentials from the usual AWS environment); mem://
// is an in-memory bucket.
func Open(ctx context.Context, rawURL string) (*Bucket, error) {
	if rawURL == "" {
		return nil, errors.New("blob: empty bucket URL")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob: parse bucket URL: %w", err)
	}
	if u.Scheme == "" {
		abs, err := filepath.Abs(rawURL)
		if err != nil {
			return nil, fmt.Errorf("blob: bucket folder %s: %w", rawURL, err)
		}
		u = &url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	}
	if u.Scheme == "file" {
		q := u.Query()
		if q.Get("create_dir") == "" {
			q.Set("create_dir", "true")
		}
		// Metadata sidecar files would double the file count for nothing
		// the platform reads.
		if q.Get("metadata") == "" {
			q.Set("metadata", "skip")
		}
		u.RawQuery = q.Encode()
	}
	b, err := gcblob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("blob: open %s://%s: %w", u.Scheme, u.Host+u.Path, err)
	}
	return b, nil
}

// Keys of the platform's blobs.

// SourceKey is where the uploaded zip of a bot version lives.
func SourceKey(botID int64, number int) string {
	return fmt.Sprintf("bots/%d/versions/%d/source.zip", botID, number)
}

// ArtifactKey is where the built folder of a bot version lives.
func ArtifactKey(versionID int64) string {
	return fmt.Sprintf("artifacts/%d.tar.gz", versionID)
}

// ReplayKey is where a match's zipped replay folder lives.
func ReplayKey(matchID int64) string {
	return fmt.Sprintf("replays/%d.zip", matchID)
}

// Put writes r to key; the blob appears only when the write completes, so a
// failed write leaves nothing behind.
func Put(ctx context.Context, b *Bucket, key string, r io.Reader, contentType string) error {
	// Canceling the writer's context before Close aborts the write
	// (gocloud.dev's contract): nothing is stored.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.NewWriter(ctx, key, &gcblob.WriterOptions{ContentType: contentType})
	if err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel()
		_ = w.Close()
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	return nil
}

// PutFile writes the file at path to key.
func PutFile(ctx context.Context, b *Bucket, key, path, contentType string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	defer f.Close()
	return Put(ctx, b, key, f, contentType)
}

// Get opens the blob at key; ErrNotFound when there is none.
func Get(ctx context.Context, b *Bucket, key string) (io.ReadCloser, error) {
	r, err := b.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, fmt.Errorf("blob: read %s: %w", key, ErrNotFound)
		}
		return nil, fmt.Errorf("blob: read %s: %w", key, err)
	}
	return r, nil
}

// GetFile copies the blob at key into a new file at path.
func GetFile(ctx context.Context, b *Bucket, key, path string) error {
	r, err := Get(ctx, b, key)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("blob: read %s: %w", key, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("blob: read %s: %w", key, err)
	}
	return f.Close()
}

// IsNotFound reports whether err means a missing blob.
func IsNotFound(err error) bool {
	return errors.Is(err, ErrNotFound) || gcerrors.Code(err) == gcerrors.NotFound
}
