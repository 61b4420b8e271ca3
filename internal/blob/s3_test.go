package blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/testblob"
)

// TestS3Bucket stores and reads each kind of the platform's blobs through
// a real S3 server on loopback.
func TestS3Bucket(t *testing.T) {
	ctx := context.Background()
	b, err := blob.Open(ctx, testblob.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	big := make([]byte, 9<<20) // larger than one multipart upload part
	rand.Read(big)
	cases := []struct {
		name, key, contentType string
		data                   []byte
	}{
		{"bot zip", blob.SourceKey(3, 1), "application/zip", []byte("PK\x03\x04 a bot")},
		{"built bot", blob.ArtifactKey(11), "application/gzip", big},
		{"replay", blob.ReplayKey(42), "application/zip", []byte("PK\x03\x04 a replay")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := blob.Put(ctx, b, c.key, bytes.NewReader(c.data), c.contentType); err != nil {
				t.Fatal(err)
			}
			attrs, err := b.Attributes(ctx, c.key)
			if err != nil {
				t.Fatal(err)
			}
			if attrs.Size != int64(len(c.data)) || attrs.ContentType != c.contentType {
				t.Errorf("stored %d bytes of %q, want %d of %q", attrs.Size, attrs.ContentType, len(c.data), c.contentType)
			}
			r, err := blob.Get(ctx, b, c.key)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, c.data) {
				t.Fatalf("read back %d bytes (%v), want the %d written", len(got), err, len(c.data))
			}
			path := filepath.Join(t.TempDir(), "copy")
			if err := blob.GetFile(ctx, b, c.key, path); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, c.data) {
				t.Errorf("file copy differs")
			}
		})
	}

	t.Run("missing object", func(t *testing.T) {
		_, err := blob.Get(ctx, b, blob.ReplayKey(999))
		if !errors.Is(err, blob.ErrNotFound) || !blob.IsNotFound(err) {
			t.Fatalf("got %v, want ErrNotFound", err)
		}
		path := filepath.Join(t.TempDir(), "none")
		if err := blob.GetFile(ctx, b, blob.ReplayKey(999), path); !blob.IsNotFound(err) {
			t.Fatalf("GetFile: %v, want not found", err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("a missing blob left a file behind: %v", err)
		}
	})

	t.Run("a failed write stores nothing", func(t *testing.T) {
		key := blob.ReplayKey(7)
		err := blob.Put(ctx, b, key, io.MultiReader(bytes.NewReader(big[:6<<20]), failingReader{}), "application/zip")
		if err == nil {
			t.Fatal("write of a failing reader succeeded")
		}
		if ok, err := b.Exists(ctx, key); ok || err != nil {
			t.Errorf("half-written blob is visible: %v, %v", ok, err)
		}
	})
}

// stopAfter reads through to r and stops the S3 server once n bytes have
// gone, as a server that dies mid-upload.
type stopAfter struct {
	r    io.Reader
	n    int
	stop func()
}

func (s *stopAfter) Read(p []byte) (int, error) {
	if s.n <= 0 && s.stop != nil {
		s.stop()
		s.stop = nil
	}
	k, err := s.r.Read(p[:min(len(p), max(s.n, 1))])
	s.n -= k
	return k, err
}

// TestS3ServerStopsMidUpload: the write fails with an error naming the key,
// and once the server is back nothing of the object is there.
func TestS3ServerStopsMidUpload(t *testing.T) {
	ctx := context.Background()
	srv := testblob.Start(t)
	b, err := blob.Open(ctx, srv.NewBucket(t))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data := make([]byte, 12<<20)
	rand.Read(data)
	key := blob.ArtifactKey(5)
	err = blob.Put(ctx, b, key, &stopAfter{r: bytes.NewReader(data), n: 6 << 20, stop: srv.Stop}, "application/gzip")
	if err == nil {
		t.Fatal("upload to a stopped server succeeded")
	}
	if want := "blob: write " + key; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("error %q does not say %q", err, want)
	}
	srv.Restart(t)
	if ok, err := b.Exists(ctx, key); ok || err != nil {
		t.Errorf("after the restart: exists %v, %v; want no object", ok, err)
	}
	// The restarted server works: the bucket is usable again.
	if err := blob.Put(ctx, b, key, bytes.NewReader(data[:1000]), "application/gzip"); err != nil {
		t.Fatalf("write after restart: %v", err)
	}
}
