package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/client"
)

const submitUsage = `Usage: battleship submit [--name NAME] [--game GAME] [--no-wait] [--log] DIR

Zips the bot folder DIR as the portal expects (hidden files, __pycache__,
node_modules and target/ left out), checks the zip as an upload is checked,
uploads it as a new version of the bot and follows its build.

  --name NAME   the bot's name (default: NickName in bot.json); a new name makes a new bot
  --game GAME   refuse the upload unless the bot plays GAME (entelect, brainjar, deepship, hitandsunk)
  --no-wait     return once uploaded, without following the build
  --log         print the build log as it is written

Exit status: 0 the build succeeded (or, with --no-wait, the upload was
taken); 1 the build failed (the end of its log is printed) or the portal
refused the upload; 2 a bad command line, a folder the checks refuse, or
no credentials (see battleship login).
`

// submitMaxBytes is the portal's default upload limit (UPLOAD_MAX_BYTES);
// a portal with another limit says so itself.
const submitMaxBytes = 20 << 20

// logTail is how many lines of a failed build's log are printed.
const logTail = 30

func submitCommand(ctx context.Context, e clientEnv, args []string) int {
	fl := flag.NewFlagSet("submit", flag.ContinueOnError)
	name := fl.String("name", "", "")
	game := fl.String("game", "", "")
	noWait := fl.Bool("no-wait", false, "")
	showLog := fl.Bool("log", false, "")
	rest, code, done := e.parseFlags(fl, args, submitUsage)
	if done {
		return code
	}
	if len(rest) != 1 {
		fmt.Fprintf(e.stderr, "battleship submit: give one bot folder\n\n%s", submitUsage)
		return exitUsage
	}
	dir := rest[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return e.fail(exitUsage, "%s is not a folder", dir)
	}
	zip, err := botzip.Pack(dir)
	if err != nil {
		return e.fail(exitUsage, "%v", err)
	}
	// The portal's own checks, with its messages, before anything is sent.
	limits := botzip.DefaultLimits()
	limits.MaxZipBytes = submitMaxBytes
	insp, err := botupload.Check(zip, *game, botupload.ZipInspector{Limits: limits}, submitMaxBytes, e.rules)
	if err != nil {
		return e.fail(exitUsage, "%s: %v", dir, err)
	}
	botName := strings.TrimSpace(*name)
	if botName == "" {
		botName = strings.TrimSpace(insp.Name)
	}
	if msg := botupload.ValidName(botName); msg != "" {
		return e.fail(exitUsage, "%s: %s", dir, msg)
	}
	c, code := e.connect()
	if c == nil {
		return code
	}
	up, err := c.Upload(ctx, zip, strings.TrimSpace(*name), *game)
	if err != nil {
		return e.fail(exitFailed, "upload: %v", err)
	}
	fmt.Fprintf(e.stdout, "Uploaded %s (%s, %d bytes) as version %d: %s/bots/%d\n",
		botName, insp.Game, len(zip), up.Version, c.Portal(), up.BotID)
	if *noWait {
		return exitPlayed
	}
	var log strings.Builder
	shown := "" // the state last printed: a stream opened again says it again
	say := func(state string) {
		if state != shown {
			shown = state
			fmt.Fprintln(e.stdout, map[string]string{"queued": "Build queued.", "building": "Building."}[state])
		}
	}
	status, err := c.FollowBuild(ctx, up.BotID, up.Version, func(ev client.BuildEvent) {
		switch ev.Name {
		case "status":
			say(ev.Status)
		case "restart":
			log.Reset()
			shown = ""
			say("building")
		case "log":
			log.WriteString(ev.Text)
			if *showLog {
				fmt.Fprint(e.stdout, ev.Text)
			}
		}
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return e.fail(exitFailed, "stopped following the build; it goes on at %s/bots/%d", c.Portal(), up.BotID)
		}
		return e.fail(exitFailed, "%v", err)
	}
	if status == "ok" {
		fmt.Fprintf(e.stdout, "Build ok: version %d of %s plays from now on.\n", up.Version, botName)
		return exitPlayed
	}
	// A build that ended before the stream opened sent no log pieces.
	text := log.String()
	if full, err := c.BuildLog(ctx, up.BotID, up.Version); err == nil {
		text = full
	}
	fmt.Fprintf(e.stderr, "Build %s: version %d of %s does not play. The end of its log:\n%s", status, up.Version, botName, tail(text, logTail))
	fmt.Fprintf(e.stderr, "The whole log: %s/bots/%d/versions/%d/build.log\n", c.Portal(), up.BotID, up.Version)
	return exitFailed
}

// tail is the last n lines of text, ending in a newline.
func tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}
