// Package client talks to the portal's HTTP API for the battleship
// command: it keeps the portal's address and an API token, uploads bots,
// follows their builds, lists matches and downloads replays.
package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables that override the stored credentials.
const (
	EnvPortal = "BROADSIDE_PORTAL"
	EnvToken  = "BROADSIDE_TOKEN"
)

// Credentials are the portal to talk to and the token to send.
type Credentials struct {
	Portal string `json:"portal"`
	Token  string `json:"token"`
}

// ErrNoCredentials means neither the file nor the environment names a
// portal and a token.
var ErrNoCredentials = errors.New("not logged in: run `battleship login --portal URL` (or set BROADSIDE_PORTAL and BROADSIDE_TOKEN)")

// CredentialsPath is where login keeps the credentials:
// broadside/credentials.json in the user's configuration folder.
func CredentialsPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	return filepath.Join(dir, "broadside", "credentials.json"), nil
}

// LoadCredentials reads the stored credentials, each field overridden by
// its environment variable when set (getenv is os.Getenv outside tests).
func LoadCredentials(getenv func(string) string) (Credentials, error) {
	var c Credentials
	path, err := CredentialsPath()
	if err != nil {
		return c, err
	}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &c); err != nil {
			return c, fmt.Errorf("credentials %s: %w", path, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return c, fmt.Errorf("credentials: %w", err)
	}
	if v := getenv(EnvPortal); v != "" {
		c.Portal = v
	}
	if v := getenv(EnvToken); v != "" {
		c.Token = v
	}
	c.Portal = strings.TrimRight(strings.TrimSpace(c.Portal), "/")
	c.Token = strings.TrimSpace(c.Token)
	if c.Portal == "" || c.Token == "" {
		return c, ErrNoCredentials
	}
	return c, nil
}

// SaveCredentials writes c readable by the user alone (0600, in a 0700
// folder), replacing the file whole so a crash never leaves half of it.
func SaveCredentials(c Credentials) (string, error) {
	path, err := CredentialsPath()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".credentials-*")
	if err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is left to remove
	// CreateTemp makes the file 0600; Chmod says so for umasks that differ.
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("credentials: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return "", fmt.Errorf("credentials: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	return path, nil
}

// RemoveCredentials deletes the stored credentials; it reports whether
// there were any.
func RemoveCredentials() (bool, error) {
	path, err := CredentialsPath()
	if err != nil {
		return false, err
	}
	err = os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("credentials: %w", err)
	}
	return true, nil
}
