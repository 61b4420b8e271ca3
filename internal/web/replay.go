package web

import (
	"archive/zip"
	"cmp"
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gocloud.dev/blob"

	"github.com/broadside/broadside/web/page"
)

// maxBoardBytes caps one board shown from a replay.
const maxBoardBytes = 64 << 10

// roundDir matches an Entelect round folder ("Phase 2 - Round 14").
var roundDir = regexp.MustCompile(`^Phase (\d+) - Round (\d+)$`)

type replayDir struct {
	dir          string
	phase, round int
}

// replayRound reads round index i (clamped) of a replay zip: the text maps
// at the root of its round folder ("A - map.txt", "B - map.txt").
// Other games' replay.json steps are shown with the seats' names.
func (h *Handler) replayRound(ctx context.Context, key string, i int, names seatNames) (*page.ReplayRound, error) {
	attrs, err := h.blobs.Attributes(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read replay %s: %w", key, err)
	}
	// Read only the zip's directory and the round's boards, not the whole
	// replay: on S3 that is a few range requests instead of megabytes.
	zr, err := zip.NewReader(&blobReaderAt{ctx: ctx, bucket: h.blobs, key: key}, attrs.Size)
	if err != nil {
		return nil, fmt.Errorf("open replay %s: %w", key, err)
	}
	return readRound(zr, i, names)
}

func readRound(zr *zip.Reader, i int, names seatNames) (*page.ReplayRound, error) {
	seen := map[string]bool{}
	var dirs []replayDir
	for _, f := range zr.File {
		dir := path.Dir(f.Name)
		m := roundDir.FindStringSubmatch(path.Base(dir))
		if m == nil || seen[dir] {
			continue
		}
		seen[dir] = true
		p, _ := strconv.Atoi(m[1])
		r, _ := strconv.Atoi(m[2])
		dirs = append(dirs, replayDir{dir: dir, phase: p, round: r})
	}
	if len(dirs) == 0 {
		// The other games write one replay.json; anything else is
		// download only.
		return readGameReplay(zr, i, names)
	}
	slices.SortFunc(dirs, func(a, b replayDir) int {
		return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.round, b.round))
	})
	i = max(0, min(i, len(dirs)-1))
	d := dirs[i]
	out := &page.ReplayRound{Index: i, Count: len(dirs), Name: path.Base(d.dir)}
	for _, f := range zr.File {
		if path.Dir(f.Name) != d.dir || !strings.HasSuffix(f.Name, "map.txt") {
			continue
		}
		text, err := readCapped(f)
		if err != nil {
			return nil, err
		}
		out.Boards = append(out.Boards, page.Board{Title: path.Base(f.Name), Text: text})
	}
	slices.SortFunc(out.Boards, func(a, b page.Board) int { return cmp.Compare(a.Title, b.Title) })
	return out, nil
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

func readCapped(f *zip.File) (string, error) {
	rc, err := f.Open()
	if err != nil {
		return "", fmt.Errorf("open %s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxBoardBytes))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", f.Name, err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n"), nil
}
