package web

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strconv"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// matchFor loads a match and blanks the bot logs the viewer may not read:
// each bot's own log goes to its owner only.
func (h *Handler) matchFor(ctx context.Context, id, viewerID int64) (*store.MatchRow, error) {
	m, err := h.store.MatchDetailGet(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := h.battleResultGate(ctx, m, viewerID); err != nil {
		return nil, err
	}
	for i := range m.Players {
		if viewerID == 0 || m.Players[i].OwnerID != viewerID {
			m.Players[i].Log = ""
		}
	}
	return m, nil
}

func (h *Handler) matchPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	b := h.base(r, fmt.Sprintf("Match #%d", id))
	m, err := h.matchFor(r.Context(), id, b.UserID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(m.Players) > 2 && m.Status == "finished" {
		// A free-for-all reads best in finishing order; seat order stays
		// on the replay.
		slices.SortStableFunc(m.Players, func(a, b store.MatchPlayerRow) int {
			return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Seat, b.Seat))
		})
	}
	v := page.MatchView{Base: b, Match: m}
	if err := h.matchRatings(r.Context(), &v); err != nil {
		h.fail(w, r, err)
		return
	}
	if m.Status == "queued" || m.Status == "running" {
		v.Refresh, v.RefreshNoScript = 5, true
	}
	v.Viewer = h.matchViewer(r, m, b.UserID)
	h.render(w, r, http.StatusOK, page.Match(v))
}

// matchRatings adds what the match did to the ratings, and for a half of a
// pair both halves, to the match page.
func (h *Handler) matchRatings(ctx context.Context, v *page.MatchView) error {
	if !v.Match.Ranked {
		return nil
	}
	var err error
	if v.Ratings, err = h.store.MatchRatingEvents(ctx, v.Match); err != nil {
		return err
	}
	if v.Match.PairID != nil {
		if v.Pair, err = h.store.MatchPairHalves(ctx, *v.Match.PairID); err != nil {
			return err
		}
	}
	return nil
}

func (h *Handler) replayDownload(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := h.matchFor(r.Context(), id, h.base(r, "").UserID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if m.ReplayKey == "" {
		h.fail(w, r, refuse(http.StatusNotFound, "This match has no replay yet."))
		return
	}
	rd, err := h.blobs.NewReader(r.Context(), m.ReplayKey, nil)
	if err != nil {
		if blob.IsNotFound(err) {
			err = refuse(http.StatusNotFound, "The replay file is missing from storage.")
		}
		h.fail(w, r, fmt.Errorf("open replay of match %d: %w", id, err))
		return
	}
	defer rd.Close()
	// Each bot's log.txt (its stdout and stderr) is for its owner alone,
	// as on the match page.
	own := map[string]bool{}
	viewer := h.base(r, "").UserID
	for _, p := range m.Players {
		if viewer != 0 && p.OwnerID == viewer {
			own[p.Key] = true
		}
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		h.fail(w, r, fmt.Errorf("read replay of match %d: %w", id, err))
		return
	}
	var out bytes.Buffer
	if err := filterReplay(data, &out, func(name string) bool { return keepReplayFile(name, own) }); err != nil {
		h.fail(w, r, fmt.Errorf("replay of match %d: %w", id, err))
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(out.Len()))
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="match-%d-replay.zip"`, id))
	if _, err := out.WriteTo(w); err != nil {
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

// filterReplay copies the zip in data to w with only the entries keep
// accepts, unchanged (not compressed again).
func filterReplay(data []byte, w io.Writer, keep func(name string) bool) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("read zip: %w", err)
	}
	zw := zip.NewWriter(w)
	for _, f := range zr.File {
		if !keep(f.Name) {
			continue
		}
		if err := zw.Copy(f); err != nil {
			return fmt.Errorf("copy %s: %w", f.Name, err)
		}
	}
	return zw.Close()
}
