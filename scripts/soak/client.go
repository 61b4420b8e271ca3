package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// contestant is one account driven through the portal as a person (forms
// with their CSRF tokens) and as their scripts (the API with a token).
type contestant struct {
	name  string
	base  string
	http  *http.Client
	token string
}

var (
	csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	tokenText = regexp.MustCompile(`\bbs_[A-Za-z0-9_\-]+`)
)

func newContestant(base, name string) *contestant {
	jar, _ := cookiejar.New(nil)
	return &contestant{name: name, base: base, http: &http.Client{
		Jar: jar, Timeout: 30 * time.Second,
		// Redirects are followed: a form's success is the page it leads to.
	}}
}

// page GETs a page and returns its body and status.
func (c *contestant) page(ctx context.Context, path string) (string, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return "", 0, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return string(body), res.StatusCode, err
}

// submit fills a form found on page formPath and posts it to action.
func (c *contestant) submit(ctx context.Context, formPath, action string, values url.Values) (string, int, error) {
	body, status, err := c.page(ctx, formPath)
	if err != nil {
		return "", 0, err
	}
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		return "", status, fmt.Errorf("%s: no form token on the page (status %d)", formPath, status)
	}
	values.Set("csrf_token", m[1])
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+action, strings.NewReader(values.Encode()))
		if err != nil {
			return "", 0, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", c.base)
		res, err := c.http.Do(req)
		if err != nil {
			return "", 0, err
		}
		out, err := io.ReadAll(res.Body)
		res.Body.Close()
		// Registration is rate limited per address, and every contestant
		// here shares one: wait as the portal asks.
		if res.StatusCode == http.StatusTooManyRequests && attempt < 10 {
			wait := 5 * time.Second
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			select {
			case <-ctx.Done():
				return "", 0, ctx.Err()
			case <-time.After(wait):
			}
			continue
		}
		return string(out), res.StatusCode, err
	}
}

// register makes the account and an API token for it.
func (c *contestant) register(ctx context.Context, password string) error {
	body, status, err := c.submit(ctx, "/register", "/register", url.Values{
		"username": {c.name}, "password": {password}, "password2": {password}, "confirm": {password},
	})
	if err != nil {
		return fmt.Errorf("register %s: %w", c.name, err)
	}
	if status != http.StatusOK || !strings.Contains(body, "Log out") {
		return fmt.Errorf("register %s: status %d", c.name, status)
	}
	body, status, err = c.submit(ctx, "/account", "/account/tokens", url.Values{"name": {"soak"}})
	if err != nil {
		return fmt.Errorf("token for %s: %w", c.name, err)
	}
	tok := tokenText.FindString(body)
	if status != http.StatusOK || tok == "" {
		return fmt.Errorf("token for %s: status %d, no token shown", c.name, status)
	}
	c.token = tok
	return nil
}

// api calls the JSON API with the contestant's token.
func (c *contestant) api(ctx context.Context, method, path, contentType string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return res.StatusCode, nil
}

// upload sends a bot zip through the API as a multipart form.
func (c *contestant) upload(ctx context.Context, name string, zip []byte) (botID int64, status int, err error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("name", name)
	fw, _ := mw.CreateFormFile("zip", name+".zip")
	_, _ = fw.Write(zip)
	_ = mw.Close()
	var out struct {
		BotID int64 `json:"bot_id"`
	}
	status, err = c.api(ctx, http.MethodPost, "/api/bots", mw.FormDataContentType(), buf.Bytes(), &out)
	return out.BotID, status, err
}
