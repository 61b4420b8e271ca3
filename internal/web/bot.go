package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// pathID reads a numeric route parameter; a malformed one is a 404.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("route %s %q: %w", name, chi.URLParam(r, name), store.ErrNotFound)
	}
	return id, nil
}

func (h *Handler) botPage(w http.ResponseWriter, r *http.Request) {
	v, err := h.botView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if n, err := strconv.Atoi(r.URL.Query().Get("uploaded")); err == nil {
		v.Notice = uploadNotice(v.Versions, n)
	}
	if v.IsOwner {
		if n, ok := botDoneNotices[r.URL.Query().Get("done")]; ok {
			v.Notice = n
		}
	}
	h.render(w, r, http.StatusOK, page.Bot(*v))
}

// uploadNotice tells how the build of the version just uploaded stands, as
// the page is drawn: the page reloads itself when the build ends.
func uploadNotice(versions []store.BotVersionRow, number int) string {
	for _, ver := range versions {
		if ver.Number != number {
			continue
		}
		head := "Version " + strconv.Itoa(number) + " was uploaded; "
		switch ver.BuildStatus {
		case store.BuildQueued:
			return head + "its build is queued. This page shows its status."
		case store.BuildBuilding:
			return head + "it is being built. This page shows its status."
		case store.BuildOK:
			return head + "its build succeeded."
		case store.BuildFailed:
			return head + "its build failed."
		}
	}
	return ""
}

// botPageData is what the bot page reads from the database: the same for
// every visitor but the bot's owner, who also sees the build logs.
type botPageData struct {
	bot       *store.BotDetail
	versions  []store.BotVersionRow
	history   []store.HistoryRow
	points    []store.RatingPoint
	failures  []store.PlatformFailure
	ladder    *competition.BotLadder
	ownerClan *store.Clan
}

// botPageData reads bot id's page; without forOwner the build logs are
// left out (they go to the owner only).
func (h *Handler) botPageData(ctx context.Context, id int64, withHidden, forOwner bool) (botPageData, error) {
	var d botPageData
	var err error
	if d.bot, err = h.store.BotDetailGet(ctx, id); err != nil {
		return d, err
	}
	if d.versions, err = h.store.BotVersionRows(ctx, id); err != nil {
		return d, err
	}
	if !forOwner {
		for i := range d.versions {
			d.versions[i].BuildLog = ""
		}
	}
	if d.history, err = h.store.BotHistory(ctx, id, 10, 0, withHidden); err != nil {
		return d, err
	}
	if d.points, err = h.store.RatingHistory(ctx, id, chartPoints); err != nil {
		return d, err
	}
	if d.failures, err = h.store.PlatformFailures(ctx, store.PlatformFailureParams{BotID: id, Limit: 10, WithHidden: withHidden}); err != nil {
		return d, err
	}
	if d.ladder, err = h.battleService().BotLadder(ctx, id); err != nil {
		return d, err
	}
	switch d.ownerClan, err = h.store.ClanGetByUser(ctx, d.bot.OwnerID); {
	case errors.Is(err, store.ErrNotFound):
		d.ownerClan = nil
	case err != nil:
		return d, err
	}
	return d, nil
}

// botView loads everything the bot page shows to this visitor. A bot's
// page is what contestants reload most, their rivals' as much as their
// own: every visitor but the owner gets it from the public lists' cache,
// a second or two old at most; the owner, who acts on it (uploads,
// builds, duels), reads the database every time.
func (h *Handler) botView(r *http.Request) (*page.BotView, error) {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	hidden := seesHidden(r)
	d, err := cached(ctx, h.board, fmt.Sprintf("bot/%d/%t", id, hidden), func(ctx context.Context) (botPageData, error) {
		return h.botPageData(ctx, id, hidden, false)
	})
	if err != nil {
		return nil, err
	}
	base := h.base(r, d.bot.Name)
	if base.UserID != 0 && base.UserID == d.bot.OwnerID {
		if d, err = h.botPageData(ctx, id, hidden, true); err != nil {
			return nil, err
		}
		base.Title = d.bot.Name
	}
	// The cached rows are shared between requests: read, never changed.
	b, versions := d.bot, d.versions
	v := &page.BotView{Base: base, Bot: b, Versions: versions, History: d.history, Chart: page.RatingChart(d.points),
		PlatformFailures: d.failures, Ladder: d.ladder, OwnerClan: d.ownerClan}
	v.IsOwner = v.UserID == b.OwnerID
	for _, ver := range versions {
		if ver.BuildStatus == "queued" || ver.BuildStatus == "building" {
			// Scripts follow the build's event stream instead.
			v.Refresh, v.RefreshNoScript = 5, true
		}
	}
	if v.IsOwner {
		if v.Duel, err = h.duelFormView(ctx, b, versions); err != nil {
			return nil, err
		}
	}
	if v.UserID != 0 && !v.IsOwner {
		mine, err := h.store.BotsOwnedBy(ctx, v.UserID)
		if err != nil {
			return nil, err
		}
		for _, m := range mine {
			if m.Ready && m.Game == b.Game {
				v.MyBots = append(v.MyBots, m)
			}
		}
	}
	return v, nil
}
