package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/web/page"
)

func (h *Handler) uploadForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, page.Upload(page.UploadView{Base: h.base(r, "Upload a bot"), MaxBytes: h.cfg.UploadMaxBytes}))
}

func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	v := page.UploadView{Base: h.base(r, "Upload a bot"), MaxBytes: h.cfg.UploadMaxBytes, Name: r.PostFormValue("name")}
	file, header, err := r.FormFile("zip")
	if err != nil {
		v.Error = "Choose a zip file to upload."
		h.render(w, r, http.StatusUnprocessableEntity, page.Upload(v))
		return
	}
	defer file.Close()
	res, err := h.saveUpload(r.Context(), botupload.Upload{
		OwnerID: sessionFrom(r).User.ID, Name: v.Name, Zip: file, Size: header.Size,
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
	h.render(w, r, http.StatusRequestEntityTooLarge, page.Upload(page.UploadView{
		Base: h.base(r, "Upload a bot"), MaxBytes: h.cfg.UploadMaxBytes,
		Error: fmt.Sprintf("The zip is larger than the limit of %s (%d bytes).", mib(h.cfg.UploadMaxBytes), h.cfg.UploadMaxBytes),
	}))
}
