package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// battleRow is every setting of a battle, to tell whether a refused edit
// changed anything.
func (b *testBundle) battleRow(t *testing.T, id int64) string {
	t.Helper()
	var s string
	if err := b.st.DB().QueryRow(b.ctx, `SELECT row(name, format, game, map_size, games_per_pairing, swiss_rounds,
		start_at, entry_deadline, status, results_hidden, seed)::text FROM battles WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// auditDetails lists the details of the audit log's entries for action.
func (b *testBundle) auditDetails(t *testing.T, action string) []string {
	t.Helper()
	rows, err := b.st.DB().Query(b.ctx, `SELECT detail FROM audit_log WHERE action = $1 ORDER BY id`, action)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// editForm is the battle creation form, as the edit form of battle id.
func editForm(form url.Values, id int64) (string, url.Values) {
	return fmt.Sprintf("/battles/%d/edit", id), form
}

// TestBattleEdit: an organiser edits a battle before it starts, sees the
// change on its page, and the edit is audited.
func TestBattleEdit(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	form := battleForm("Spring cup")
	id := createBattle(t, org, form)
	path := fmt.Sprintf("/battles/%d", id)
	var seed int64
	if err := b.st.DB().QueryRow(b.ctx, `SELECT seed FROM battles WHERE id = $1`, id).Scan(&seed); err != nil {
		t.Fatal(err)
	}

	if res := org.get(path); !strings.Contains(res.body, `href="`+path+`/edit"`) {
		t.Errorf("the organiser's battle page has no Edit link")
	}
	res := org.get(path + "/edit")
	for _, want := range []string{`value="Spring cup"`, `value="` + form.Get("start_at") + `"`, `action="` + path + `/edit"`, "Save changes"} {
		if res.status != http.StatusOK || !strings.Contains(res.body, want) {
			t.Errorf("edit form: status %d, lacks %s", res.status, want)
		}
	}

	start := time.Now().UTC().Add(50 * time.Hour).Truncate(time.Minute)
	form.Set("name", "Summer cup")
	form.Set("start_at", start.Format("2006-01-02T15:04"))
	form.Set("csrf_token", "-")
	res = org.post(editForm(form, id))
	if res.status != http.StatusSeeOther || res.header.Get("Location") != path {
		t.Fatalf("edit: status %d to %q: %s", res.status, res.header.Get("Location"), res.body)
	}
	page := org.get(path).body
	if !strings.Contains(page, "<h1>Summer cup</h1>") || !strings.Contains(page, start.Format("2006-01-02 15:04")) {
		t.Errorf("battle page after the edit lacks the new name or start")
	}
	var after int64
	if err := b.st.DB().QueryRow(b.ctx, `SELECT seed FROM battles WHERE id = $1`, id).Scan(&after); err != nil || after != seed {
		t.Errorf("the edit changed the seed from %d to %d (%v)", seed, after, err)
	}
	if got := b.auditDetails(t, "battle.edit"); len(got) != 1 || got[0] != "Summer cup (changed: name, start)" {
		t.Errorf("audit of the edit: %q", got)
	}
}

// TestBattleEditAuthorization: only organisers edit battles; others are
// refused and nothing changes.
func TestBattleEditAuthorization(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	ann := b.browser(t)
	ann.register("ann")
	id := createBattle(t, org, battleForm("Spring cup"))
	before := b.battleRow(t, id)
	path := fmt.Sprintf("/battles/%d", id)

	if res := ann.get(path + "/edit"); res.status != http.StatusForbidden || !strings.Contains(res.body, "Only organisers") {
		t.Errorf("non-organiser GET edit: status %d", res.status)
	}
	form := battleForm("Ann's cup")
	form.Set("csrf_token", ann.token("/battles"))
	if res := ann.post(editForm(form, id)); res.status != http.StatusForbidden || !strings.Contains(res.body, "Only organisers") {
		t.Errorf("non-organiser edit: status %d", res.status)
	}
	if res := ann.get(path); strings.Contains(res.body, path+"/edit") {
		t.Errorf("a non-organiser sees the Edit link")
	}
	// Without the form token the edit is refused before anything else.
	form.Set("csrf_token", "forged")
	if res := org.post(editForm(form, id)); res.status != http.StatusForbidden {
		t.Errorf("organiser edit without a valid token: status %d", res.status)
	}
	if res := b.browser(t).get(path + "/edit"); res.status != http.StatusSeeOther {
		t.Errorf("visitor GET edit: status %d, want a redirect to log in", res.status)
	}
	if after := b.battleRow(t, id); after != before {
		t.Errorf("refused edits changed the battle: %s, was %s", after, before)
	}
	if got := b.auditDetails(t, "battle.edit"); len(got) != 0 {
		t.Errorf("refused edits were audited: %q", got)
	}
}

// TestBattleEditAfterStart: a battle that is running or canceled cannot
// be edited.
func TestBattleEditAfterStart(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	running := createBattle(t, org, battleForm("Running cup"))
	for _, name := range []string{"ann", "ben"} {
		br := b.browser(t)
		br.register(name)
		bot, _ := b.builtBot(t, b.userID(t, name), name+"'s bot")
		if res := battleAct(br, running, "enter", bot); res.status != http.StatusSeeOther {
			t.Fatalf("%s enters: status %d", name, res.status)
		}
	}
	canceled := createBattle(t, org, battleForm("Canceled cup"))
	for id, action := range map[int64]string{running: "start", canceled: "cancel"} {
		if res := battleAct(org, id, action, 0); res.status != http.StatusSeeOther {
			t.Fatalf("%s: status %d: %s", action, res.status, res.body)
		}
	}

	for id, status := range map[int64]string{running: "running", canceled: "canceled"} {
		before := b.battleRow(t, id)
		path := fmt.Sprintf("/battles/%d", id)
		want := "is " + status + "; a battle can only be edited before it starts"
		if res := org.get(path + "/edit"); res.status != http.StatusConflict || !strings.Contains(res.body, want) {
			t.Errorf("GET edit of a %s battle: status %d", status, res.status)
		}
		if res := org.get(path); strings.Contains(res.body, path+"/edit") {
			t.Errorf("a %s battle's page has an Edit link", status)
		}
		form := battleForm("Renamed cup")
		form.Set("csrf_token", org.token("/battles"))
		if res := org.post(editForm(form, id)); res.status != http.StatusConflict || !strings.Contains(res.body, want) {
			t.Errorf("edit of a %s battle: status %d", status, res.status)
		}
		if after := b.battleRow(t, id); after != before {
			t.Errorf("a refused edit changed the %s battle: %s, was %s", status, after, before)
		}
	}
}

// TestBattleEditBadInput: an edit is checked as a creation is; a refused
// edit shows the form again with the message and changes nothing.
func TestBattleEditBadInput(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	id := createBattle(t, org, battleForm("Spring cup"))
	before := b.battleRow(t, id)
	for _, c := range badBattleForms() {
		t.Run(c.name, func(t *testing.T) {
			form := battleForm("Renamed cup")
			form.Set(c.field, c.value)
			res := org.post(editForm(form, id))
			if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, c.want) {
				t.Errorf("status %d, want 422 with %q", res.status, c.want)
			}
			if !strings.Contains(res.body, "Edit battle") || !strings.Contains(res.body, fmt.Sprintf(`action="/battles/%d/edit"`, id)) ||
				(c.field != "name" && !strings.Contains(res.body, `value="Renamed cup"`)) {
				t.Errorf("the refused edit does not show the edit form as typed")
			}
		})
	}
	if after := b.battleRow(t, id); after != before {
		t.Errorf("refused edits changed the battle: %s, was %s", after, before)
	}
}

// TestBattleEditPassedDeadline: a battle whose entries have closed while
// it waits for its start time keeps its deadline through an edit, but no
// time moves into the past.
func TestBattleEditPassedDeadline(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	id := createBattle(t, org, battleForm("Spring cup"))
	now := time.Now().UTC().Truncate(time.Minute)
	deadline, start := now.Add(-2*time.Hour), now.Add(3*time.Hour)
	if _, err := b.st.DB().Exec(b.ctx, `UPDATE battles SET entry_deadline = $2, start_at = $3 WHERE id = $1`,
		id, deadline, start); err != nil {
		t.Fatal(err)
	}
	at := func(t time.Time) string { return t.Format("2006-01-02T15:04") }
	cases := []struct {
		name     string
		deadline time.Time
		start    time.Time
		want     string // empty: saved
	}{
		{"deadline moved within the past", deadline.Add(time.Minute), start, "entry deadline is in the past"},
		{"start moved into the past", deadline, now.Add(-time.Hour), "start time is in the past"},
		{"deadline kept", deadline, start.Add(time.Hour), ""},
		{"entries reopened", now.Add(time.Hour), start, ""},
	}
	for _, c := range cases {
		before := b.battleRow(t, id)
		form := battleForm("Spring cup")
		form.Set("entry_deadline", at(c.deadline))
		form.Set("start_at", at(c.start))
		res := org.post(editForm(form, id))
		switch {
		case c.want == "" && res.status != http.StatusSeeOther:
			t.Errorf("%s: status %d: %s", c.name, res.status, res.body)
		case c.want != "" && (res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, c.want)):
			t.Errorf("%s: status %d, want 422 with %q", c.name, res.status, c.want)
		case c.want != "" && b.battleRow(t, id) != before:
			t.Errorf("%s: the refused edit changed the battle", c.name)
		}
	}
	var got time.Time
	if err := b.st.DB().QueryRow(b.ctx, `SELECT entry_deadline FROM battles WHERE id = $1`, id).Scan(&got); err != nil ||
		!got.Equal(now.Add(time.Hour)) {
		t.Errorf("entry deadline after the edits: %v (%v), want %v", got, err, now.Add(time.Hour))
	}
}

// TestBattleEditGameWithEntries: the game of a battle cannot change while
// bots of the old game are entered; once they are withdrawn it can.
func TestBattleEditGameWithEntries(t *testing.T) {
	b := setup(t, nil)
	org := b.organiser(t)
	ann := b.browser(t)
	ann.register("ann")
	annBot, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	id := createBattle(t, org, battleForm("Spring cup"))
	path := fmt.Sprintf("/battles/%d", id)
	if res := battleAct(ann, id, "enter", annBot); res.status != http.StatusSeeOther {
		t.Fatalf("enter: status %d", res.status)
	}
	before := b.battleRow(t, id)
	form := battleForm("Spring cup")
	form.Set("game", "brainjar")
	res := org.post(editForm(form, id))
	if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "1 bot(s) entered to play entelect") ||
		!strings.Contains(res.body, "withdrawn") {
		t.Errorf("game change with an entry: status %d", res.status)
	}
	if after := b.battleRow(t, id); after != before || b.count(t, "battle_entries") != 1 {
		t.Errorf("the refused game change changed the battle or its entries: %s, was %s", after, before)
	}
	// Other settings still change with entries in.
	form = battleForm("Spring cup")
	form.Set("games_per_pairing", "3")
	if res := org.post(editForm(form, id)); res.status != http.StatusSeeOther || b.count(t, "battle_entries") != 1 {
		t.Errorf("edit with an entry: status %d: %s", res.status, res.body)
	}

	if res := battleAct(ann, id, "withdraw", annBot); res.status != http.StatusSeeOther {
		t.Fatalf("withdraw: status %d", res.status)
	}
	form = battleForm("Spring cup")
	form.Set("game", "brainjar")
	if res := org.post(editForm(form, id)); res.status != http.StatusSeeOther {
		t.Errorf("game change without entries: status %d: %s", res.status, res.body)
	}
	if res := org.get(path); !strings.Contains(res.body, "brainjar") {
		t.Errorf("battle page does not show the new game")
	}
}
