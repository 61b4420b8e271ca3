package web

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/store"
)

// apiBot is a bot in API answers.
type apiBot struct {
	ID             int64        `json:"id"`
	Name           string       `json:"name"`
	Owner          string       `json:"owner"`
	Game           string       `json:"game"`
	Language       string       `json:"language"`
	House          bool         `json:"house"`
	Disabled       bool         `json:"disabled"`
	CurrentVersion *int         `json:"current_version"`
	Rating         *apiRating   `json:"rating"`
	Versions       []apiVersion `json:"versions"`
	URL            string       `json:"url"`
	CreatedAt      time.Time    `json:"created_at"`
}

type apiRating struct {
	Rating       float64    `json:"rating"`
	Deviation    float64    `json:"deviation"`
	Conservative float64    `json:"conservative"`
	Games        int        `json:"games"`
	Wins         int        `json:"wins"`
	Losses       int        `json:"losses"`
	Draws        int        `json:"draws"`
	LastGameAt   *time.Time `json:"last_game_at"`
}

type apiVersion struct {
	ID      int64  `json:"id"`
	Number  int    `json:"number"`
	BotType string `json:"bot_type"`
	Size    int64  `json:"size"`
	// SHA256 of the uploaded zip, for its owner only: with it anyone
	// could test a guess of a private source.
	SHA256      *string    `json:"sha256,omitempty"`
	BuildStatus string     `json:"build_status"`
	BuildLog    *string    `json:"build_log,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	BuiltAt     *time.Time `json:"built_at"`
}

func toAPIRating(r store.Rating) *apiRating {
	return &apiRating{Rating: r.Rating, Deviation: r.Deviation, Conservative: r.Conservative(), Games: r.Games,
		Wins: r.Wins, Losses: r.Losses, Draws: r.Draws, LastGameAt: r.LastGameAt}
}

func (h *Handler) apiUpload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, h.cfg.UploadMaxBytes+1<<20)
	u := botupload.Upload{OwnerID: apiUserFrom(r).ID, Name: r.URL.Query().Get("name"), Size: r.ContentLength}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "multipart/form-data":
		file, header, err := r.FormFile("zip")
		if err != nil {
			var tooBig *http.MaxBytesError
			if !errors.As(err, &tooBig) {
				err = refuse(http.StatusUnprocessableEntity, `Send the zip as the form field "zip".`)
			}
			h.apiFail(w, r, err)
			return
		}
		defer file.Close()
		u.Zip, u.Size = file, header.Size
		if n := r.FormValue("name"); n != "" {
			u.Name = n
		}
		if g := r.FormValue("game"); g != "" {
			u.Game = g
		}
	case "application/zip", "application/octet-stream":
		u.Zip = r.Body
	default:
		h.apiFail(w, r, refuse(http.StatusUnsupportedMediaType,
			`Send the zip as multipart/form-data (field "zip") or as an application/zip body.`))
		return
	}
	if u.Game == "" {
		u.Game = r.URL.Query().Get("game")
	}
	if u.Game != "" && !slices.Contains(h.cfg.Games, u.Game) {
		h.apiFail(w, r, refuse(http.StatusBadRequest, "There is no game called %q.", u.Game))
		return
	}
	res, err := h.saveUpload(r.Context(), u)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"bot_id": res.BotID, "version_id": res.VersionID, "version": res.Number, "build_status": "queued",
		"url": "/api/bots/" + strconv.FormatInt(res.BotID, 10),
	})
}

func (h *Handler) apiBot(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	viewer := apiViewerID(r)
	out, err := h.apiBotFor(r.Context(), id, viewer)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// apiBotFor loads a bot for the API; build logs go to its owner only, as
// on the bot page.
func (h *Handler) apiBotFor(ctx context.Context, id, viewerID int64) (*apiBot, error) {
	b, err := h.store.BotDetailGet(ctx, id)
	if err != nil {
		return nil, err
	}
	versions, err := h.store.BotVersionRows(ctx, id)
	if err != nil {
		return nil, err
	}
	owner := viewerID != 0 && viewerID == b.OwnerID
	out := &apiBot{ID: b.ID, Name: b.Name, Owner: b.Owner, Game: b.Game, Language: b.Language, House: b.House,
		Disabled: b.Disabled, URL: "/bots/" + strconv.FormatInt(b.ID, 10), CreatedAt: b.CreatedAt,
		Versions: []apiVersion{}}
	if b.CurrentVersionID != nil {
		out.CurrentVersion = &b.CurrentVersion
	}
	if b.Rating != nil {
		out.Rating = toAPIRating(*b.Rating)
	}
	for _, v := range versions {
		av := apiVersion{ID: v.ID, Number: v.Number, BotType: v.BotType, Size: v.SourceSize,
			BuildStatus: v.BuildStatus, CreatedAt: v.CreatedAt, BuiltAt: v.BuiltAt}
		if owner {
			av.SHA256, av.BuildLog = &v.SourceSHA256, &v.BuildLog
		}
		out.Versions = append(out.Versions, av)
	}
	return out, nil
}

// apiMyBots lists the caller's bots by name, each as GET /api/bots/{id}
// shows it to its owner.
func (h *Handler) apiMyBots(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := apiUserFrom(r)
	mine, err := h.store.BotsOwnedBy(ctx, u.ID)
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	out := make([]*apiBot, 0, len(mine))
	for _, m := range mine {
		b, err := h.apiBotFor(ctx, m.ID, u.ID)
		if err != nil {
			h.apiFail(w, r, fmt.Errorf("load bot %d of user %d: %w", m.ID, u.ID, err))
			return
		}
		out = append(out, b)
	}
	writeJSON(w, http.StatusOK, map[string]any{"bots": out})
}
