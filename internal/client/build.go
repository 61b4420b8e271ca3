package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BuildEvent is one event of a build's stream: "status" and "restart"
// carry Status, "log" a piece of the log (Seq, Text), "end" the build's
// final Status.
type BuildEvent struct {
	Name   string
	Status string
	Seq    int
	Text   string
}

// FollowBuild follows the build of a bot's version through its event
// stream, calling on for each event, and returns the build's final status
// ("ok" or "failed"). A stream that breaks is opened again where it left
// off (Last-Event-ID), a few times in a row at most.
func (c *Client) FollowBuild(ctx context.Context, botID int64, number int, on func(BuildEvent)) (string, error) {
	path := fmt.Sprintf("/bots/%d/versions/%d/events", botID, number)
	lastID := -1
	for broken := 0; ; {
		status, got, err := c.buildStream(ctx, path, &lastID, on)
		if status != "" {
			return status, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var refusal *Error
		if errors.As(err, &refusal) && refusal.Status != http.StatusTooManyRequests && refusal.Status < 500 {
			return "", fmt.Errorf("follow the build: %w", err)
		}
		if got {
			broken = 0
		}
		if broken++; broken > 5 {
			return "", fmt.Errorf("follow the build: the stream keeps breaking: %w", err)
		}
		wait := time.Duration(broken) * time.Second
		if refusal != nil && refusal.RetryAfter > 0 {
			wait = min(refusal.RetryAfter, time.Minute)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(wait):
		}
	}
}

// buildStream reads one connection of the stream; it returns the final
// status once "end" came, and whether any event came at all.
func (c *Client) buildStream(ctx context.Context, path string, lastID *int, on func(BuildEvent)) (status string, got bool, err error) {
	h := http.Header{"Accept": {"text/event-stream"}}
	if *lastID >= 0 {
		h.Set("Last-Event-ID", strconv.Itoa(*lastID))
	}
	res, err := c.request(ctx, http.MethodGet, path, nil, h)
	if err != nil {
		return "", false, err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var name, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		case line == "" && name != "":
			ev, err := parseBuildEvent(name, data)
			name, data = "", ""
			if err != nil {
				return "", got, err
			}
			got = true
			switch ev.Name {
			case "log":
				*lastID = ev.Seq
			case "restart":
				*lastID = -1
			}
			on(ev)
			if ev.Name == "end" {
				return ev.Status, true, nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", got, fmt.Errorf("build stream: %w", err)
	}
	return "", got, fmt.Errorf("build stream: %w", io.ErrUnexpectedEOF)
}

func parseBuildEvent(name, data string) (BuildEvent, error) {
	var body struct {
		Status string `json:"status"`
		Seq    int    `json:"seq"`
		Text   string `json:"text"`
	}
	if err := json.Unmarshal([]byte(data), &body); err != nil {
		return BuildEvent{}, fmt.Errorf("build stream: event %s: %w", name, err)
	}
	return BuildEvent{Name: name, Status: body.Status, Seq: body.Seq, Text: body.Text}, nil
}
