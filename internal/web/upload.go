package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/broadside/broadside/internal/botupload"
)

// saveUpload records an upload through the upload service and turns its
// refusals into answers for the uploader.
func (h *Handler) saveUpload(ctx context.Context, u botupload.Upload) (*botupload.Result, error) {
	res, err := h.uploads.Save(ctx, u)
	return res, uploadRefusal(err)
}

// uploadRefusal turns the upload service's refusals into answers for the
// uploader; other errors pass as they are.
func uploadRefusal(err error) error {
	var refusal *botupload.Error
	if errors.As(err, &refusal) {
		status := http.StatusUnprocessableEntity
		switch refusal.Kind {
		case botupload.TooLarge:
			status = http.StatusRequestEntityTooLarge
		case botupload.Conflict:
			status = http.StatusConflict
		case botupload.TooMany:
			status = http.StatusTooManyRequests
		}
		return &userError{status: status, msg: refusal.Msg, retryAfter: refusal.RetryAfter}
	}
	return err
}
