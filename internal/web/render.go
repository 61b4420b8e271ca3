package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/web/page"
)

// render writes a page with a status. The page is rendered into a buffer
// first so a failure half-way still gives a proper error response.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		h.logger.ErrorContext(r.Context(), "render page", "path", r.URL.Path, "err", err)
		http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// base is the layout's view for the request's visitor.
func (h *Handler) base(r *http.Request, title string) page.Base {
	b := page.Base{Title: title, CSRF: csrfToken(r)}
	if s := sessionFrom(r); s != nil {
		b.User, b.UserID = s.User.Username, s.User.ID
		b.Organiser = s.User.Role == "organiser"
	}
	return b
}
