package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/broadside/broadside/internal/client"
	"github.com/broadside/broadside/internal/game"
)

// clientCommands are the subcommands that talk to a portal.
var clientCommands = map[string]func(context.Context, clientEnv, []string) int{
	"login":    loginCommand,
	"logout":   logoutCommand,
	"submit":   submitCommand,
	"matches":  matchesCommand,
	"download": downloadCommand,
}

// clientEnv is what a client subcommand reads and writes.
type clientEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// rules are the games bots may play.
	rules *game.Registry
}

// fail prints err and returns code.
func (e clientEnv) fail(code int, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "battleship: "+format+"\n", args...)
	return code
}

// parseFlags parses args with flags before and after the other arguments
// (battleship submit DIR --no-wait) and returns the others. Help prints
// usage and returns done.
func (e clientEnv) parseFlags(fl *flag.FlagSet, args []string, usage string) (rest []string, code int, done bool) {
	fl.SetOutput(io.Discard)
	for {
		err := fl.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, usage)
			return nil, exitPlayed, true
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "battleship %s: %v\n\n%s", fl.Name(), err, usage)
			return nil, exitUsage, true
		}
		if fl.NArg() == 0 {
			return rest, 0, false
		}
		rest = append(rest, fl.Arg(0))
		args = fl.Args()[1:]
	}
}

// connect loads the credentials (exit 2 when there are none) and returns
// a client of the portal.
func (e clientEnv) connect() (*client.Client, int) {
	creds, err := client.LoadCredentials(e.getenv)
	if err != nil {
		return nil, e.fail(exitUsage, "%v", err)
	}
	return client.New(creds), 0
}

const loginUsage = `Usage: battleship login --portal URL

Checks an API token with the portal and keeps the portal's address and the
token in your configuration folder (broadside/credentials.json, readable by
you alone), for submit, matches and download. Make the token on the portal's
account page (/account, "API tokens"). The token is read from BROADSIDE_TOKEN
when set, else asked for at the terminal without showing it (or read as one
line from standard input). BROADSIDE_PORTAL can stand for --portal.
`

func loginCommand(ctx context.Context, e clientEnv, args []string) int {
	fl := flag.NewFlagSet("login", flag.ContinueOnError)
	portal := fl.String("portal", e.getenv(client.EnvPortal), "")
	rest, code, done := e.parseFlags(fl, args, loginUsage)
	if done {
		return code
	}
	if len(rest) > 0 {
		return e.fail(exitUsage, "login takes no arguments, only --portal URL")
	}
	base := strings.TrimRight(strings.TrimSpace(*portal), "/")
	if u, err := url.Parse(base); base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return e.fail(exitUsage, "login needs --portal with the portal's address, such as https://broadside.example.org")
	}
	token := strings.TrimSpace(e.getenv(client.EnvToken))
	if token == "" {
		var err error
		if token, err = readToken(e, base); err != nil {
			return e.fail(exitUsage, "read the token: %v", err)
		}
	}
	if token == "" {
		return e.fail(exitUsage, "no token given: make one on %s/account", base)
	}
	c := client.New(client.Credentials{Portal: base, Token: token})
	me, err := c.Me(ctx)
	if client.IsStatus(err, http.StatusUnauthorized) {
		return e.fail(exitFailed, "%s does not take this token (revoked or mistyped): %v", base, err)
	}
	if err != nil {
		return e.fail(exitFailed, "check the token with %s: %v", base, err)
	}
	path, err := client.SaveCredentials(client.Credentials{Portal: base, Token: token})
	if err != nil {
		return e.fail(exitFailed, "%v", err)
	}
	fmt.Fprintf(e.stdout, "Logged in to %s as %s; the token is kept in %s.\n", base, me.Username, path)
	return exitPlayed
}

// readToken asks for the token at the terminal without echoing it, or
// reads one line from standard input when it is not a terminal.
func readToken(e clientEnv, portal string) (string, error) {
	f, isFile := e.stdin.(*os.File)
	if !isFile || !isTerminal(f) {
		line, err := bufio.NewReader(e.stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		return strings.TrimSpace(line), nil
	}
	fmt.Fprintf(e.stderr, "API token (make one on %s/account): ", portal)
	defer fmt.Fprintln(e.stderr)
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return "", err
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, old) //nolint:errcheck // nothing better to do
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimSpace(line), nil
}

const logoutUsage = `Usage: battleship logout

Removes the credentials that login kept. The token itself stays valid until
you revoke it on the portal's account page.
`

func logoutCommand(_ context.Context, e clientEnv, args []string) int {
	fl := flag.NewFlagSet("logout", flag.ContinueOnError)
	rest, code, done := e.parseFlags(fl, args, logoutUsage)
	if done {
		return code
	}
	if len(rest) > 0 {
		return e.fail(exitUsage, "logout takes no arguments")
	}
	removed, err := client.RemoveCredentials()
	if err != nil {
		return e.fail(exitFailed, "%v", err)
	}
	if removed {
		fmt.Fprintln(e.stdout, "Logged out. The token stays valid until you revoke it on the portal's account page.")
	} else {
		fmt.Fprintln(e.stdout, "Not logged in: there were no credentials to remove.")
	}
	return exitPlayed
}
