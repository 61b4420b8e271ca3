package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/bytesize"
	"github.com/broadside/broadside/web/page"
)

// uploadView is the upload form for game (empty: any) and the uploader's
// bot botID (zero: a new bot). A bot chosen decides the game.
func (h *Handler) uploadView(r *http.Request, game string, botID int64) (page.UploadView, error) {
	v := page.UploadView{Base: h.base(r, "Upload a bot"), MaxBytes: h.cfg.UploadMaxBytes, Games: h.playGames()}
	mine, err := h.store.BotsOwnedBy(r.Context(), v.UserID)
	if err != nil {
		return v, err
	}
	for _, b := range mine {
		if b.ID == botID {
			game, v.BotID = b.Game, b.ID
		}
	}
	if slices.ContainsFunc(v.Games, func(g page.PlayGame) bool { return g.Game == game }) {
		v.Game = game
	}
	for _, b := range mine {
		if v.Game == "" || b.Game == v.Game {
			v.Bots = append(v.Bots, b)
		}
	}
	if g, ok := v.Chosen(); ok {
		v.Title = "Upload a bot: " + g.Traits.Title
	}
	return v, nil
}

func (h *Handler) uploadForm(w http.ResponseWriter, r *http.Request) {
	botID, _ := strconv.ParseInt(r.URL.Query().Get("bot"), 10, 64)
	v, err := h.uploadView(r, r.URL.Query().Get("game"), botID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Upload(v))
}

func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	botID, _ := strconv.ParseInt(r.PostFormValue("bot_id"), 10, 64)
	v, err := h.uploadView(r, r.PostFormValue("game"), botID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Name = r.PostFormValue("name")
	file, header, err := r.FormFile("zip")
	if err != nil {
		v.Error = "Choose a zip file to upload."
		h.render(w, r, http.StatusUnprocessableEntity, page.Upload(v))
		return
	}
	defer file.Close()
	res, err := h.saveUpload(r.Context(), botupload.Upload{
		OwnerID: sessionFrom(r).User.ID, Name: v.Name, BotID: botID, Game: v.Game, Zip: file, Size: header.Size,
	})
	var ue *userError
	if errors.As(err, &ue) {
		setRetryAfter(w, err)
		v.Error = ue.msg
		h.render(w, r, ue.status, page.Upload(v))
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/bots/"+strconv.FormatInt(res.BotID, 10)+"?uploaded="+strconv.Itoa(res.Number), http.StatusSeeOther)
}

// uploadTooLarge answers an upload whose request was cut off at the size
// limit with the form and the limit, like every other refused upload.
func (h *Handler) uploadTooLarge(w http.ResponseWriter, r *http.Request) {
	v, err := h.uploadView(r, "", 0)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Error = fmt.Sprintf("The zip is larger than the limit of %s (%d bytes).", bytesize.Format(h.cfg.UploadMaxBytes), h.cfg.UploadMaxBytes)
	h.render(w, r, http.StatusRequestEntityTooLarge, page.Upload(v))
}
