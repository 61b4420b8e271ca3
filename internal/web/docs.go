package web

import (
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/broadside/broadside/docs"
	"github.com/broadside/broadside/internal/manual"
	"github.com/broadside/broadside/web/page"
)

// docSet is the documentation the binary embeds, rendered once, on first
// use.
type docSet struct {
	once  sync.Once
	err   error
	pages map[string]page.Doc
	index []page.Doc
}

func (d *docSet) load() error {
	d.once.Do(func() {
		m, err := manual.Render(docs.FS)
		if err != nil {
			d.err = err
			return
		}
		d.pages = map[string]page.Doc{}
		for name, p := range m.Pages {
			d.pages[name] = page.Doc{Name: p.Name, Title: p.Title, HTML: p.HTML}
		}
		for _, p := range m.Index {
			d.index = append(d.index, page.Doc{Name: p.Name, Title: p.Title})
		}
	})
	return d.err
}

// docsIndex lists the documentation.
func (h *Handler) docsIndex(w http.ResponseWriter, r *http.Request) {
	if err := h.docs.load(); err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, page.Docs(page.DocsView{Base: h.base(r, "Documentation"), Index: h.docs.index}))
}

// docPage shows one document.
func (h *Handler) docPage(w http.ResponseWriter, r *http.Request) {
	if err := h.docs.load(); err != nil {
		h.fail(w, r, err)
		return
	}
	doc, ok := h.docs.pages[chi.URLParam(r, "name")]
	if !ok {
		h.fail(w, r, refuse(http.StatusNotFound, "There is no documentation page called %q.", chi.URLParam(r, "name")))
		return
	}
	h.render(w, r, http.StatusOK, page.DocPage(page.DocsView{Base: h.base(r, doc.Title), Index: h.docs.index, Doc: doc}))
}
