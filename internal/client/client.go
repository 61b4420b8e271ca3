package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls one portal's API with one token.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// New returns a client of the portal in c, sending c's token.
func New(c Credentials) *Client {
	// No overall timeout: build streams and replays take as long as they
	// take; each call's context bounds it instead.
	return &Client{base: strings.TrimRight(c.Portal, "/"), token: c.Token, http: &http.Client{}}
}

// Portal is the portal's address, for links printed to the user.
func (c *Client) Portal() string { return c.base }

// Error is the portal's refusal: its status and its message.
type Error struct {
	Status int
	Msg    string
	// RetryAfter is the wait the portal asked for with 429 or 503.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("the portal answered %d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("the portal answered %d: %s", e.Status, e.Msg)
}

// IsStatus reports whether err is the portal's answer with that status.
func IsStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// request sends one request with the token and returns the answer when
// its status is 2xx, else the portal's *Error.
func (c *Client) request(ctx context.Context, method, path string, body io.Reader, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("User-Agent", "battleship-client")
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return res, nil
	}
	defer res.Body.Close()
	e := &Error{Status: res.StatusCode}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" {
		var out struct {
			Error string `json:"error"`
		}
		if json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&out) == nil {
			e.Msg = out.Error
		}
	}
	return nil, e
}

// getJSON GETs path and decodes its JSON answer into out.
func (c *Client) getJSON(ctx context.Context, path string, out any) error {
	res, err := c.request(ctx, http.MethodGet, path, nil, http.Header{"Accept": {"application/json"}})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return fmt.Errorf("GET %s: read the answer: %w", path, err)
	}
	return nil
}

// User is the token's user.
type User struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Role     string `json:"role"`
}

// Me checks the token: it is the token's user, or a 401 *Error.
func (c *Client) Me(ctx context.Context) (User, error) {
	var u User
	return u, c.getJSON(ctx, "/api/me", &u)
}

// Uploaded is the version an upload made.
type Uploaded struct {
	BotID       int64  `json:"bot_id"`
	VersionID   int64  `json:"version_id"`
	Version     int    `json:"version"`
	BuildStatus string `json:"build_status"`
}

// Upload sends a bot zip as a new version of the bot called name (empty:
// its manifest's NickName), for game when not empty.
func (c *Client) Upload(ctx context.Context, zip []byte, name, game string) (Uploaded, error) {
	q := url.Values{}
	if name != "" {
		q.Set("name", name)
	}
	if game != "" {
		q.Set("game", game)
	}
	path := "/api/bots"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var up Uploaded
	res, err := c.request(ctx, http.MethodPost, path, bytes.NewReader(zip),
		http.Header{"Content-Type": {"application/zip"}, "Accept": {"application/json"}})
	if err != nil {
		return up, err
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(&up); err != nil {
		return up, fmt.Errorf("upload: read the answer: %w", err)
	}
	return up, nil
}

// Bot is one of the user's bots.
type Bot struct {
	ID       int64     `json:"id"`
	Name     string    `json:"name"`
	Game     string    `json:"game"`
	Versions []Version `json:"versions"`
}

// Version is a bot's version with its build.
type Version struct {
	ID          int64  `json:"id"`
	Number      int    `json:"number"`
	BuildStatus string `json:"build_status"`
	BuildLog    string `json:"build_log"`
}

// MyBots lists the token's user's bots.
func (c *Client) MyBots(ctx context.Context) ([]Bot, error) {
	var out struct {
		Bots []Bot `json:"bots"`
	}
	return out.Bots, c.getJSON(ctx, "/api/me/bots", &out)
}

// BuildLog is the whole log of a finished build (the owner's token sees it).
func (c *Client) BuildLog(ctx context.Context, botID int64, number int) (string, error) {
	res, err := c.request(ctx, http.MethodGet, fmt.Sprintf("/bots/%d/versions/%d/build.log", botID, number), nil, nil)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return "", fmt.Errorf("build log of bot %d version %d: %w", botID, number, err)
	}
	return string(data), nil
}

// Match is a match as GET /api/matches lists it.
type Match struct {
	ID         int64         `json:"id"`
	Game       string        `json:"game"`
	Kind       string        `json:"kind"`
	Ranked     bool          `json:"ranked"`
	Status     string        `json:"status"`
	Rounds     int           `json:"rounds"`
	Players    []MatchPlayer `json:"players"`
	Winner     *int64        `json:"winner"`
	CreatedAt  time.Time     `json:"created_at"`
	FinishedAt *time.Time    `json:"finished_at"`
	// Raw is the match as the portal sent it, for --json.
	Raw json.RawMessage `json:"-"`
}

// MatchPlayer is one seat of a listed match.
type MatchPlayer struct {
	Seat    int    `json:"seat"`
	BotID   int64  `json:"bot_id"`
	BotName string `json:"bot_name"`
	Owner   string `json:"owner"`
	Version int    `json:"version"`
	Points  int    `json:"points"`
	Outcome string `json:"outcome"`
	Rank    int    `json:"rank"`
}

// Matches lists matches newest first with the filters of GET
// /api/matches in q, following its pages until max matches (0: all) for
// which keep (nil: every match) holds.
func (c *Client) Matches(ctx context.Context, q url.Values, max int, keep func(Match) bool) ([]Match, error) {
	path := "/api/matches?" + q.Encode()
	var out []Match
	for path != "" {
		var page struct {
			Next    *string           `json:"next"`
			Matches []json.RawMessage `json:"matches"`
		}
		if err := c.getJSON(ctx, path, &page); err != nil {
			return nil, err
		}
		for _, raw := range page.Matches {
			var m Match
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("matches: %w", err)
			}
			m.Raw = raw
			if keep != nil && !keep(m) {
				continue
			}
			out = append(out, m)
			if max > 0 && len(out) == max {
				return out, nil
			}
		}
		path = ""
		if page.Next != nil {
			path = *page.Next
		}
	}
	return out, nil
}
