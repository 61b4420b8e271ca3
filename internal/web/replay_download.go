package web

import (
	"archive/zip"
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"

	"github.com/broadside/broadside/internal/blob"
)

// replayWindow is how much of a stored replay a download reads from the
// bucket at a time (one request to S3): a download holds two of them and
// a copy buffer, whatever the replay's size.
const replayWindow = 256 << 10

// replayDownload sends a match's replay zip as it is read from the
// bucket, never whole in memory: the stored zip unchanged when the viewer
// may read all of it, else a copy without the bots' logs the viewer may
// not read.
func (h *Handler) replayDownload(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	viewer := h.base(r, "").UserID
	m, err := h.matchFor(r.Context(), id, viewer)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if m.ReplayKey == "" {
		h.fail(w, r, refuse(http.StatusNotFound, "This match has no replay yet."))
		return
	}
	release, ok := h.takeDownload(w, r, viewer)
	if !ok {
		return
	}
	defer release()
	ra, err := blob.NewReaderAt(r.Context(), h.blobs, m.ReplayKey, replayWindow)
	if err != nil {
		if blob.IsNotFound(err) {
			err = refuse(http.StatusNotFound, "The replay file is missing from storage.")
		}
		h.fail(w, r, fmt.Errorf("open replay of match %d: %w", id, err))
		return
	}
	// Only the zip's directory is read here; the entries are read as
	// they are sent.
	zr, err := zip.NewReader(ra, ra.Size())
	if err != nil {
		h.fail(w, r, fmt.Errorf("read replay of match %d: %w", id, err))
		return
	}
	// Each bot's log.txt (its stdout and stderr) is for its owner alone,
	// as on the match page.
	own := map[string]bool{}
	for _, p := range m.Players {
		if viewer != 0 && p.OwnerID == viewer {
			own[p.Key] = true
		}
	}
	var kept []*zip.File
	for _, f := range zr.File {
		if keepReplayFile(f.Name, own) {
			kept = append(kept, f)
		}
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="match-%d-replay.zip"`, id))
	if len(kept) == len(zr.File) {
		w.Header().Set("Content-Length", strconv.FormatInt(ra.Size(), 10))
		if _, err := io.Copy(w, io.NewSectionReader(ra, 0, ra.Size())); err != nil {
			h.logger.WarnContext(r.Context(), "send replay", "match_id", id, "err", err)
		}
		return
	}
	buf := make([]byte, 32<<10)
	size, err := writeReplay(io.Discard, kept, buf, true)
	if err != nil {
		h.fail(w, r, fmt.Errorf("replay of match %d: %w", id, err))
		return
	}
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	if _, err := writeReplay(w, kept, buf, false); err != nil {
		// The answer falls short of its Content-Length: the client sees
		// a broken download, not a shorter zip.
		h.logger.WarnContext(r.Context(), "send replay", "match_id", id, "err", err)
	}
}

// keepReplayFile keeps every file of a replay but the bots' own logs
// (Entelect: "Phase p - Round r/<key>/log.txt") of keys not in own.
func keepReplayFile(name string, own map[string]bool) bool {
	if path.Base(name) != "log.txt" {
		return true
	}
	return own[path.Base(path.Dir(name))]
}

// writeReplay writes a zip of files to w, each entry copied raw (not
// compressed again) through buf, and returns its size. With dry set the
// entries' bytes are not read, only counted: the zip's exact size, for
// its Content-Length, from the same writer that then sends it.
func writeReplay(w io.Writer, files []*zip.File, buf []byte, dry bool) (int64, error) {
	cw := &countingWriter{w: w}
	zw := zip.NewWriter(cw)
	for _, f := range files {
		fh := f.FileHeader // the writer changes the header it is given
		fw, err := zw.CreateRaw(&fh)
		if err != nil {
			return cw.n, fmt.Errorf("copy %s: %w", f.Name, err)
		}
		var body io.Reader = io.LimitReader(anyBytes{}, int64(f.CompressedSize64))
		if !dry {
			if body, err = f.OpenRaw(); err != nil {
				return cw.n, fmt.Errorf("copy %s: %w", f.Name, err)
			}
		}
		if _, err := io.CopyBuffer(fw, body, buf); err != nil {
			return cw.n, fmt.Errorf("copy %s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return cw.n, fmt.Errorf("finish zip: %w", err)
	}
	return cw.n, nil
}

// anyBytes reads as an endless run of whatever p holds: the stand-in for
// an entry's bytes when only their count matters.
type anyBytes struct{}

func (anyBytes) Read(p []byte) (int, error) { return len(p), nil }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
