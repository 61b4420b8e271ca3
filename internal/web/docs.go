package web

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/broadside/broadside/docs"
	"github.com/broadside/broadside/web/page"
)

// docSet is the documentation rendered to HTML once, from the Markdown
// files the binary embeds.
type docSet struct {
	once  sync.Once
	err   error
	pages map[string]page.Doc
	index []page.Doc
}

func (d *docSet) load() error {
	d.once.Do(func() { d.pages, d.index, d.err = renderDocs(docs.FS) })
	return d.err
}

// renderDocs renders every Markdown file of fsys. Links between the
// files point to their pages; links to the repository's other files
// (source, starter folders) keep their text without the link.
func renderDocs(fsys fs.FS) (map[string]page.Doc, []page.Doc, error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, nil, err
	}
	known := map[string]bool{}
	for _, n := range names {
		known[strings.TrimSuffix(n, ".md")] = true
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(docLinks{known: known}, 100))),
	)
	pages := map[string]page.Doc{}
	var index []page.Doc
	for _, n := range names {
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, nil, err
		}
		var out bytes.Buffer
		if err := md.Convert(src, &out); err != nil {
			return nil, nil, fmt.Errorf("render %s: %w", n, err)
		}
		name := strings.TrimSuffix(n, ".md")
		doc := page.Doc{Name: name, Title: docTitle(src, name), HTML: out.String()}
		pages[name] = doc
		index = append(index, page.Doc{Name: doc.Name, Title: doc.Title})
	}
	sort.Slice(index, func(i, j int) bool { return docOrder(index[i].Name) < docOrder(index[j].Name) })
	return pages, index, nil
}

// docOrder lists the pages a contestant reads first at the top.
func docOrder(name string) string {
	for i, n := range []string{"entelect", "brainjar", "deepship", "hitandsunk", "starter-bots",
		"battleship-command", "viewer", "competition", "api"} {
		if n == name {
			return fmt.Sprintf("%02d", i)
		}
	}
	return "99" + name
}

var firstHeading = regexp.MustCompile("(?m)^# (.+)$")

// docTitle is a page's first heading without Markdown's code marks.
func docTitle(src []byte, name string) string {
	if m := firstHeading.FindSubmatch(src); m != nil {
		return strings.ReplaceAll(string(m[1]), "`", "")
	}
	return name
}

// docLinks rewrites the links of a document: "competition.md#ratings"
// becomes "/docs/competition#ratings"; a relative link to anything else
// of the repository is dropped, its text kept.
type docLinks struct{ known map[string]bool }

func (l docLinks) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var drop []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		link, ok := n.(*ast.Link)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		dest := string(link.Destination)
		switch {
		case strings.Contains(dest, "://"), strings.HasPrefix(dest, "#"), strings.HasPrefix(dest, "mailto:"):
		default:
			file, frag, _ := strings.Cut(dest, "#")
			name := strings.TrimSuffix(path.Base(file), ".md")
			if strings.HasSuffix(file, ".md") && l.known[name] {
				link.Destination = []byte("/docs/" + name + fragment(frag))
			} else {
				drop = append(drop, link)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, link := range drop {
		parent := link.Parent()
		for c := link.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, link, c)
			c = next
		}
		parent.RemoveChild(parent, link)
	}
}

func fragment(f string) string {
	if f == "" {
		return ""
	}
	return "#" + f
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
