package page_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/broadside/broadside/docs"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/manual"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/tournament"
	"github.com/broadside/broadside/web/board"
	"github.com/broadside/broadside/web/page"
)

// TestEveryTemplateRenders renders every page and viewer component with
// realistic data (a contestant, an organiser, a visitor; finished, running
// and failed matches; replays of all four games) and fails on a template
// call or expression printed as text: "@name(", "{ " or "}" in the page
// outside its code and preformatted blocks. Every exported component of
// the templates must have a case here.
func TestEveryTemplateRenders(t *testing.T) {
	cases := renderCases(t)
	declared := exportedComponents(t)
	for name := range declared {
		if _, ok := cases[name]; !ok {
			t.Errorf("the component %s has no case in this test: add one", name)
		}
	}
	for name, views := range cases {
		for i, c := range views {
			var out strings.Builder
			if err := c.Render(context.Background(), &out); err != nil {
				t.Fatalf("%s #%d: %v", name, i, err)
			}
			if problem := leftover(out.String()); problem != "" {
				t.Errorf("%s #%d renders template text: %s", name, i, problem)
			}
			if m := runTogether.FindString(verbatim.ReplaceAllString(out.String(), "")); m != "" {
				t.Errorf("%s #%d runs words together: %s", name, i, around(out.String(), m))
			}
			// Code and preformatted text stand as one word here.
			if text := verbatim.ReplaceAllString(out.String(), "code"); spaceBeforeStop.MatchString(text) {
				t.Errorf("%s #%d puts a space before a comma or full stop: %s", name, i, around(text, spaceBeforeStop.FindString(text)))
			}
			if out.Len() < 20 {
				t.Errorf("%s #%d renders almost nothing: %q", name, i, out.String())
			}
		}
	}
}

var (
	templDecl = regexp.MustCompile(`(?m)^templ ([A-Z]\w*)\(`)
	// Where braces belong: code, preformatted text (raw files, logs), scripts.
	verbatim = regexp.MustCompile(`(?s)<(pre|code|script|style)\b.*?</(pre|code|script|style)>`)
	atCall   = regexp.MustCompile(`@[A-Za-z_][\w.]*\(`)
	// A word glued to a link or a name: templ drops the space around a
	// component call on its own line. (An empty element, a colour
	// swatch, stands apart by its margin.)
	// "Glicko-2 , once" or "method ." from a template line break.
	spaceBeforeStop = regexp.MustCompile(`[A-Za-z0-9)]\s+[,.](\s|<)`)
	runTogether     = regexp.MustCompile(`[^>]</(a|span|strong)>[A-Za-z]|[A-Za-z]<(a|span|strong)[ >]`)
)

// exportedComponents lists the exported components the .templ files of
// web/page and web/board declare.
func exportedComponents(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, dir := range []string{".", filepath.Join("..", "board")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.templ"))
		if err != nil || len(files) == 0 {
			t.Fatalf("templates in %s: %v", dir, err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range templDecl.FindAllStringSubmatch(string(src), -1) {
				out[m[1]] = true
			}
		}
	}
	return out
}

// leftover finds template source printed into a page, "" when none.
func leftover(html string) string {
	text := verbatim.ReplaceAllString(html, "")
	if m := atCall.FindString(text); m != "" {
		return "a template call " + around(text, m)
	}
	for _, s := range []string{"{ ", "}"} {
		if strings.Contains(text, s) {
			return "an expression's " + strings.TrimSpace(s) + " " + around(text, s)
		}
	}
	return ""
}

// TestLeftover: the check finds what a template printed as text, as the
// challenge page once printed "Result: @challengeResult(*v.Challenge)",
// and passes braces in code, logs and raw files, and an email address.
func TestLeftover(t *testing.T) {
	for _, tc := range []struct {
		html string
		bad  bool
	}{
		{`<p>Result: @challengeResult(*v.Challenge)</p>`, true},
		{`<p>Hello { v.User }</p>`, true},
		{`<a href="/bots/{ id }">x</a>`, true},
		{`<p>by ann@example.com</p><pre>{"player": 0}</pre><code>{"BotType": "Python3"}</code>`, false},
		{`<script>if (a) { b() }</script><p>fine</p>`, false},
	} {
		if got := leftover(tc.html) != ""; got != tc.bad {
			t.Errorf("leftover(%q) found %v, want %v", tc.html, got, tc.bad)
		}
	}
	for html, glued := range map[string]bool{
		`<span class="owner">(ada)</span>challenged<a href="/bots/2">x</a>`:   true,
		`<span class="owner">(ada)</span> challenged <a href="/bots/2">x</a>`: false,
		`<li><span class="swatch s0"></span>Kraken: 7</li>`:                   false,
	} {
		if got := runTogether.MatchString(html); got != glued {
			t.Errorf("runTogether(%q) = %v, want %v", html, got, glued)
		}
	}
}

func around(text, s string) string {
	i := strings.Index(text, s)
	return "in …" + text[max(0, i-80):min(len(text), i+80)] + "…"
}

func ptr[T any](v T) *T { return &v }

// renderCases are the components with the views they are drawn with.
func renderCases(t *testing.T) map[string][]templ.Component {
	t.Helper()
	now := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	earlier := now.Add(-time.Hour)
	visitor := page.Base{Title: "Visitor", CSRF: "csrf"}
	ann := page.Base{Title: "Ann", User: "ann", UserID: 1, CSRF: "csrf"}
	olga := page.Base{Title: "Olga", User: "olga", UserID: 3, Organiser: true, CSRF: "csrf", Refresh: 5, RefreshNoScript: true}

	players := func(game string) []store.MatchPlayerRow {
		return []store.MatchPlayerRow{
			{Seat: 0, Key: "A", BotID: 10, BotName: "Python3 Starter", OwnerID: 1, Owner: "ann", VersionNumber: 2, Points: 420, ShipsLeft: 1,
				ShotsFired: 46, ShotsLanded: 17, Outcome: "win", Rank: 1, Log: "=== round 1 ===\nrequest: {\"x\":1}\n"},
			{Seat: 1, Key: "B", BotID: 11, BotName: "Python3 Starter", OwnerID: 2, Owner: "house", VersionNumber: 1, Points: -20, Killed: true,
				ShotsFired: 46, ShotsLanded: 16, Outcome: "loss", Rank: 2, Reason: "sunk by Python3 Starter (ann)"},
		}
	}
	finished := store.MatchRow{ID: 7, Game: "entelect", Kind: "ladder", Ranked: true, Status: "finished", Rounds: 47, MapSize: 1, Seed: 42,
		ReplayKey: "replays/7.zip", CreatedAt: earlier, FinishedAt: &now, Players: players("entelect")}
	running := finished
	running.ID, running.Status, running.FinishedAt, running.Rounds, running.ReplayKey = 8, "running", nil, 0, ""
	running.Players = []store.MatchPlayerRow{{Seat: 0, Key: "0", BotID: 12, BotName: "Kraken", Owner: "ann"}, {Seat: 1, Key: "1", BotID: 13, BotName: "Orca", Owner: "bob"}}
	failed := finished
	failed.ID, failed.Status, failed.Error = 9, "failed", "the worker died"
	matches := []store.MatchRow{finished, running, failed}

	rating := store.Rating{Rating: 1503, Deviation: 256, Games: 6, Wins: 2, Losses: 4, LastGameAt: &now}
	rows := []store.LeaderboardRow{{Rank: 1, BotID: 10, BotName: "Python3 Starter", Owner: "ann", Language: "Python3", Rating: rating},
		{Rank: 2, BotID: 11, BotName: "entelect-python3", Owner: "house", Language: "Python3", House: true, Rating: store.Rating{Rating: 1500, Deviation: 350}}}
	queue := &competition.LadderQueue{Waiting: 1, Pending: 2, PerHour: 30}

	var games []page.PlayGame
	for _, g := range []string{"entelect", "brainjar", "deepship", "hitandsunk"} {
		rs, err := rulesets.Registry().Get(g)
		if err != nil {
			t.Fatal(err)
		}
		games = append(games, page.PlayGame{Game: g, Traits: rs.Traits()})
	}
	starters := []store.HouseBot{{ID: 11, Name: "entelect-python3", Language: "Python3", Version: 1}}

	bot := &store.BotDetail{ID: 10, OwnerID: 1, Owner: "ann", Name: "Python3 Starter", Game: "entelect", Language: "Python3",
		CurrentVersionID: ptr[int64](100), CurrentVersion: 2, CreatedAt: earlier, Rating: &rating}
	paused := *bot
	paused.Paused, paused.Rating = true, nil
	stopped := *bot
	stopped.FaultStoppedAt, stopped.FaultStopReason = &now, "5 ranked matches in a row lost by a crash, a time-out or a forfeit"
	retired := *bot
	retired.Disabled, retired.Retired = true, true
	versions := []store.BotVersionRow{
		{ID: 101, Number: 3, BotType: "Python3", SourceSize: 2048, BuildStatus: "building", CreatedAt: now},
		{ID: 100, Number: 2, BotType: "Python3", SourceSize: 2048, BuildStatus: "ok", BuildLog: "python3 -m py_compile bot.py\nok\n", CreatedAt: earlier, BuiltAt: &now},
		{ID: 99, Number: 1, BotType: "Python3", SourceSize: 900, BuildStatus: "failed", BuildLog: "SyntaxError: invalid syntax {\n", CreatedAt: earlier},
	}
	history := []store.HistoryRow{
		{MatchID: 7, Kind: "ladder", Ranked: true, Status: "finished", CreatedAt: earlier, FinishedAt: &now, BotID: 10, BotName: "Python3 Starter", BotOwner: "ann",
			Outcome: "win", Points: 420, OpponentID: 11, OpponentName: "entelect-python3", OpponentOwner: "house", OpponentPoints: -20,
			RatingBefore: ptr(1490.0), RatingAfter: ptr(1503.0)},
		{MatchID: 9, Kind: "challenge", Status: "failed", CreatedAt: earlier, BotID: 10, BotName: "Python3 Starter", OpponentID: 12,
			OpponentName: "Kraken", OpponentOwner: "bob", Others: 2},
	}
	chart := page.RatingChart([]store.RatingPoint{{At: earlier, Rating: 1500, Deviation: 350}, {MatchID: 7, At: now, Rating: 1503, Deviation: 256}})
	ladders := []*competition.BotLadder{
		{State: competition.LadderPlaying, MatchID: 8, MatchRunning: true},
		{State: competition.LadderWaiting, Position: 2, Waiting: 5, ExpectedIn: 3 * time.Minute, PlacementLeft: 3},
		{State: competition.LadderResting, GamesToday: 48, DayLimit: 48, AtDayLimit: true, DayResetIn: 5 * time.Hour},
		{State: competition.LadderResting, New: true, NextTickIn: 20 * time.Second},
		{State: competition.LadderHouse}, {State: competition.LadderPaused}, {State: competition.LadderOff},
		{State: competition.LadderStopped, StopReason: "5 ranked matches in a row lost by a crash, a time-out or a forfeit; the last, match 9: crashed (exit code 1)"},
	}
	mine := []store.BotOwnedRow{{ID: 10, Name: "Python3 Starter", Game: "entelect", Ready: true}}

	challenge := store.Challenge{ID: 5, ChallengerID: 1, ChallengerName: "ann", ChallengerBotID: 10, ChallengerBotName: "Python3 Starter",
		ChallengedBotID: 11, ChallengedBotName: "entelect-python3", ChallengedOwnerID: 2, ChallengedOwner: "house", Status: "accepted",
		MatchID: ptr[int64](7), MatchStatus: "finished", Winner: "Python3 Starter", WinnerBotID: 10, CreatedAt: earlier, RespondedAt: &now}
	pending := challenge
	pending.ID, pending.Status, pending.MatchID, pending.MatchStatus, pending.Winner, pending.WinnerBotID, pending.RespondedAt = 6, "pending", nil, "", "", 0, nil
	draw := challenge
	draw.ID, draw.Winner, draw.WinnerBotID = 7, "", 0

	clan := &store.Clan{ID: 4, Name: "Deep Divers", Description: "We sink ships, ann@example.com.", JoinKey: "k3y", CreatedAt: earlier, Members: 2}
	battle := &store.Battle{ID: 2, Name: "Autumn Cup", Format: "round_robin", Game: "entelect", MapSize: 2, GamesPerPairing: 2,
		StartAt: now, EntryDeadline: earlier, Status: "running", Seed: 9}
	entries := []store.BattleEntry{
		{BattleID: 2, BotID: 10, BotName: "Python3 Starter", UserID: 1, Username: "ann", VersionNumber: ptr(2), SeedPosition: ptr(1), EnteredAt: earlier},
		{BattleID: 2, BotID: 11, BotName: "entelect-python3", UserID: 2, Username: "house", SeedPosition: ptr(2), FinalPosition: ptr(2), EnteredAt: earlier},
	}
	report := &competition.BattleReport{Battle: battle, Entries: entries,
		Games: []store.BattleGame{{ID: 1, BattleID: 2, GameNumber: 1, MatchID: 7, MatchStatus: "finished", BotIDs: []int64{10, 11},
			Points: []int{420, -20}, Outcomes: []string{"win", "loss"}}, {ID: 2, BattleID: 2, GameNumber: 2, MatchID: 8, MatchStatus: "running", BotIDs: []int64{11, 10}}},
		Table: []competition.StandingRow{{Standing: tournament.Standing{Entrant: 0, Played: 1, Wins: 1, Score: 2, Points: 420}, Rank: 1, Entry: entries[0]}},
		Bracket: []competition.BracketRow{{Side: tournament.WinnersSide, Round: 1, Players: [2]*store.BattleEntry{&entries[0], nil},
			Bye: [2]bool{false, true}, Winner: 0, Decided: true, Matches: []int64{7}}}}
	finishedBattle := *battle
	finishedBattle.Status = "finished"
	finishedReport := *report
	finishedReport.Battle = &finishedBattle
	entries[0].FinalPosition = ptr(1)

	man, err := manual.Render(docs.FS)
	if err != nil {
		t.Fatal(err)
	}
	var index []page.Doc
	for _, p := range man.Index {
		index = append(index, page.Doc{Name: p.Name, Title: p.Title})
	}
	var docPages []templ.Component
	for _, p := range man.Pages {
		docPages = append(docPages, page.DocPage(page.DocsView{Base: visitor, Index: index, Doc: page.Doc{Name: p.Name, Title: p.Title, HTML: p.HTML}}))
	}

	viewers := replays(t)
	var matchPages, frames, viewerParts, grids, charts, standalone []templ.Component
	for _, v := range viewers {
		m := finished
		m.Game = v.game
		matchPages = append(matchPages, page.Match(page.MatchView{Base: ann, Match: &m, Viewer: &page.Viewer{Frame: v.frame, Chart: v.chart, Nav: v.nav}}))
		frames = append(frames, board.Body(v.frame))
		viewerParts = append(viewerParts, board.Viewer(v.frame, v.chart, v.nav))
		for k, g := range v.frame.Grids {
			grids = append(grids, board.GridSVG(g, "g"+v.game+string(rune('0'+k))))
		}
		charts = append(charts, board.ScoreChart(v.chart, v.frame.Index))
		standalone = append(standalone, board.Page("Match "+v.game, v.frame, v.chart, v.nav))
	}
	runningPage := page.Match(page.MatchView{Base: visitor, Match: &running})
	failedPage := page.Match(page.MatchView{Base: ann, Match: &failed})
	ratingEvents := []store.RatingEventRow{
		{ID: 1, MatchID: 7, BotID: 10, BotName: "Python3 Starter", Ladder: "entelect", Method: "glicko2",
			Before: store.Rating{Rating: 1500, Deviation: 350}, After: store.Rating{Rating: 1662.3, Deviation: 290.3}, CreatedAt: now},
		{ID: 2, MatchID: 7, BotID: 11, BotName: "entelect-python3", Ladder: "entelect", Method: "glicko2",
			Before: store.Rating{Rating: 1500, Deviation: 350}, After: store.Rating{Rating: 1337.7, Deviation: 290.3}, CreatedAt: now},
	}
	ffaEvents := []store.RatingEventRow{
		{ID: 3, MatchID: 9, BotID: 12, BotName: "Kraken", Ladder: "hitandsunk", Method: "wenglin",
			Before: store.Rating{Rating: 25, Deviation: 8.3}, After: store.Rating{Rating: 27.1, Deviation: 7.9}, CreatedAt: now},
	}
	pairedPage := page.MatchView{Base: ann, Match: &finished, Ratings: ratingEvents, Pair: []int64{7, 8}}
	secondHalf := page.MatchView{Base: ann, Match: &running, Pair: []int64{7, 8}}
	failures := []store.PlatformFailure{{MatchID: 9, Game: "entelect", Kind: "ladder", Ranked: true, Attempts: 5,
		Error: "the worker was lost 5 times", FinishedAt: &now, Bots: []string{"Kraken", "Orca"}}}

	admin := page.AdminView{Base: olga, Queue: []page.QueueLine{{Kind: "ladder", Count: 2}}, QueueTotal: 2,
		Periodic: []page.PeriodicLine{{PeriodicRun: store.PeriodicRun{Name: "ladder_tick", Interval: 30 * time.Second, Runs: 12,
			LastStartedAt: &earlier, LastFinishedAt: &earlier, UpdatedAt: now}, Overdue: true}}, Overdue: 1,
		Workers: []page.WorkerLine{{WorkerHeartbeat: store.WorkerHeartbeat{WorkerID: "w1", Hostname: "box", StartedAt: earlier,
			LastSeenAt: now, Running: 1, Sandbox: "bwrap"}, Healthy: true}},
		Matches: matches, Audit: []store.AuditEntry{{ID: 1, ActorID: ptr[int64](3), ActorName: "olga", Action: "bot.disable",
			TargetType: "bot", TargetID: ptr[int64](10), Detail: "cheating", CreatedAt: now}}, Notice: "Done.", Error: "Refused."}

	code := 500
	notifyFull := page.NotifyView{EmailOn: true, Types: []page.EventType{{Name: "build.finished", Title: "A build finished"}, {Name: "build.failed", Title: "A build failed"}},
		Email: &store.NotifyEmail{Address: "ann@example.org", VerifiedAt: &now, Events: []string{"build.failed"}},
		Webhooks: []store.Webhook{{ID: 3, URL: "https://example.org/hook", Events: []string{"build.finished"}, CreatedAt: earlier},
			{ID: 4, URL: "https://example.org/off", Events: []string{"build.failed"}, DisabledAt: &now, DisabledReason: "Switched off after 10 failed deliveries in a row."}},
		Deliveries: []store.WebhookDelivery{{ID: 9, WebhookID: 3, EventID: 7, EventType: "build.finished", Status: "delivered", Attempts: 2, StatusCode: &code, AttemptedAt: &now},
			{ID: 8, WebhookID: 4, EventID: 6, EventType: "build.failed", Status: "retrying", Attempts: 1, Error: "the endpoint answered 500"}},
		NewSecret: "whsec_abc", NewSecretHook: 3, Notice: "Webhook 3 is saved."}
	return map[string][]templ.Component{
		"Layout":    {page.Layout(visitor), page.Layout(olga)},
		"CSRFField": {page.CSRFField(ann)},
		"ErrorPage": {page.ErrorPage(page.ErrorView{Base: visitor, Status: 404, Message: "There is no page at this address."})},
		"Home":      {page.Home(page.HomeView{Base: visitor, Games: games, Game: "entelect", Top: rows, Matches: matches, Playing: []store.MatchRow{running}})},
		"Register":  {page.Register(page.AuthView{Base: visitor, Username: "ann", Next: "/bots/new?game=deepship", Error: "That username is taken."})},
		"Login":     {page.Login(page.AuthView{Base: visitor, Username: "ann", Next: "/play", Error: "Wrong password."})},
		"Leaderboard": {page.Leaderboard(page.LeaderboardView{Base: visitor, Game: "entelect", Games: []string{"entelect", "brainjar"}, Rows: rows,
			Queue: queue, Playing: []store.MatchRow{running}, Pager: page.Pager{Page: 2, HasPrev: true, HasNext: true, Query: "game=entelect&"}}),
			page.Leaderboard(page.LeaderboardView{Base: visitor, Game: "hitandsunk", Games: []string{"hitandsunk"}})},
		"LadderQueueLine": {page.LadderQueueLine(queue)},
		"BotLadderLine":   components(ladders, page.BotLadderLine),
		"Matches": {page.Matches(page.MatchesView{Base: visitor, Matches: matches, Games: []string{"entelect", "brainjar"}, Game: "brainjar", Bot: "10",
			Pager: page.Pager{Page: 1, HasNext: true}})},
		"Match":         append(matchPages, runningPage, failedPage),
		"ReplayCommand": {page.ReplayCommand(&finished), page.ReplayCommand(&running)},
		"PairNote":      {page.PairNote(pairedPage), page.PairNote(secondHalf)},
		"RatingChanges": {page.RatingChanges(pairedPage), page.RatingChanges(secondHalf),
			page.RatingChanges(page.MatchView{Base: ann, Match: &failed})},
		"PlatformFailures": {page.PlatformFailures(failures, true), page.PlatformFailures(failures, false)},
		"FaultStoppedBots": {page.FaultStoppedBots(nil), page.FaultStoppedBots([]store.FaultStoppedBot{{ID: 10, Name: "Python3 Starter",
			Owner: "ann", Game: "entelect", StoppedAt: now, Reason: "5 ranked matches in a row lost by a crash, a time-out or a forfeit"}})},
		"HowRankingWorks": {page.HowRankingWorks()},
		"RatingEvents": {
			page.RatingEvents(page.RatingEventsView{Base: visitor, Game: "entelect", Games: []string{"entelect", "hitandsunk"}, Day: now, Events: ratingEvents}),
			page.RatingEvents(page.RatingEventsView{Base: visitor, Game: "hitandsunk", Games: []string{"entelect", "hitandsunk"}, Day: now, Events: ffaEvents}),
			page.RatingEvents(page.RatingEventsView{Base: visitor, Game: "brainjar", Day: now}),
		},
		"Bot": {
			page.Bot(page.BotView{Base: ann, Bot: bot, Versions: versions, History: history, Chart: chart, Ladder: ladders[1], IsOwner: true,
				OwnerClan: clan, Notice: "Renamed."}),
			page.Bot(page.BotView{Base: ann, Bot: &paused, Versions: versions[1:], Ladder: ladders[5], IsOwner: true, Error: "You already have a bot called \"x\"."}),
			page.Bot(page.BotView{Base: ann, Bot: &retired, Versions: versions[1:], Ladder: ladders[6], IsOwner: true}),
			page.Bot(page.BotView{Base: page.Base{User: "bob", UserID: 2, CSRF: "c"}, Bot: bot, Versions: versions, History: history,
				Chart: chart, Ladder: ladders[0], MyBots: mine}),
			page.Bot(page.BotView{Base: visitor, Bot: bot, Versions: versions, Ladder: ladders[4]}),
			page.Bot(page.BotView{Base: ann, Bot: &stopped, Versions: versions, Ladder: ladders[7], IsOwner: true}),
		},
		"BotLink":    {page.BotLink(10, "Python3 Starter", "ann"), page.BotLink(11, "entelect-python3", "house")},
		"BotHistory": {page.BotHistory(page.BotHistoryView{Base: visitor, Bot: bot, History: history, Chart: chart, Pager: page.Pager{Page: 1}})},
		"HeadToHead": {page.HeadToHead(page.HeadToHeadView{Base: visitor, A: bot, B: &retired, Summary: &store.HeadToHead{Games: 3, AWins: 2, BWins: 1,
			APoints: 900, BPoints: -30}, Matches: matches}), page.HeadToHead(page.HeadToHeadView{Base: visitor, A: bot, B: bot, Summary: &store.HeadToHead{}})},
		"Upload": {page.Upload(page.UploadView{Base: ann, MaxBytes: 20 << 20, Games: games, Game: "deepship", Bots: mine, BotID: 10, Name: "Nautilus",
			Error: "This zip's bot.json says it plays Entelect, and you chose In Deep Ship."}),
			page.Upload(page.UploadView{Base: ann, MaxBytes: 1 << 20, Games: games})},
		"PlayIndex": {page.PlayIndex(page.PlayView{Base: visitor, Games: games})},
		"Play": {page.Play(page.PlayView{Base: visitor, Games: games, Game: games[0], Starters: starters, MaxBytes: 20 << 20}),
			page.Play(page.PlayView{Base: ann, Games: games, Game: games[2], MaxBytes: 20 << 20})},
		"Docs":    {page.Docs(page.DocsView{Base: visitor, Index: index})},
		"DocPage": docPages,
		"Account": {page.Account(page.AccountView{Base: ann, Tokens: []store.APIToken{{ID: 1, Name: "laptop", CreatedAt: earlier, LastUsedAt: &now}},
			Bots: mine, NewToken: "bs_abc_123", Notify: notifyFull}), page.Account(page.AccountView{Base: ann, Error: "Give the token a name."})},
		"NotifySettings": {page.NotifySettings(ann, notifyFull), page.NotifySettings(ann, page.NotifyView{Types: notifyFull.Types, Error: "That webhook URL cannot be used."}),
			page.NotifySettings(ann, page.NotifyView{EmailOn: true, Types: notifyFull.Types, Email: &store.NotifyEmail{Address: "ann@example.org"},
				Notice: "We sent a confirmation link to ann@example.org."})},
		"NotifyDone": {page.NotifyDone(page.NotifyDoneView{Base: visitor, Heading: "Address confirmed", Message: "Notifications may now go to ann@example.org."}),
			page.NotifyDone(page.NotifyDoneView{Base: visitor, Heading: "Unsubscribe", Message: "Stop every notification e-mail to ann@example.org?",
				Action: "/notifications/unsubscribe/abc"})},
		"Challenges": {page.Challenges(page.ChallengesView{Base: ann, Received: []store.Challenge{pending, draw}, Sent: []store.Challenge{challenge},
			AutoAccept: true, OpenChallenges: true, Organiser: true, Notice: "Sent."}), page.Challenges(page.ChallengesView{Base: ann})},
		"Challenge": {page.Challenge(page.ChallengeView{Base: ann, Challenge: &challenge}), page.Challenge(page.ChallengeView{Base: ann, Challenge: &pending}),
			page.Challenge(page.ChallengeView{Base: page.Base{User: "house", UserID: 2, CSRF: "c"}, Challenge: &pending, Error: "Too many."})},
		"Clans": {page.Clans(page.ClansView{Base: ann, Clans: []store.Clan{*clan}, MyClan: clan}), page.Clans(page.ClansView{Base: visitor, Error: "Name taken."})},
		"Clan": {page.Clan(page.ClanView{Base: ann, Clan: clan, Members: []store.ClanMember{{ClanID: 4, UserID: 1, Username: "ann", Role: "owner", JoinedAt: earlier}},
			Bots: []store.ClanBot{{ID: 10, Name: "Python3 Starter", Game: "entelect", Owner: "ann", Ready: true, Rating: ptr(990.0)}}, History: history,
			MyRole: "owner", InviteURL: "http://x/clans/4?key=k3y", Notice: "Joined."}),
			page.Clan(page.ClanView{Base: visitor, Clan: clan, Key: "k3y", InOtherClan: true})},
		"Battles": {page.Battles(page.BattlesView{Base: olga, Battles: []store.Battle{*battle}, Organiser: true})},
		"BattleForm": {page.BattleForm(page.BattleFormView{Base: olga, Games: []string{"entelect", "hitandsunk"}, Name: "Cup", Format: "swiss",
			Game: "entelect", MapSize: "2", GamesPerPairing: "1", SwissRounds: "3", StartAt: "2026-12-01T10:00", EntryDeadline: "2026-11-30T10:00",
			Hidden: true, Error: "Start after the deadline."}), page.BattleForm(page.BattleFormView{Base: olga, ID: 2, Games: []string{"entelect"}})},
		"BattlePage": {page.BattlePage(page.BattleView{Base: olga, Report: report, Organiser: true, ShowResults: true}),
			page.BattlePage(page.BattleView{Base: ann, Report: &finishedReport, ShowResults: true}),
			page.BattlePage(page.BattleView{Base: ann, Report: &competition.BattleReport{Battle: &store.Battle{ID: 3, Name: "Open", Format: "free_for_all",
				Game: "hitandsunk", Status: "open", StartAt: now, EntryDeadline: now}, Entries: entries}, Open: true, MyBots: mine,
				HouseBots: []store.BotOwnedRow{{ID: 11, Name: "entelect-python3"}}})},
		"Admin":      {page.Admin(admin)},
		"Body":       frames,
		"Viewer":     viewerParts,
		"GridSVG":    grids,
		"ScoreChart": charts,
		"Page":       standalone,
	}
}

func components[T any](vs []T, f func(T) templ.Component) []templ.Component {
	out := make([]templ.Component, len(vs))
	for i, v := range vs {
		out[i] = f(v)
	}
	return out
}

// viewed is one replay at a step, as the match page draws it.
type viewed struct {
	game  string
	frame *board.Frame
	chart board.Chart
	nav   board.Nav
}

// replays opens a replay of each game and draws its last step and a step
// in the middle for the owner of seat A/0, with that seat's log.
func replays(t *testing.T) []viewed {
	t.Helper()
	sources := map[string]string{
		"entelect":   filepath.Join("..", "..", "internal", "game", "entelect", "testdata", "golden", "v1.2.2-mono-small-7x7"),
		"brainjar":   filepath.Join("..", "..", "internal", "web", "testdata", "replays", "brainjar.json"),
		"deepship":   filepath.Join("..", "..", "internal", "web", "testdata", "replays", "deepship.json"),
		"hitandsunk": filepath.Join("..", "..", "internal", "web", "testdata", "replays", "hitandsunk.json"),
	}
	var out []viewed
	for g, src := range sources {
		var rp *board.Replay
		var err error
		if strings.HasSuffix(src, ".json") {
			data, rerr := os.ReadFile(src)
			if rerr != nil {
				t.Fatal(rerr)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "replay.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			rp, err = board.Open(os.DirFS(dir))
		} else {
			rp, err = board.Open(os.DirFS(src))
		}
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		log := game.StepMark("shot 1") + "request 1: {\"cmd\":\"move\"}\n" + game.StepMark("round 1") + "request: 1;0;{x}\n"
		o := board.Options{Names: map[string]string{"A": "Python3 Starter (ann)", "0": "Kraken (ann)"},
			ShowLog: func(k string) bool { return k == "A" || k == "0" }, Logs: map[string]string{"0": log}}
		nav := board.Nav{Page: "/matches/7", Fragments: "/matches/7/rounds/", Events: "/matches/7/events"}
		for _, step := range []int{rp.Count() - 1, rp.Count() / 2, 0} {
			f, err := rp.Frame(step, o)
			if err != nil {
				t.Fatalf("%s step %d: %v", g, step, err)
			}
			out = append(out, viewed{game: g, frame: f, chart: board.ChartOf(rp.Scores(o)), nav: nav})
		}
	}
	return out
}
