package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

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

// botView loads everything the bot page shows to this visitor.
func (h *Handler) botView(r *http.Request) (*page.BotView, error) {
	ctx := r.Context()
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	b, err := h.store.BotDetailGet(ctx, id)
	if err != nil {
		return nil, err
	}
	versions, err := h.store.BotVersionRows(ctx, id)
	if err != nil {
		return nil, err
	}
	history, err := h.store.BotHistory(ctx, id, 10, 0, seesHidden(r))
	if err != nil {
		return nil, err
	}
	points, err := h.store.RatingHistory(ctx, id, chartPoints)
	if err != nil {
		return nil, err
	}
	v := &page.BotView{Base: h.base(r, b.Name), Bot: b, Versions: versions, History: history, Chart: page.RatingChart(points)}
	v.IsOwner = v.UserID == b.OwnerID
	v.PlatformFailures, err = h.store.PlatformFailures(ctx, store.PlatformFailureParams{BotID: id, Limit: 10, WithHidden: seesHidden(r)})
	if err != nil {
		return nil, err
	}
	if v.Ladder, err = h.battleService().BotLadder(ctx, id); err != nil {
		return nil, err
	}
	switch clan, err := h.store.ClanGetByUser(ctx, b.OwnerID); {
	case err == nil:
		v.OwnerClan = clan
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	for _, ver := range versions {
		if ver.BuildStatus == "queued" || ver.BuildStatus == "building" {
			// Scripts follow the build's event stream instead.
			v.Refresh, v.RefreshNoScript = 5, true
		}
	}
	if !v.IsOwner {
		for i := range v.Versions {
			v.Versions[i].BuildLog = "" // build logs go to the owner only
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
