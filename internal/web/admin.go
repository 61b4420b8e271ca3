package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// workerStaleAfter is how long after its last heartbeat (every 15 s) a
// worker is shown as not responding.
const workerStaleAfter = 45 * time.Second

// requireOrganiser lets only organisers through; it follows requireUser.
func (h *Handler) requireOrganiser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isOrganiser(r) {
			h.fail(w, r, refuse(http.StatusForbidden, "The admin console is for organisers."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) adminPage(w http.ResponseWriter, r *http.Request) {
	v, err := h.adminView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Notice = r.URL.Query().Get("done")
	h.render(w, r, http.StatusOK, page.Admin(*v))
}

func (h *Handler) adminView(r *http.Request) (*page.AdminView, error) {
	ctx := r.Context()
	depth, err := h.store.QueueDepth(ctx)
	if err != nil {
		return nil, err
	}
	workers, err := h.store.WorkerList(ctx, h.now().Add(-24*time.Hour))
	if err != nil {
		return nil, err
	}
	matches, err := h.store.AdminRecentMatches(ctx, 30)
	if err != nil {
		return nil, err
	}
	audit, err := h.store.AuditList(ctx, 100)
	if err != nil {
		return nil, err
	}
	periodic, err := h.store.PeriodicList(ctx)
	if err != nil {
		return nil, err
	}
	v := &page.AdminView{Base: h.base(r, "Admin"), Matches: matches, Audit: audit}
	switch c, err := h.store.RatingCheckLatest(ctx); {
	case err == nil:
		v.RatingCheck = c
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	if v.PlatformFailures, err = h.store.PlatformFailures(ctx, store.PlatformFailureParams{Limit: 30, WithHidden: true}); err != nil {
		return nil, err
	}
	if v.FaultStopped, err = h.store.FaultStoppedBots(ctx, 50); err != nil {
		return nil, err
	}
	for _, p := range periodic {
		late := p.Overdue(h.now())
		v.Periodic = append(v.Periodic, page.PeriodicLine{PeriodicRun: p, Overdue: late})
		if late {
			v.Overdue++
		}
	}
	for _, kind := range []string{"ladder", "placement", "challenge", "battle", "duel"} {
		v.Queue = append(v.Queue, page.QueueLine{Kind: kind, Count: depth[kind]})
		v.QueueTotal += depth[kind]
	}
	for _, wk := range workers {
		v.Workers = append(v.Workers, page.WorkerLine{WorkerHeartbeat: wk, Healthy: h.now().Sub(wk.LastSeenAt) < workerStaleAfter})
	}
	return v, nil
}

// adminAct runs one audited admin action; its refusal is shown on the
// console, and success redirects there with a notice.
func (h *Handler) adminAct(w http.ResponseWriter, r *http.Request, act func(ctx context.Context, actor, id int64) (string, error)) {
	var id int64
	switch {
	case chi.URLParam(r, "id") != "":
		var err error
		if id, err = pathID(r, "id"); err != nil {
			h.fail(w, r, err)
			return
		}
	case r.PostFormValue("id") != "":
		id = formInt(r, "id")
		if id <= 0 {
			h.fail(w, r, refuse(http.StatusUnprocessableEntity, "Give a number."))
			return
		}
	}
	notice, err := act(r.Context(), sessionFrom(r).User.ID, id)
	var ue *userError
	if errors.As(err, &ue) {
		v, verr := h.adminView(r)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		v.Error = ue.msg
		h.render(w, r, ue.status, page.Admin(*v))
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/admin?done="+url.QueryEscape(notice), http.StatusSeeOther)
}

// errAlreadyQueued undoes a requeue whose match still has an unfinished
// job: River adds no second one, so nothing would change.
var errAlreadyQueued = errors.New("match already has an unfinished job")

func (h *Handler) adminMatchRequeue(w http.ResponseWriter, r *http.Request) {
	h.adminAct(w, r, func(ctx context.Context, actor, id int64) (string, error) {
		err := h.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
			if err := st.AdminMatchRequeue(ctx, id); err != nil {
				return err
			}
			added, err := h.queue.EnqueueMatchTx(ctx, tx, id)
			if err != nil {
				return err
			}
			if !added {
				return errAlreadyQueued
			}
			return st.AuditAdd(ctx, actor, "match.requeue", "match", id, "")
		})
		switch {
		case errors.Is(err, store.ErrMatchDone):
			return "", refuse(http.StatusConflict, "Match %d has ended; rerun it to play it again.", id)
		case errors.Is(err, errAlreadyQueued):
			return fmt.Sprintf("Match %d is already waiting in the queue (or being played); nothing changed.", id), nil
		}
		return fmt.Sprintf("Match %d is queued again.", id), err
	})
}

func (h *Handler) adminMatchCancel(w http.ResponseWriter, r *http.Request) {
	h.adminAct(w, r, func(ctx context.Context, actor, id int64) (string, error) {
		err := h.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
			if err := st.MatchCancel(ctx, id); err != nil {
				return err
			}
			// A duel's game is counted as its result is recorded; a
			// canceled one ends the duel, as a failed one does, so its
			// owner is not left with a duel that never ends.
			if _, err := competition.AdvanceDuel(ctx, tx, h.queue, id); err != nil {
				return err
			}
			return st.AuditAdd(ctx, actor, "match.cancel", "match", id, "")
		})
		if errors.Is(err, store.ErrMatchDone) {
			return "", refuse(http.StatusConflict, "Match %d has already ended.", id)
		}
		return fmt.Sprintf("Match %d is canceled.", id), err
	})
}

func (h *Handler) adminMatchRerun(w http.ResponseWriter, r *http.Request) {
	h.adminAct(w, r, func(ctx context.Context, actor, id int64) (string, error) {
		var nid int64
		err := h.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
			var err error
			if nid, err = st.AdminMatchRerun(ctx, id, actor); err != nil {
				return err
			}
			if err := enqueueNewMatch(ctx, h.queue, tx, nid); err != nil {
				return err
			}
			return st.AuditAdd(ctx, actor, "match.rerun", "match", id, fmt.Sprintf("rerun as match %d", nid))
		})
		return fmt.Sprintf("Match %d is rerun as match %d (unranked).", id, nid), err
	})
}

func formInt(r *http.Request, name string) int64 {
	n, _ := strconv.ParseInt(r.PostFormValue(name), 10, 64)
	return n
}

// adminMatchForm runs the match action chosen on the console's form.
func (h *Handler) adminMatchForm(w http.ResponseWriter, r *http.Request) {
	switch r.PostFormValue("action") {
	case "requeue":
		h.adminMatchRequeue(w, r)
	case "rerun":
		h.adminMatchRerun(w, r)
	case "cancel":
		h.adminMatchCancel(w, r)
	default:
		h.fail(w, r, refuse(http.StatusUnprocessableEntity, "Choose requeue, rerun or cancel."))
	}
}

// adminBot disables or enables a bot; a disabled bot plays no new ladder,
// challenge or battle games.
func (h *Handler) adminBot(w http.ResponseWriter, r *http.Request) {
	disable := r.PostFormValue("disable") != "0"
	action, word := "bot.enable", "enabled"
	if disable {
		action, word = "bot.disable", "disabled"
	}
	h.adminAct(w, r, func(ctx context.Context, actor, id int64) (string, error) {
		err := h.store.InTx(ctx, func(_ pgx.Tx, st *store.Store) error {
			if err := st.BotSetDisabled(ctx, id, disable); err != nil {
				return err
			}
			return st.AuditAdd(ctx, actor, action, "bot", id, "")
		})
		return fmt.Sprintf("Bot %d is %s.", id, word), err
	})
}

func (h *Handler) adminRecompute(w http.ResponseWriter, r *http.Request) {
	h.adminAct(w, r, func(ctx context.Context, actor, _ int64) (string, error) {
		rep, err := competition.RecomputeRatings(ctx, h.store, true)
		if err != nil {
			return "", err
		}
		detail := fmt.Sprintf("replayed %d matches of %d bots; %d ratings replaced", rep.Matches, rep.Bots, len(rep.Differences))
		if err := h.store.AuditAdd(ctx, actor, "ratings.recompute", "", 0, detail); err != nil {
			return "", err
		}
		return "Ratings recomputed: " + detail + ".", nil
	})
}
