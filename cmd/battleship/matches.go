package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/broadside/broadside/internal/client"
)

const matchesUsage = `Usage: battleship matches [--bot NAME|ID] [--result won|lost|drawn]
                          [--kind ranked|challenge|battle|duel] [--since DATE] [--limit N] [--json]

Lists your matches, newest first: those of all your bots, or of one.

  --bot NAME|ID    one bot: one of yours by name, or any bot by id
  --result R       won, lost or drawn (the result of your bot's seat)
  --kind K         ranked (ladder games), challenge, battle or duel
  --since DATE     matches created on or after DATE (2026-11-22, or 2026-11-22T20:00:00Z)
  --limit N        at most N matches (default 50; 0 for all)
  --json           the matches as a JSON array, as GET /api/matches gives them
`

func matchesCommand(ctx context.Context, e clientEnv, args []string) int {
	fl := flag.NewFlagSet("matches", flag.ContinueOnError)
	bot := fl.String("bot", "", "")
	result := fl.String("result", "", "")
	kind := fl.String("kind", "", "")
	since := fl.String("since", "", "")
	limit := fl.Int("limit", 50, "")
	asJSON := fl.Bool("json", false, "")
	rest, code, done := e.parseFlags(fl, args, matchesUsage)
	if done {
		return code
	}
	if len(rest) > 0 || *limit < 0 {
		fmt.Fprintf(e.stderr, "battleship matches: takes only options\n\n%s", matchesUsage)
		return exitUsage
	}
	q := url.Values{}
	switch *result {
	case "", "won", "lost", "drawn":
		if *result != "" {
			q.Set("result", *result)
		}
	default:
		return e.fail(exitUsage, "--result is won, lost or drawn")
	}
	switch *kind {
	case "":
	case "ranked":
		q.Set("ranked", "true")
	case "challenge", "battle", "ladder", "placement", "duel":
		q.Set("kind", *kind)
	default:
		return e.fail(exitUsage, "--kind is ranked, challenge, battle, duel, ladder or placement")
	}
	if *since != "" {
		q.Set("since", *since)
	}
	c, code := e.connect()
	if c == nil {
		return code
	}
	me, err := c.Me(ctx)
	if err != nil {
		return e.fail(exitFailed, "%v", err)
	}
	var botID int64
	if *bot != "" {
		if botID, err = findBot(ctx, c, *bot); err != nil {
			return e.fail(exitFailed, "%v", err)
		}
		q.Set("bot", strconv.FormatInt(botID, 10))
	} else {
		q.Set("mine", "true")
	}
	ms, err := c.Matches(ctx, q, *limit, nil)
	if err != nil {
		return e.fail(exitFailed, "%v", err)
	}
	if *asJSON {
		raw := make([]json.RawMessage, len(ms))
		for i, m := range ms {
			raw[i] = m.Raw
		}
		out, err := json.MarshalIndent(raw, "", "  ")
		if err != nil {
			return e.fail(exitFailed, "%v", err)
		}
		fmt.Fprintf(e.stdout, "%s\n", out)
		return exitPlayed
	}
	if len(ms) == 0 {
		fmt.Fprintln(e.stdout, "No matches.")
		return exitPlayed
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MATCH\tCREATED\tGAME\tKIND\tSTATUS\tRESULT\tPLAYERS")
	for _, m := range ms {
		kind := m.Kind
		if m.Ranked {
			kind += " (ranked)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.CreatedAt.Local().Format("2006-01-02 15:04"), m.Game, kind,
			m.Status, yourResult(m, me.Username, botID), players(m))
	}
	_ = tw.Flush()
	return exitPlayed
}

// findBot is the id of the bot named by arg: a number is an id, anything
// else the name of one of the user's bots (letter case aside).
func findBot(ctx context.Context, c *client.Client, arg string) (int64, error) {
	if id, err := strconv.ParseInt(arg, 10, 64); err == nil && id > 0 {
		return id, nil
	}
	bots, err := c.MyBots(ctx)
	if err != nil {
		return 0, err
	}
	var names []string
	for _, b := range bots {
		if strings.EqualFold(b.Name, arg) {
			return b.ID, nil
		}
		names = append(names, b.Name)
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("you have no bot called %q (you have no bots yet)", arg)
	}
	return 0, fmt.Errorf("you have no bot called %q; yours: %s", arg, strings.Join(names, ", "))
}

// yourResult is the outcome of the seat of the bot asked for, else of
// the user's bot.
func yourResult(m client.Match, username string, botID int64) string {
	for _, p := range m.Players {
		if (botID != 0 && p.BotID == botID) || (botID == 0 && p.Owner == username) {
			switch p.Outcome {
			case "win":
				return "won"
			case "loss":
				return "lost"
			case "draw":
				return "drawn"
			}
			return "-"
		}
	}
	return "-"
}

// players writes a match's seats: name, version and points.
func players(m client.Match) string {
	var out []string
	for _, p := range m.Players {
		s := fmt.Sprintf("%s v%d", p.BotName, p.Version)
		if m.Status == "finished" {
			s += fmt.Sprintf(" %d", p.Points)
		}
		out = append(out, s)
	}
	return strings.Join(out, " vs ")
}

const downloadUsage = `Usage: battleship download [--out DIR] MATCH_ID ...
       battleship download [--out DIR] --bot NAME|ID [--last N]

Saves the replays of matches as DIR/match-ID.zip (default: the current
folder), with your bots' own logs in them, two at a time. A replay already
there is skipped, so running it again fetches only what is missing; each is
written to a .part file first and renamed once complete. With --bot, the
last N finished matches of that bot (default 10).

See "battleship view" to watch a downloaded replay.
`

// downloadsAtOnce is how many replays are fetched at once: the portal
// serves a client two at a time.
const downloadsAtOnce = 2

func downloadCommand(ctx context.Context, e clientEnv, args []string) int {
	fl := flag.NewFlagSet("download", flag.ContinueOnError)
	out := fl.String("out", ".", "")
	bot := fl.String("bot", "", "")
	last := fl.Int("last", 10, "")
	rest, code, done := e.parseFlags(fl, args, downloadUsage)
	if done {
		return code
	}
	var ids []int64
	for _, a := range rest {
		id, err := strconv.ParseInt(strings.TrimPrefix(a, "#"), 10, 64)
		if err != nil || id <= 0 {
			return e.fail(exitUsage, "%q is not a match id", a)
		}
		ids = append(ids, id)
	}
	if (len(ids) == 0) == (*bot == "") || *last < 1 {
		fmt.Fprintf(e.stderr, "battleship download: give match ids, or --bot with --last N\n\n%s", downloadUsage)
		return exitUsage
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return e.fail(exitUsage, "%v", err)
	}
	c, code := e.connect()
	if c == nil {
		return code
	}
	if *bot != "" {
		botID, err := findBot(ctx, c, *bot)
		if err != nil {
			return e.fail(exitFailed, "%v", err)
		}
		q := url.Values{"bot": {strconv.FormatInt(botID, 10)}}
		ms, err := c.Matches(ctx, q, *last, func(m client.Match) bool { return m.Status == "finished" })
		if err != nil {
			return e.fail(exitFailed, "%v", err)
		}
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		if len(ids) == 0 {
			fmt.Fprintln(e.stdout, "No finished matches.")
			return exitPlayed
		}
	}
	var mu sync.Mutex // the lines of different downloads stay whole
	failed := 0
	sem := make(chan struct{}, downloadsAtOnce)
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			size, skipped, err := c.DownloadReplay(ctx, id, *out)
			mu.Lock()
			defer mu.Unlock()
			name := client.ReplayFile(id)
			switch {
			case err != nil:
				failed++
				fmt.Fprintf(e.stderr, "battleship: %v\n", err)
			case skipped:
				fmt.Fprintf(e.stdout, "%s: already here, skipped\n", name)
			default:
				fmt.Fprintf(e.stdout, "%s: %d bytes\n", name, size)
			}
		}()
	}
	wg.Wait()
	if failed > 0 {
		fmt.Fprintf(e.stderr, "battleship: %d of %d replays not downloaded; run the command again to fetch them.\n", failed, len(ids))
		return exitFailed
	}
	return exitPlayed
}
