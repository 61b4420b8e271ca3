// Package manual renders the project's documentation (docs/*.md) to HTML
// pages for the portal: contestants read the rules and the API on the
// site, never needing the repository.
package manual

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Page is one document rendered.
type Page struct {
	// Name is the page's address under /docs/: its file name without .md.
	Name  string
	Title string
	// HTML is the rendered document; the Markdown allows no raw HTML.
	HTML string
}

// Manual is every document, rendered, and their index in reading order.
type Manual struct {
	Pages map[string]Page
	Index []Page // without their HTML
}

// Render renders every Markdown file of fsys. Links between the files
// point to their pages (/docs/name#anchor); links to the repository's
// other files (source, starter folders) keep their text without the link.
func Render(fsys fs.FS) (*Manual, error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, n := range names {
		known[strings.TrimSuffix(n, ".md")] = true
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(links{known: known}, 100))),
	)
	m := &Manual{Pages: map[string]Page{}}
	for _, n := range names {
		src, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		if err := md.Convert(src, &out); err != nil {
			return nil, fmt.Errorf("render %s: %w", n, err)
		}
		name := strings.TrimSuffix(n, ".md")
		p := Page{Name: name, Title: title(src, name), HTML: out.String()}
		m.Pages[name] = p
		m.Index = append(m.Index, Page{Name: p.Name, Title: p.Title})
	}
	sort.Slice(m.Index, func(i, j int) bool { return order(m.Index[i].Name) < order(m.Index[j].Name) })
	return m, nil
}

// order lists the pages a contestant reads first at the top.
func order(name string) string {
	for i, n := range []string{"entelect", "brainjar", "deepship", "hitandsunk", "starter-bots",
		"battleship-command", "viewer", "competition", "api"} {
		if n == name {
			return fmt.Sprintf("%02d", i)
		}
	}
	return "99" + name
}

var firstHeading = regexp.MustCompile("(?m)^# (.+)$")

// title is a page's first heading without Markdown's code marks.
func title(src []byte, name string) string {
	if m := firstHeading.FindSubmatch(src); m != nil {
		return strings.ReplaceAll(string(m[1]), "`", "")
	}
	return name
}

// links rewrites the links of a document: "competition.md#ratings"
// becomes "/docs/competition#ratings"; a relative link to anything else
// of the repository is dropped, its text kept.
type links struct{ known map[string]bool }

func (l links) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
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
