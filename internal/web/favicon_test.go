package web_test

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
)

// TestFavicon: every page links the portal's icon, which is served as an
// SVG; the address browsers try on their own leads to it.
func TestFavicon(t *testing.T) {
	b := setup(t, nil)
	visitor := b.browser(t)
	for _, path := range []string{"/", "/leaderboard", "/no-such-page"} {
		if res := visitor.get(path); !strings.Contains(res.body, `<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">`) {
			t.Errorf("%s does not link the icon", path)
		}
	}
	res := visitor.get("/static/favicon.svg")
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("the icon: status %d, %s", res.status, res.header.Get("Content-Type"))
	}
	var svg struct {
		XMLName xml.Name
		ViewBox string `xml:"viewBox,attr"`
	}
	if err := xml.Unmarshal([]byte(res.body), &svg); err != nil || svg.XMLName.Local != "svg" || svg.ViewBox == "" {
		t.Errorf("the icon is not an SVG with a viewBox: %v %+v", err, svg)
	}
	if res := visitor.get("/favicon.ico"); res.status != http.StatusMovedPermanently || res.header.Get("Location") != "/static/favicon.svg" {
		t.Errorf("/favicon.ico: status %d to %q", res.status, res.header.Get("Location"))
	}
}
