package blob_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"sync"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/testblob"
)

// TestReaderAt reads a blob at offsets from each kind of store, across
// and beyond the window, and opens a zip through it.
func TestReaderAt(t *testing.T) {
	ctx := context.Background()
	const window = 64 << 10
	data := make([]byte, 300<<10+17)
	rand.Read(data)
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for i := range 40 {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("Phase 1 - Round %d/A/state.json", i), Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data[i*5000 : i*5000+3000+i*997])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}

	for _, store := range []string{"mem", "file", "s3"} {
		t.Run(store, func(t *testing.T) {
			url := map[string]string{"mem": "mem://", "file": t.TempDir()}[store]
			if store == "s3" {
				url = testblob.URL(t)
			}
			b, err := blob.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if err := blob.Put(ctx, b, "data", bytes.NewReader(data), ""); err != nil {
				t.Fatal(err)
			}
			if err := blob.Put(ctx, b, "zip", bytes.NewReader(zipped.Bytes()), "application/zip"); err != nil {
				t.Fatal(err)
			}
			ra, err := blob.NewReaderAt(ctx, b, "data", window)
			if err != nil {
				t.Fatal(err)
			}
			if ra.Size() != int64(len(data)) {
				t.Fatalf("size %d, want %d", ra.Size(), len(data))
			}
			size := int64(len(data))
			cases := []struct {
				name    string
				off     int64
				n       int
				wantN   int
				wantEOF bool
			}{
				{"start", 0, 100, 100, false},
				{"within the window", 1000, 2000, 2000, false},
				{"across the window's end", window - 10, 100, 100, false},
				{"larger than the window", 5, 3*window + 1, 3*window + 1, false},
				{"to the end exactly", size - 50, 50, 50, false},
				{"past the end", size - 50, 80, 50, true},
				{"at the end", size, 10, 0, true},
				{"beyond the end", size + 100, 10, 0, true},
				{"empty", 10, 0, 0, false},
			}
			for _, c := range cases {
				p := make([]byte, c.n)
				n, err := ra.ReadAt(p, c.off)
				if n != c.wantN || (err == io.EOF) != c.wantEOF || (err != nil && err != io.EOF) {
					t.Errorf("%s: read %d bytes, %v; want %d, EOF %v", c.name, n, err, c.wantN, c.wantEOF)
					continue
				}
				if n > 0 && !bytes.Equal(p[:n], data[c.off:c.off+int64(n)]) {
					t.Errorf("%s: wrong bytes", c.name)
				}
			}
			if _, err := ra.ReadAt(make([]byte, 1), -1); err == nil {
				t.Error("a negative offset was read")
			}

			t.Run("concurrent reads", func(t *testing.T) {
				var wg sync.WaitGroup
				errs := make(chan error, 8)
				for g := range 8 {
					wg.Go(func() {
						rng := mrand.New(mrand.NewPCG(uint64(g), 1))
						for range 50 {
							off := rng.Int64N(size)
							p := make([]byte, rng.IntN(3*window))
							n, err := ra.ReadAt(p, off)
							if (err != nil && err != io.EOF) || !bytes.Equal(p[:n], data[off:off+int64(n)]) {
								errs <- fmt.Errorf("read %d at %d: %d bytes, %v", len(p), off, n, err)
								return
							}
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})

			t.Run("a zip opened through it", func(t *testing.T) {
				zra, err := blob.NewReaderAt(ctx, b, "zip", window)
				if err != nil {
					t.Fatal(err)
				}
				zr, err := zip.NewReader(zra, zra.Size())
				if err != nil {
					t.Fatal(err)
				}
				if len(zr.File) != 40 {
					t.Fatalf("%d entries, want 40", len(zr.File))
				}
				for i, f := range zr.File {
					rc, err := f.Open()
					if err != nil {
						t.Fatal(err)
					}
					got, err := io.ReadAll(rc) // checks the CRC too
					rc.Close()
					if err != nil || !bytes.Equal(got, data[i*5000:i*5000+3000+i*997]) {
						t.Fatalf("%s: %d bytes, %v", f.Name, len(got), err)
					}
				}
			})

			t.Run("missing blob", func(t *testing.T) {
				_, err := blob.NewReaderAt(ctx, b, "nope", window)
				if !errors.Is(err, blob.ErrNotFound) || !blob.IsNotFound(err) {
					t.Fatalf("got %v, want ErrNotFound", err)
				}
			})
		})
	}
}
