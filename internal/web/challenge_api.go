package web

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/broadside/broadside/internal/store"
)

// apiChallenge sends a challenge: 201 with the match when it was accepted
// at once, 202 with the pending challenge otherwise.
func (h *Handler) apiChallenge(w http.ResponseWriter, r *http.Request) {
	theirs, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	var body struct {
		BotID int64 `json:"bot_id"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body); err != nil || body.BotID == 0 {
		h.apiFail(w, r, refuse(http.StatusBadRequest, `Send {"bot_id": <your bot's id>} as the JSON body.`))
		return
	}
	res, err := h.comp.Challenge(r.Context(), apiUserFrom(r).ID, body.BotID, theirs)
	if err != nil {
		h.apiFail(w, r, compErr(err))
		return
	}
	if res.MatchID != nil {
		writeJSON(w, http.StatusCreated, map[string]any{
			"challenge_id": res.ChallengeID, "challenge_status": "accepted",
			"match_id": *res.MatchID, "status": "queued", "url": "/api/matches/" + strconv.FormatInt(*res.MatchID, 10),
		})
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"challenge_id": res.ChallengeID, "challenge_status": "pending", "status": "pending",
		"url": "/api/challenges/" + strconv.FormatInt(res.ChallengeID, 10),
	})
}

// apiChallengeGet returns a challenge to either of its two owners.
func (h *Handler) apiChallengeGet(w http.ResponseWriter, r *http.Request) {
	c, err := h.challengeFor(r, apiUserFrom(r).ID)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, challengeJSON(c))
}

// apiChallenges lists the challenges the user sent or received, newest
// first; ?status= keeps those with that status.
func (h *Handler) apiChallenges(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	switch status {
	case "", "pending", "accepted", "declined", "canceled":
	default:
		h.apiFail(w, r, refuse(http.StatusBadRequest, "status is pending, accepted, declined or canceled."))
		return
	}
	all, err := h.store.ChallengeListForUser(r.Context(), apiUserFrom(r).ID, challengeListSize)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	out := []map[string]any{}
	for i := range all {
		if status == "" || all[i].Status == status {
			out = append(out, challengeJSON(&all[i]))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"challenges": out})
}

func challengeJSON(c *store.Challenge) map[string]any {
	return map[string]any{
		"id": c.ID, "status": c.Status, "ranked": c.Ranked, "created_at": c.CreatedAt, "responded_at": c.RespondedAt,
		"challenger":   map[string]any{"user": c.ChallengerName, "bot_id": c.ChallengerBotID, "bot": c.ChallengerBotName},
		"challenged":   map[string]any{"user": c.ChallengedOwner, "bot_id": c.ChallengedBotID, "bot": c.ChallengedBotName},
		"match_id":     c.MatchID,
		"match_status": c.MatchStatus,
		"winner":       c.Winner,
	}
}

// apiChallengeAccept accepts a challenge: 201 with the queued match.
func (h *Handler) apiChallengeAccept(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	matchID, err := h.comp.ChallengeAccept(r.Context(), apiUserFrom(r).ID, id)
	if err != nil {
		h.apiFail(w, r, compErr(err))
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"challenge_id": id, "challenge_status": "accepted",
		"match_id": matchID, "status": "queued", "url": "/api/matches/" + strconv.FormatInt(matchID, 10),
	})
}

// apiChallengeDecline declines a challenge (its challenged owner) or
// withdraws it (its challenger).
func (h *Handler) apiChallengeDecline(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	if err := h.comp.ChallengeDecline(r.Context(), apiUserFrom(r).ID, id); err != nil {
		h.apiFail(w, r, compErr(err))
		return
	}
	c, err := h.store.ChallengeGetByID(r.Context(), id)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"challenge_id": id, "challenge_status": c.Status})
}
