package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/web/page"
)

// challengeForm sends a challenge from the bot page. The challenger lands
// on the match when the challenge was accepted at once, else on the
// challenge, which waits for the other owner's answer.
func (h *Handler) challengeForm(w http.ResponseWriter, r *http.Request) {
	theirs, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	mine, _ := strconv.ParseInt(r.PostFormValue("bot_id"), 10, 64)
	res, err := h.comp.Challenge(r.Context(), sessionFrom(r).User.ID, mine, theirs)
	if h.refused(w, r, err, func(msg string) (templ.Component, error) {
		v, err := h.botView(r)
		if err != nil {
			return nil, err
		}
		v.Error = msg
		return page.Bot(*v), nil
	}) {
		return
	}
	if res.MatchID != nil {
		http.Redirect(w, r, "/matches/"+strconv.FormatInt(*res.MatchID, 10), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/challenges/"+strconv.FormatInt(res.ChallengeID, 10), http.StatusSeeOther)
}

// refused answers a failed form post: a refusal is shown on the page the
// form came from (built by rerender with the message), with its status;
// any other error goes to the error page. It reports whether err was
// answered, false when err is nil.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, err error, rerender func(msg string) (templ.Component, error)) bool {
	if err == nil {
		return false
	}
	err = compErr(err)
	var ue *userError
	if !errors.As(err, &ue) {
		h.fail(w, r, err)
		return true
	}
	c, rerr := rerender(ue.msg)
	if rerr != nil {
		// The page itself is gone (a removed clan, a missing bot): the
		// refusal still says what happened.
		h.fail(w, r, err)
		return true
	}
	h.render(w, r, ue.status, c)
	return true
}
