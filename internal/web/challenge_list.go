package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// challengeListSize is how many challenges the challenges page lists.
const challengeListSize = 200

// challengeFor loads a challenge for one of its two owners; anyone else
// gets the not-found answer, so challenges stay between their parties.
func (h *Handler) challengeFor(r *http.Request, userID int64) (*store.Challenge, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	// To anyone but its two parties a challenge does not exist: the same
	// answer as for a number never used, so trying numbers tells nothing.
	c, err := h.store.ChallengeGetByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && userID != c.ChallengerID && userID != c.ChallengedOwnerID) {
		return nil, refuse(http.StatusNotFound, "There is no challenge of yours with that number.")
	}
	return c, err
}

// challengesView loads the user's challenges, split into received and sent.
func (h *Handler) challengesView(r *http.Request) (*page.ChallengesView, error) {
	ctx := r.Context()
	userID := sessionFrom(r).User.ID
	all, err := h.store.ChallengeListForUser(ctx, userID, challengeListSize)
	if err != nil {
		return nil, err
	}
	auto, err := h.store.UserAutoAccept(ctx, userID)
	if err != nil {
		return nil, err
	}
	open, err := h.comp.OpenChallenges(ctx)
	if err != nil {
		return nil, err
	}
	v := &page.ChallengesView{Base: h.base(r, "Challenges"), AutoAccept: auto, OpenChallenges: open, Organiser: isOrganiser(r)}
	for _, c := range all {
		if c.ChallengedOwnerID == userID {
			v.Received = append(v.Received, c)
		} else {
			v.Sent = append(v.Sent, c)
		}
	}
	for _, c := range all {
		if c.MatchStatus == "queued" || c.MatchStatus == "running" {
			v.Refresh = 10 // until the results are in
		}
	}
	return v, nil
}

func (h *Handler) challenges(w http.ResponseWriter, r *http.Request) {
	v, err := h.challengesView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	switch r.URL.Query().Get("done") {
	case "auto-on":
		v.Notice = "Challenges to your bots are now accepted automatically."
	case "auto-off":
		v.Notice = "You now answer each challenge yourself."
	case "policy":
		v.Notice = "The challenge policy was changed for everyone."
	}
	h.render(w, r, http.StatusOK, page.Challenges(*v))
}

func (h *Handler) challengePage(w http.ResponseWriter, r *http.Request) {
	c, err := h.challengeFor(r, sessionFrom(r).User.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := page.ChallengeView{Base: h.base(r, "Challenge #"+strconv.FormatInt(c.ID, 10)), Challenge: c}
	if c.Status == "pending" || c.MatchStatus == "queued" || c.MatchStatus == "running" {
		v.Refresh = 10
	}
	h.render(w, r, http.StatusOK, page.Challenge(v))
}

// challengeAnswer accepts or declines a challenge from the challenges page.
func (h *Handler) challengeAnswer(accept bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			h.fail(w, r, err)
			return
		}
		userID := sessionFrom(r).User.ID
		var matchID int64
		if accept {
			matchID, err = h.comp.ChallengeAccept(r.Context(), userID, id)
		} else {
			err = h.comp.ChallengeDecline(r.Context(), userID, id)
		}
		if h.refused(w, r, err, h.challengesWithError(r)) {
			return
		}
		if accept {
			http.Redirect(w, r, "/matches/"+strconv.FormatInt(matchID, 10), http.StatusSeeOther)
			return
		}
		http.Redirect(w, r, "/challenges/"+strconv.FormatInt(id, 10), http.StatusSeeOther)
	}
}

// challengeAutoAccept turns automatic acceptance on or off.
func (h *Handler) challengeAutoAccept(w http.ResponseWriter, r *http.Request) {
	var on bool
	switch r.PostFormValue("auto_accept") {
	case "on":
		on = true
	case "off":
	default:
		h.fail(w, r, refuse(http.StatusBadRequest, "Choose on or off for auto-accept."))
		return
	}
	if err := h.store.UserSetAutoAccept(r.Context(), sessionFrom(r).User.ID, on); err != nil {
		h.fail(w, r, err)
		return
	}
	done := "auto-off"
	if on {
		done = "auto-on"
	}
	http.Redirect(w, r, "/challenges?done="+done, http.StatusSeeOther)
}

// challengePolicy lets an organiser open challenges to every bot or limit
// them to clans.
func (h *Handler) challengePolicy(w http.ResponseWriter, r *http.Request) {
	open, err := strconv.ParseBool(r.PostFormValue("open"))
	if err != nil {
		h.fail(w, r, refuse(http.StatusBadRequest, "Choose whether challenges are open to every bot."))
		return
	}
	err = h.comp.SetOpenChallenges(r.Context(), sessionFrom(r).User.ID, open)
	if h.refused(w, r, err, h.challengesWithError(r)) {
		return
	}
	http.Redirect(w, r, "/challenges?done=policy", http.StatusSeeOther)
}

// challengesWithError rebuilds the challenges page with a refusal.
func (h *Handler) challengesWithError(r *http.Request) func(msg string) (templ.Component, error) {
	return func(msg string) (templ.Component, error) {
		v, err := h.challengesView(r)
		if err != nil {
			return nil, err
		}
		v.Error = msg
		return page.Challenges(*v), nil
	}
}
