package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/store"
)

var joinKeyPattern = regexp.MustCompile(`id="join-key">([A-Za-z0-9_-]+)<`)

// clanOf returns the clan a user is in, failing the test when there is none.
func (b *testBundle) clanOf(t *testing.T, name string) *store.Clan {
	t.Helper()
	c, err := b.st.ClanGetByUser(b.ctx, b.userID(t, name))
	if err != nil {
		t.Fatalf("clan of %s: %v", name, err)
	}
	return c
}

func TestClans(t *testing.T) {
	b := setup(t, nil)
	olga, mia, nils, visitor := b.browser(t), b.browser(t), b.browser(t), b.browser(t)
	olga.register("olga")
	mia.register("mia")
	nils.register("nils")

	res := olga.post("/clans", url.Values{"name": {"Kraken"}, "description": {"Deep water"}, "csrf_token": {"-"}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("create: status %d: %s", res.status, res.body)
	}
	clan := b.clanOf(t, "olga")
	clanPath := fmt.Sprintf("/clans/%d", clan.ID)
	page := olga.get(clanPath)
	m := joinKeyPattern.FindStringSubmatch(page.body)
	if m == nil || m[1] != clan.JoinKey || !strings.Contains(page.body, "?key="+clan.JoinKey) {
		t.Fatalf("the owner does not see the join key and invite link")
	}
	if res := visitor.get(clanPath); res.status != 200 || strings.Contains(res.body, clan.JoinKey) {
		t.Fatalf("visitors: status %d, key shown %v", res.status, strings.Contains(res.body, clan.JoinKey))
	}

	// Every refusal leaves the clan's membership and key as they were.
	refusals := []struct {
		name   string
		who    *browser
		path   string
		form   url.Values
		status int
		want   string
	}{
		{"joining with a wrong key", mia, clanPath + "/join", url.Values{"key": {"not-the-key"}}, 403, "join key is not"},
		{"joining with no key", mia, clanPath + "/join", url.Values{}, 403, "join key is not"},
		{"joining a clan that does not exist", mia, "/clans/999999/join", url.Values{"key": {clan.JoinKey}}, 404, "no such clan"},
		{"a name too short", mia, "/clans", url.Values{"name": {"K"}}, 422, "2 to 40 characters"},
		{"a name taken in another letter case", mia, "/clans", url.Values{"name": {"kraken"}}, 409, "already a clan called"},
		{"an outsider replacing the key", mia, clanPath + "/key", url.Values{}, 403, "not a member"},
		{"an outsider leaving", mia, clanPath + "/leave", url.Values{}, 403, "not a member"},
		{"an outsider promoting", mia, clanPath + "/promote", url.Values{"user_id": {fmt.Sprint(b.userID(t, "mia"))}}, 403, "not a member"},
		{"a visitor joining", visitor, clanPath + "/join", url.Values{"key": {clan.JoinKey}}, 303, ""},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			before, members := b.count(t, "clan_members"), b.count(t, "clans")
			c.form.Set("csrf_token", "-")
			if c.who == visitor {
				c.form.Set("csrf_token", "x")
			}
			res := c.who.post(c.path, c.form)
			if c.who == visitor {
				// Visitors have no session: the form token check turns them away.
				if res.status == http.StatusSeeOther && strings.HasPrefix(res.header.Get("Location"), clanPath) {
					t.Fatalf("a visitor joined")
				}
			} else if res.status != c.status || !strings.Contains(res.body, c.want) {
				t.Fatalf("status %d, want %d with %q", res.status, c.status, c.want)
			}
			if b.count(t, "clan_members") != before || b.count(t, "clans") != members {
				t.Fatal("a refusal changed the clans")
			}
			if got, _ := b.st.ClanGetByID(b.ctx, clan.ID); got.JoinKey != clan.JoinKey {
				t.Fatal("a refusal replaced the join key")
			}
		})
	}

	t.Run("the invite link fills in the key, and joining works", func(t *testing.T) {
		res := mia.get(clanPath + "?key=" + clan.JoinKey)
		if !strings.Contains(res.body, `value="`+clan.JoinKey+`"`) {
			t.Fatal("the invite link did not fill in the key")
		}
		res = mia.post(clanPath+"/join", url.Values{"key": {clan.JoinKey}, "csrf_token": {"-"}})
		if res.status != http.StatusSeeOther || b.clanOf(t, "mia").ID != clan.ID {
			t.Fatalf("join: status %d", res.status)
		}
		res = nils.post(clanPath+"/join", url.Values{"key": {clan.JoinKey}, "csrf_token": {"-"}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("join: status %d", res.status)
		}
	})

	t.Run("a member cannot act as an owner", func(t *testing.T) {
		for _, c := range []struct{ path, want string }{
			{clanPath + "/key", "owners can replace the join key"},
			{clanPath + "/promote", "owners can promote members"},
		} {
			res := mia.post(c.path, url.Values{"user_id": {fmt.Sprint(b.userID(t, "mia"))}, "csrf_token": {"-"}})
			if res.status != http.StatusForbidden || !strings.Contains(res.body, c.want) {
				t.Fatalf("%s: status %d, want 403 with %q", c.path, res.status, c.want)
			}
		}
		role, _ := b.st.ClanMemberRole(b.ctx, clan.ID, b.userID(t, "mia"))
		if got, _ := b.st.ClanGetByID(b.ctx, clan.ID); got.JoinKey != clan.JoinKey || role != "member" {
			t.Fatalf("a member changed the key or promoted herself (role %s)", role)
		}
	})

	t.Run("a second clan is refused while in one", func(t *testing.T) {
		res := mia.post("/clans", url.Values{"name": {"Leviathan"}, "csrf_token": {"-"}})
		if res.status != http.StatusConflict || !strings.Contains(res.body, "already in the clan Kraken") {
			t.Fatalf("status %d", res.status)
		}
	})

	t.Run("the owner replaces the key: the old link stops working", func(t *testing.T) {
		res := olga.post(clanPath+"/key", url.Values{"csrf_token": {"-"}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("new key: status %d", res.status)
		}
		if got, _ := b.st.ClanGetByID(b.ctx, clan.ID); got.JoinKey == clan.JoinKey {
			t.Fatal("the key is unchanged")
		}
		res = nils.post(clanPath+"/leave", url.Values{"csrf_token": {"-"}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("leave: status %d", res.status)
		}
		res = nils.post(clanPath+"/join", url.Values{"key": {clan.JoinKey}, "csrf_token": {"-"}})
		if res.status != http.StatusForbidden {
			t.Fatalf("joining with the old key: status %d", res.status)
		}
	})

	t.Run("the last owner leaves: the longest-standing member takes over", func(t *testing.T) {
		res := olga.post(clanPath+"/leave", url.Values{"csrf_token": {"-"}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("leave: status %d", res.status)
		}
		if role, err := b.st.ClanMemberRole(b.ctx, clan.ID, b.userID(t, "mia")); err != nil || role != "owner" {
			t.Fatalf("mia's role %q, %v", role, err)
		}
		mia.post(clanPath+"/leave", url.Values{"csrf_token": {"-"}})
		if _, err := b.st.ClanGetByID(b.ctx, clan.ID); err == nil {
			t.Fatal("an empty clan was kept")
		}
	})
}
