package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/web"
)

// TestBotPagesCachedForVisitors: a bot's page and its history come from
// the public lists' cache for every visitor but the owner, without the
// build logs, which go to the owner only; the owner's pages are read
// afresh at every request. The interval is an hour here, so a page a
// visitor read before a change is the one they get after it.
func TestBotPagesCachedForVisitors(t *testing.T) {
	b := setupWith(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()}, func(c *web.Config) { c.LeaderboardTTL = time.Hour })
	ann, bob, visitor := b.browser(t), b.browser(t), b.browser(t)
	ann.register("ann")
	bob.register("bob")
	botID := ann.uploadBot("Before", goodZip(t))
	v1, err := b.st.BotVersionGetByNumber(b.ctx, botID, 1)
	if err != nil {
		t.Fatal(err)
	}
	const buildLog = "the build log of version 1"
	if err := b.st.BotVersionFinishBuild(b.ctx, v1.ID, store.BuildResult{OK: true, Log: buildLog, ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	pages := []string{fmt.Sprintf("/bots/%d", botID), fmt.Sprintf("/bots/%d/history", botID)}
	get := func(br *browser, path string) string {
		t.Helper()
		res := br.get(path)
		if res.status != http.StatusOK {
			t.Fatalf("%s: status %d", path, res.status)
		}
		return res.body
	}
	// Each page once, to fill the cache: the visitors' copy has no log.
	for _, p := range pages {
		for _, br := range []*browser{visitor, bob} {
			if body := get(br, p); !strings.Contains(body, "Before") || strings.Contains(body, buildLog) {
				t.Errorf("%s: a visitor's page lacks the bot's name or shows its build log", p)
			}
		}
	}
	if body := get(ann, pages[0]); !strings.Contains(body, buildLog) {
		t.Errorf("%s: the owner's page lacks the build log", pages[0])
	}

	if err := b.st.BotRename(b.ctx, botID, "After"); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		for name, br := range map[string]*browser{"a visitor": visitor, "another contestant": bob} {
			if body := get(br, p); !strings.Contains(body, "Before") || strings.Contains(body, "After") {
				t.Errorf("%s: %s's page was read afresh within the interval", p, name)
			}
		}
		body := get(ann, p)
		if !strings.Contains(body, "After") || strings.Contains(body, "Before") {
			t.Errorf("%s: the owner's page is not read afresh, its title included", p)
		}
		if p == pages[0] && !strings.Contains(body, buildLog) {
			t.Errorf("%s: the owner's fresh page lacks the build log", p)
		}
	}
}
