package blob_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/blob"
)

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestFileBucket(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "blobs") // Open creates it
	for _, url := range []string{dir, "file://" + dir} {
		t.Run(url, func(t *testing.T) {
			b, err := blob.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			key := blob.ReplayKey(7)
			if err := blob.Put(ctx, b, key, strings.NewReader("replay"), "application/zip"); err != nil {
				t.Fatal(err)
			}
			r, err := blob.Get(ctx, b, key)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(r)
			r.Close()
			if string(data) != "replay" {
				t.Fatalf("got %q", data)
			}
			if _, err := os.Stat(filepath.Join(dir, "replays", "7.zip")); err != nil {
				t.Fatalf("not a plain file in the folder: %v", err)
			}
			out := filepath.Join(t.TempDir(), "x")
			if err := blob.GetFile(ctx, b, key, out); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMissingAndFailedWrites(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{"mem://", t.TempDir()} {
		b, err := blob.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blob.Get(ctx, b, "nope"); !errors.Is(err, blob.ErrNotFound) || !blob.IsNotFound(err) {
			t.Fatalf("%s: missing key: got %v", url, err)
		}
		if err := blob.Put(ctx, b, "half", failingReader{}, ""); err == nil {
			t.Fatalf("%s: failed write reported success", url)
		}
		if ok, err := b.Exists(ctx, "half"); err != nil || ok {
			t.Fatalf("%s: failed write left a blob (exists=%v, %v)", url, ok, err)
		}
		b.Close()
	}
}

func TestOpenErrors(t *testing.T) {
	for _, url := range []string{"", "nosuchscheme://x"} {
		if _, err := blob.Open(context.Background(), url); err == nil {
			t.Errorf("Open(%q) succeeded", url)
		}
	}
}

func TestKeys(t *testing.T) {
	if got := blob.SourceKey(3, 2); got != "bots/3/versions/2/source.zip" {
		t.Error(got)
	}
	if got := blob.ArtifactKey(9); got != "artifacts/9.tar.gz" {
		t.Error(got)
	}
}
