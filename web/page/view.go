// Package page holds the portal's templ components: one file per page and
// a shared layout. Each page takes one view struct; components never query.
package page

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/board"
)

// Base is what the shared layout needs on every page.
type Base struct {
	Title string
	// User is the signed-in username, empty for visitors.
	User   string
	UserID int64
	// Organiser is set for organisers: the navigation links the admin console.
	Organiser bool
	// CSRF is the token every form posts back.
	CSRF string
	// Refresh, when positive, reloads the page after that many seconds
	// (while a build or a match is under way); it works without scripts.
	Refresh int
	// RefreshNoScript limits Refresh to browsers without scripts: the
	// page's script follows the match itself.
	RefreshNoScript bool
}

// ErrorView is an error page.
type ErrorView struct {
	Base
	Status  int
	Message string
}

// AuthView is the register or log-in form.
type AuthView struct {
	Base
	Username string
	Email    string
	Next     string
	Error    string
}

// HomeView is the front page.
type HomeView struct {
	Base
	// Games are the hosted games, each with its getting started page;
	// Game is the main one, whose top bots are shown.
	Games   []PlayGame
	Game    string
	Top     []store.LeaderboardRow
	Matches []store.MatchRow
	// Playing are the matches being played now.
	Playing []store.MatchRow
}

// LeaderboardView is one page of a game's leaderboard.
type LeaderboardView struct {
	Base
	Game  string
	Games []string
	Rows  []store.LeaderboardRow
	// Table, when set, is the table of Rows already drawn
	// (RenderLeaderboardTable), as the portal keeps it for every visitor
	// of a cached page.
	Table string
	Pager Pager
	// Queue is the ladder's queue depth; nil when it could not be read.
	Queue *competition.LadderQueue
	// Playing are the game's matches being played now.
	Playing []store.MatchRow
}

// RenderLeaderboardTable draws the leaderboard table of rows, for
// LeaderboardView.Table.
func RenderLeaderboardTable(ctx context.Context, rows []store.LeaderboardRow) (string, error) {
	var b strings.Builder
	if err := leaderboardTable(rows).Render(ctx, &b); err != nil {
		return "", fmt.Errorf("draw the leaderboard: %w", err)
	}
	return b.String(), nil
}

// RatingEventsView is a game's rating events of one UTC day.
type RatingEventsView struct {
	Base
	Game   string
	Games  []string
	Day    time.Time
	Events []store.RatingEventRow
}

// DayURL links the page of the day d days from this one.
func (v RatingEventsView) DayURL(d int) string {
	return "/ratings/events?game=" + v.Game + "&day=" + v.Day.AddDate(0, 0, d).Format(time.DateOnly)
}

// CSVURL links this page's events as CSV.
func (v RatingEventsView) CSVURL() string {
	return "/ratings/events.csv?game=" + v.Game + "&day=" + v.Day.Format(time.DateOnly)
}

// Pager links the pages of a long list.
type Pager struct {
	Page    int
	HasPrev bool
	HasNext bool
	// Query is prefixed to the page parameter ("game=entelect&").
	Query string
	// NextBefore and PrevAfter, when set, page by id instead (a list
	// newest first): the next page holds what comes before NextBefore,
	// the previous one what comes after PrevAfter. The page number then
	// only labels the page.
	NextBefore, PrevAfter int64
}

// PrevURL is the link to the previous page; from the second page, the
// first, newest one.
func (p Pager) PrevURL() string {
	prev := max(p.Page-1, 1)
	u := "?" + p.Query + "page=" + strconv.Itoa(prev)
	if p.PrevAfter != 0 && prev > 1 {
		u += "&after=" + strconv.FormatInt(p.PrevAfter, 10)
	}
	return u
}

// NextURL is the link to the next page.
func (p Pager) NextURL() string {
	u := "?" + p.Query + "page=" + strconv.Itoa(p.Page+1)
	if p.NextBefore != 0 {
		u += "&before=" + strconv.FormatInt(p.NextBefore, 10)
	}
	return u
}

// UploadView is the bot upload form.
type UploadView struct {
	Base
	Name     string
	MaxBytes int64
	Error    string
	// Games are the games to choose from; Game is the one chosen (its
	// text is shown, and a zip for another game is refused), empty when
	// the zip's manifest decides.
	Games []PlayGame
	Game  string
	// Bots are the uploader's bots (of the chosen game) a version may go
	// to; BotID is the one chosen, zero for a new bot.
	Bots  []store.BotOwnedRow
	BotID int64
}

// Chosen is the chosen game, if any.
func (v UploadView) Chosen() (PlayGame, bool) {
	for _, g := range v.Games {
		if g.Game == v.Game {
			return g, true
		}
	}
	return PlayGame{}, false
}

// BotView is a bot's page.
type BotView struct {
	Base
	// Ladder says when the bot's next ladder game comes.
	Ladder   *competition.BotLadder
	Bot      *store.BotDetail
	Versions []store.BotVersionRow
	// History is the bot's latest matches with their rating changes, and
	// Chart its rating over time.
	History []store.HistoryRow
	Chart   Chart
	// OwnerClan is the clan of the bot's owner, nil when they are in none.
	OwnerClan *store.Clan
	IsOwner   bool
	// MyBots are the viewer's bots of the same game that could challenge this one.
	MyBots []store.BotOwnedRow
	// PlatformFailures are the bot's latest matches the platform failed:
	// not rated, with why.
	PlatformFailures []store.PlatformFailure
	// Duel is the owner's duel form, nil for anyone else.
	Duel   *DuelForm
	Error  string
	Notice string
}

// MatchesView is the match list.
type MatchesView struct {
	Base
	Matches []store.MatchRow
	Pager   Pager
	// Game is the game shown, empty for all; Games are the tabs.
	Game  string
	Games []string
	// Bot is the bot filter ("" for none), kept across tabs.
	Bot string
}

// TabURL is the match list of game (all games when empty), with the
// view's bot filter.
func (v MatchesView) TabURL(game string) string {
	if q := v.filters(game); q != "" {
		return "/matches?" + q
	}
	return "/matches"
}

// PagerQuery is what the pager's links keep: the view's filters.
func (v MatchesView) PagerQuery() string {
	if q := v.filters(v.Game); q != "" {
		return q + "&"
	}
	return ""
}

func (v MatchesView) filters(game string) string {
	q := url.Values{}
	if game != "" {
		q.Set("game", game)
	}
	if v.Bot != "" {
		q.Set("bot", v.Bot)
	}
	return q.Encode()
}

// MatchView is a match's page with its replay viewer.
type MatchView struct {
	Base
	Match *store.MatchRow
	// Ratings are the rating changes of a ranked match (for a half of a
	// pair, the pair's), empty until it is rated.
	Ratings []store.RatingEventRow
	// Pair are the ids of both halves when the match is one, in order.
	Pair []int64
	// Viewer is the replay at the round asked for, nil when the match has
	// no replay to show yet.
	Viewer *Viewer
}

// Viewer is a replay viewer at one step.
type Viewer struct {
	Frame *board.Frame
	Chart board.Chart
	Nav   board.Nav
}

// AccountView is the account page with its API tokens.
type AccountView struct {
	Base
	Tokens []store.APIToken
	Bots   []store.BotOwnedRow
	// NewToken is shown once, right after it is made.
	NewToken string
	Error    string
	// Notify is the notification settings.
	Notify NotifyView
}

// NotifyView is the account page's notification settings.
type NotifyView struct {
	// EmailOn is set when the platform sends e-mail at all.
	EmailOn bool
	// Email is the user's address for notifications; nil when none.
	Email      *store.NotifyEmail
	Webhooks   []store.Webhook
	Deliveries []store.WebhookDelivery
	// Types are the event types to choose from, with their titles.
	Types []EventType
	// NewSecret is a new hook's signing secret, shown once, with
	// NewSecretHook its hook's id.
	NewSecret     string
	NewSecretHook int64
	// Notice confirms what was just done; Error says why it was not.
	Notice string
	Error  string
}

// EventType is an event type to choose in settings.
type EventType struct {
	Name  string
	Title string
}

// NotifyDoneView is the page after a verification or unsubscribe link.
type NotifyDoneView struct {
	Base
	Heading string
	Message string
	// Action, when set, is the address a confirmation form posts to.
	Action string
}

// points prints a score with a true minus sign (U+2212): a hyphen beside
// a dash or a number reads as punctuation.
func points[T ~int | ~int64](n T) string {
	if n < 0 {
		return "−" + itoa(-n)
	}
	return itoa(n)
}

// scores joins two scores the same way on every page: "8 to −13".
func scores[T ~int | ~int64](a, b T) string { return points(a) + " to " + points(b) }

// record states a bot's ranked games with every outcome: wins, draws and
// losses add up to the games, since each match gives each bot one of them.
func record(games, wins, draws, losses int) string {
	return count(games, "game", "games") + ": " + count(wins, "win", "wins") + ", " +
		count(draws, "draw", "draws") + ", " + count(losses, "loss", "losses")
}

// count writes n with the noun in the number it takes: "1 win", "3 wins".
func count[T ~int | ~int64](n T, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

func itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

func when(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func at(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

func decimal(f float64) string { return strconv.FormatFloat(f, 'f', 0, 64) }

func botURL(id int64) string { return "/bots/" + itoa(id) }

func matchURL(id int64) string { return "/matches/" + itoa(id) }

// result sums up a match for lists: the winner, a draw, or its status.
func result(m store.MatchRow) string {
	if m.Status != "finished" {
		return m.Status
	}
	for _, p := range m.Players {
		if p.Outcome == "win" {
			return botLabel(p.BotName, p.Owner) + " won"
		}
	}
	return "draw"
}

// matchOver reports whether a match's status is final: before then its
// round count and the players' results are not known.
func matchOver(status string) bool {
	return status == "finished" || status == "failed" || status == "canceled"
}

// ownerState says where a bot stands, for its owner.
func ownerState(b *store.BotDetail) string {
	switch {
	case b.Retired:
		return "Retired: off the ladder and the leaderboard; challenges and battles cannot reach it. Its matches stay."
	case b.Disabled:
		return "Disabled by an organiser: it plays no ladder games, challenges or battles. Ask an organiser to bring it back."
	case b.CurrentVersionID == nil:
		return "No version has built yet: it plays once one does."
	case b.Paused:
		return "Paused: the matchmaker leaves it out of ladder games. It keeps its rating and its place on the leaderboard, and can still be challenged."
	case b.FaultStoppedAt != nil:
		return "Off the ladder for failing: " + b.FaultStopReason + ". Upload a version that fixes it, or put it back on the ladder."
	}
	return "On the ladder: it plays ranked games as the matchmaker pairs it; challenges and battles can reach it."
}

// versionURL is the address of a bot's version number n.
func versionURL(botID int64, n int) string { return botURL(botID) + "/versions/" + itoa(n) }

// playURL is a game's getting started page.
func playURL(game string) string { return "/play/" + game }

// aOrAn is the article a word takes: "an Entelect bot", "a BrainJar bot".
func aOrAn(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
