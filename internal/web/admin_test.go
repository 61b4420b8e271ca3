package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/broadside/broadside/internal/store"
)

func (b *testBundle) auditActions(t *testing.T) []string {
	t.Helper()
	rows, err := b.st.AuditList(b.ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range rows {
		out = append(out, e.Action)
	}
	return out
}

func (b *testBundle) matchStatus(t *testing.T, id int64) string {
	t.Helper()
	var s string
	if err := b.st.DB().QueryRow(b.ctx, `SELECT status FROM matches WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAdminConsole: only organisers reach /admin; every action is audited
// (issue 4, item 6).
func TestAdminConsole(t *testing.T) {
	b := setup(t, nil)
	org := b.browser(t)
	org.register("olga")
	b.makeOrganiser(t, "olga")
	ann := b.browser(t)
	ann.register("ann")
	annBot, annVersion := b.builtBot(t, b.userID(t, "ann"), "Pyro")
	olgaID := b.userID(t, "olga")
	olgaBot, olgaVersion := b.builtBot(t, olgaID, "Orca")
	finished := b.playedMatch(t, [2][2]int64{{annBot, annVersion}, {olgaBot, olgaVersion}})
	queued, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{
		Game: "entelect", MapSize: 1, Seed: 9, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: annBot, BotVersionID: annVersion}, {BotID: olgaBot, BotVersionID: olgaVersion}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.WorkerBeat(b.ctx, store.WorkerHeartbeat{WorkerID: "host-a:42", Hostname: "host-a", StartedAt: time.Now(), Sandbox: "bwrap"}); err != nil {
		t.Fatal(err)
	}

	// A contestant is refused everything, and nothing changes.
	if res := ann.get("/admin"); res.status != http.StatusForbidden {
		t.Errorf("non-organiser GET /admin: status %d", res.status)
	}
	if res := ann.get("/battles"); strings.Contains(res.body, `href="/admin"`) {
		t.Errorf("a contestant's navigation links the admin console")
	}
	tok := ann.token("/")
	for _, path := range []string{"/admin/bots", fmt.Sprintf("/admin/matches/%d/cancel", queued.ID), "/admin/ratings/recompute"} {
		if res := ann.post(path, url.Values{"id": {fmt.Sprint(annBot)}, "csrf_token": {tok}}); res.status != http.StatusForbidden {
			t.Errorf("non-organiser POST %s: status %d", path, res.status)
		}
	}
	if got := b.auditActions(t); len(got) != 0 || b.matchStatus(t, queued.ID) != "queued" {
		t.Fatalf("refused actions changed things: audit %v, match %s", got, b.matchStatus(t, queued.ID))
	}

	// A bot the ladder stopped for failing is listed with why.
	const why = "5 ranked matches in a row lost by a crash, a time-out or a forfeit; the last, match 3: timed out after 2s"
	if _, err := b.st.DB().Exec(b.ctx, `UPDATE bots SET fault_stopped_at = now(), fault_stop_reason = $2 WHERE id = $1`, annBot, why); err != nil {
		t.Fatal(err)
	}
	res := org.get("/admin")
	for _, want := range []string{"Queue", "host-a:42", "healthy", fmt.Sprintf("#%d", queued.ID),
		"Bots off the ladder for failing", fmt.Sprintf(`href="/bots/%d">Pyro<`, annBot), why} {
		if !strings.Contains(res.body, want) {
			t.Errorf("admin page lacks %q", want)
		}
	}
	tok = org.token("/admin")
	post := func(path string, form url.Values) response {
		form.Set("csrf_token", tok)
		return org.post(path, form)
	}
	steps := []struct {
		name   string
		path   string
		form   url.Values
		status int
		want   string
	}{
		{"requeue a queued match", fmt.Sprintf("/admin/matches/%d/requeue", queued.ID), url.Values{}, http.StatusSeeOther, ""},
		{"requeue an ended match", fmt.Sprintf("/admin/matches/%d/requeue", finished), url.Values{}, http.StatusConflict, "rerun it"},
		{"cancel through the form", "/admin/matches", url.Values{"id": {fmt.Sprint(queued.ID)}, "action": {"cancel"}}, http.StatusSeeOther, ""},
		{"cancel again", fmt.Sprintf("/admin/matches/%d/cancel", queued.ID), url.Values{}, http.StatusConflict, "already ended"},
		{"rerun the finished match", fmt.Sprintf("/admin/matches/%d/rerun", finished), url.Values{}, http.StatusSeeOther, ""},
		{"disable a bot", "/admin/bots", url.Values{"id": {fmt.Sprint(annBot)}, "disable": {"1"}}, http.StatusSeeOther, ""},
		{"disable a bot that is not", "/admin/bots", url.Values{"id": {"999999"}, "disable": {"1"}}, http.StatusNotFound, ""},
		{"recompute ratings", "/admin/ratings/recompute", url.Values{}, http.StatusSeeOther, ""},
	}
	for _, s := range steps {
		res := post(s.path, s.form)
		if res.status != s.status || !strings.Contains(res.body, s.want) {
			t.Errorf("%s: status %d, want %d with %q", s.name, res.status, s.status, s.want)
		}
	}
	if s := b.matchStatus(t, queued.ID); s != "canceled" {
		t.Errorf("canceled match is %s", s)
	}
	ids := b.queue.matchIDs()
	if len(ids) != 2 || ids[0] != queued.ID {
		t.Fatalf("enqueued matches %v, want the requeued %d and the rerun", ids, queued.ID)
	}
	var seed int64
	var ranked bool
	if err := b.st.DB().QueryRow(b.ctx, `SELECT seed, ranked FROM matches WHERE id = $1`, ids[1]).Scan(&seed, &ranked); err != nil || seed != 7 || ranked {
		t.Errorf("rerun match: seed %d ranked %v (%v), want seed 7 unranked", seed, ranked, err)
	}
	bot, err := b.st.BotGetByID(b.ctx, annBot)
	if err != nil || !bot.Disabled {
		t.Errorf("bot not disabled: %v", err)
	}
	got := b.auditActions(t)
	slices.Sort(got)
	want := []string{"bot.disable", "match.cancel", "match.requeue", "match.rerun", "ratings.recompute"}
	if !slices.Equal(got, want) {
		t.Errorf("audit log %v, want %v", got, want)
	}
	if res := org.get("/admin"); !strings.Contains(res.body, "match.rerun") || !strings.Contains(res.body, `href="/admin"`) {
		t.Errorf("admin page does not show the audit log")
	}
}

// TestAdminPeriodicJobs: the console shows each periodic job's last and
// next run, and raises an alarm for one that has not run for three
// intervals (issue 11, item 4).
func TestAdminPeriodicJobs(t *testing.T) {
	b := setup(t, nil)
	org := b.browser(t)
	org.register("olga")
	b.makeOrganiser(t, "olga")

	if res := org.get("/admin"); !strings.Contains(res.body, "No worker has registered the periodic jobs yet") {
		t.Errorf("no periodic jobs: the console does not say so")
	}
	for name, every := range map[string]time.Duration{"ladder_tick": 30 * time.Second, "battle_tick": time.Second} {
		if err := b.st.PeriodicRegister(b.ctx, name, every); err != nil {
			t.Fatal(err)
		}
		if err := b.st.PeriodicStarted(b.ctx, name); err != nil {
			t.Fatal(err)
		}
		if err := b.st.PeriodicFinished(b.ctx, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	res := org.get("/admin")
	if strings.Contains(res.body, "periodic-alarm") || strings.Contains(res.body, `class="overdue"`) {
		t.Errorf("jobs that just ran show as overdue")
	}
	for _, want := range []string{"ladder_tick", "30s", "battle_tick", "on time"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("console lacks %q", want)
		}
	}

	// The battle tick stops: its last run is now ten intervals old.
	if _, err := b.st.DB().Exec(b.ctx, `UPDATE periodic_runs SET last_started_at = now() - interval '10 seconds',
		last_finished_at = now() - interval '10 seconds', updated_at = now() - interval '1 hour' WHERE name = 'battle_tick'`); err != nil {
		t.Fatal(err)
	}
	res = org.get("/admin")
	if !strings.Contains(res.body, "1 periodic job has not run for three intervals") {
		t.Errorf("no alarm for a stopped tick")
	}
	if n := strings.Count(res.body, `class="overdue"`); n != 1 {
		t.Errorf("%d jobs marked overdue, want the battle tick alone", n)
	}
}

// TestAdminRequeueSaysWhatHappened: on the platform's own queue, requeueing
// a match whose job still waits adds nothing and the console says so; once
// that job is gone, requeueing adds a fresh one and says so (issue 15,
// item 4).
func TestAdminRequeueSaysWhatHappened(t *testing.T) {
	b, client := setupRiver(t)
	org := b.browser(t)
	org.register("olga")
	b.makeOrganiser(t, "olga")
	olga := b.userID(t, "olga")
	botA, versionA := b.builtBot(t, olga, "Orca")
	botB, versionB := b.builtBot(t, olga, "Pike")
	var matchID int64
	err := b.st.InTx(b.ctx, func(tx pgx.Tx, st *store.Store) error {
		m, err := st.MatchCreate(b.ctx, store.MatchCreateParams{
			Game: "entelect", MapSize: 1, Seed: 3, Kind: "challenge",
			Players: []store.MatchPlayerParams{{BotID: botA, BotVersionID: versionA}, {BotID: botB, BotVersionID: versionB}},
		})
		if err != nil {
			return err
		}
		matchID = m.ID
		added, err := client.EnqueueMatchTx(b.ctx, tx, m.ID)
		if err == nil && !added {
			t.Error("the first job of a new match was skipped as a duplicate")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	waiting := func() []*rivertype.JobRow {
		t.Helper()
		res, err := client.River().JobList(b.ctx, river.NewJobListParams().Kinds("match").States(rivertype.JobStateAvailable))
		if err != nil {
			t.Fatal(err)
		}
		return res.Jobs
	}
	tok := org.token("/admin")
	requeue := func() string {
		t.Helper()
		res := org.post(fmt.Sprintf("/admin/matches/%d/requeue", matchID), url.Values{"csrf_token": {tok}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("requeue: status %d: %s", res.status, res.body)
		}
		page := org.get(res.header.Get("Location"))
		return page.body
	}

	if body := requeue(); !strings.Contains(body, fmt.Sprintf("Match %d is already waiting in the queue", matchID)) ||
		strings.Contains(body, "is queued again") {
		t.Errorf("requeue of a match whose job waits: the console does not say it is already waiting")
	}
	jobsWaiting := waiting()
	if len(jobsWaiting) != 1 {
		t.Fatalf("%d match jobs wait after a requeue that added none, want 1", len(jobsWaiting))
	}
	if got := b.auditActions(t); slices.Contains(got, "match.requeue") {
		t.Errorf("a requeue that changed nothing was audited: %v", got)
	}

	// The job is lost (canceled here); a requeue now adds a fresh one.
	if _, err := client.River().JobCancel(b.ctx, jobsWaiting[0].ID); err != nil {
		t.Fatal(err)
	}
	if body := requeue(); !strings.Contains(body, fmt.Sprintf("Match %d is queued again", matchID)) {
		t.Errorf("requeue of a match without a job: the console does not say it is queued again")
	}
	if jobs := waiting(); len(jobs) != 1 || jobs[0].ID == jobsWaiting[0].ID {
		t.Errorf("after the requeue %d match jobs wait, want one new one", len(jobs))
	}
	if got := b.auditActions(t); !slices.Contains(got, "match.requeue") {
		t.Errorf("the requeue that added a job was not audited: %v", got)
	}
}
