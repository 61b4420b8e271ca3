// Package botmeta reads bot manifests: the Entelect bot.json (which every
// rule set accepts, with an optional platform field "Game"), In Deep Ship's
// entry.zon, and a bare BrainJar run.sh. A manifest says who wrote the bot,
// which language it is in and which file starts it.
package botmeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// File names of the manifests, in the order Load looks for them.
const (
	BotJSON  = "bot.json"
	EntryZON = "entry.zon"
	RunSh    = "run.sh"
)

// The games a manifest implies when it names none: bot.json's default,
// and the games whose own manifests are entry.zon (In Deep Ship) and a bare
// run.sh (BrainJar). The game registry lists the names a manifest may give.
const (
	DefaultGame  = "entelect"
	EntryZONGame = "deepship"
	RunShGame    = "brainjar"
)

// MaxManifestBytes bounds a manifest file: a real one is a few hundred bytes.
const MaxManifestBytes = 64 << 10

// Field lengths a manifest may have, in characters. The original engine
// took any length, but a name is drawn on every round of every replay:
// a 60,000-character NickName made each round's boards 256 KB. The
// longest fields of the original's sample and reference bots are under 80
// characters (a Maven jar path); these leave real bots plenty of room.
const (
	MaxNameChars  = 100  // NickName, Author, entry.zon's .name
	MaxEmailChars = 254  // the longest address mail allows
	MaxPathChars  = 1024 // RunFile, ProjectLocation, entry.zon's paths
	MaxArgsChars  = 1024 // RunArgs
)

// checkLength refuses a field longer than max characters.
func checkLength(field, value string, max int) error {
	if n := utf8.RuneCountInString(value); n > max {
		return fmt.Errorf("%s is %d characters long; at most %d are allowed", field, n, max)
	}
	return nil
}

// ErrNoManifest is returned by Load when the folder holds none of bot.json,
// entry.zon or run.sh.
var ErrNoManifest = errors.New("no bot.json found (nor entry.zon or run.sh)")

// Manifest is a parsed bot manifest.
type Manifest struct {
	Author   string
	Email    string
	NickName string
	BotType  BotType
	// ProjectLocation is the original's build folder (used by builds only),
	// with forward slashes.
	ProjectLocation string
	// RunFile is the file that starts the bot, relative to the bot folder,
	// with forward slashes (the original's Windows backslashes converted).
	RunFile string
	// RunArgs is appended to the command line of the bot types that take it
	// (see BotType.TakesRunArgs), split like a command line.
	RunArgs string
	// Game is the rule set the bot plays: the platform field "Game" of
	// bot.json (DefaultGame when absent), "deepship" for entry.zon,
	// "brainjar" for a bare run.sh.
	Game string
	// Image and Emote are In Deep Ship's picture and sound, relative to the
	// bot folder; empty for other manifests.
	Image string
	Emote string
	// Source is the file the manifest was read from (BotJSON, EntryZON or
	// RunSh).
	Source string
}

// DisplayName is the name shown for the bot: NickName, else Author, else
// Email, as the original engine chose. Empty strings are skipped (the
// original only skipped absent fields) so that a bot is never nameless.
func (m Manifest) DisplayName() string {
	for _, s := range []string{m.NickName, m.Author, m.Email} {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// Args splits RunArgs into arguments for bot types that take them: on
// white space, with double quotes grouping (as a Windows command line).
func (m Manifest) Args() []string {
	if !m.BotType.TakesRunArgs() {
		return nil
	}
	return SplitArgs(m.RunArgs)
}

// botJSON is the wire form of bot.json. encoding/json matches keys without
// regard to letter case, like the original's reader.
type botJSON struct {
	Author          *string         `json:"Author"`
	Email           *string         `json:"Email"`
	NickName        *string         `json:"NickName"`
	BotType         json.RawMessage `json:"BotType"`
	ProjectLocation *string         `json:"ProjectLocation"`
	RunFile         *string         `json:"RunFile"`
	RunArgs         *string         `json:"RunArgs"`
	Game            *string         `json:"Game"`
}

// Parse reads a bot.json document. A UTF-8 byte-order mark is skipped (the
// original read the file with .NET's encoding detection).
func Parse(data []byte) (Manifest, error) {
	if len(data) > MaxManifestBytes {
		return Manifest{}, fmt.Errorf("bot.json is %d bytes, more than the %d allowed", len(data), MaxManifestBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return Manifest{}, errors.New("bot.json is not UTF-8 text")
	}
	var raw botJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return Manifest{}, fmt.Errorf("bot.json is not valid JSON: %w", err)
	}
	if dec.More() {
		return Manifest{}, errors.New("bot.json is not valid JSON: extra data after the object")
	}
	m := Manifest{
		Author:   deref(raw.Author),
		Email:    deref(raw.Email),
		NickName: deref(raw.NickName),
		RunArgs:  deref(raw.RunArgs),
		Source:   BotJSON,
	}
	for _, f := range []struct {
		name  string
		value string
		max   int
	}{
		{"NickName", m.NickName, MaxNameChars}, {"Author", m.Author, MaxNameChars}, {"Email", m.Email, MaxEmailChars},
		{"RunFile", deref(raw.RunFile), MaxPathChars}, {"ProjectLocation", deref(raw.ProjectLocation), MaxPathChars},
		{"RunArgs", m.RunArgs, MaxArgsChars},
	} {
		if err := checkLength(f.name, f.value, f.max); err != nil {
			return Manifest{}, fmt.Errorf("bot.json: %w", err)
		}
	}
	var err error
	if m.BotType, err = parseRawBotType(raw.BotType); err != nil {
		return Manifest{}, fmt.Errorf("bot.json: %w", err)
	}
	if raw.RunFile == nil || strings.TrimSpace(*raw.RunFile) == "" {
		return Manifest{}, errors.New("bot.json: RunFile is missing: it names the file that starts the bot, for example \"bot.py\"")
	}
	if m.RunFile, err = cleanPath("RunFile", *raw.RunFile); err != nil {
		return Manifest{}, fmt.Errorf("bot.json: %w", err)
	}
	if p := deref(raw.ProjectLocation); strings.TrimSpace(p) != "" {
		if m.ProjectLocation, err = cleanPath("ProjectLocation", p); err != nil {
			return Manifest{}, fmt.Errorf("bot.json: %w", err)
		}
	}
	m.Game = parseGame(raw.Game)
	if strings.ContainsRune(m.RunArgs, 0) {
		return Manifest{}, errors.New("bot.json: RunArgs contains a NUL character")
	}
	return m, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// parseRawBotType reads BotType as a JSON number or string.
func parseRawBotType(raw json.RawMessage) (BotType, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, fmt.Errorf("BotType is missing (one of: %s)", knownNames())
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("BotType: %w", err)
		}
	} else {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return 0, fmt.Errorf("BotType must be a name or an integer, not %s", raw)
		}
		s = n.String()
	}
	return ParseBotType(s)
}

// parseGame reads the platform field "Game": DefaultGame when absent, in
// lower case; CheckGame says whether it is hosted.
func parseGame(g *string) string {
	if g == nil || strings.TrimSpace(*g) == "" {
		return DefaultGame
	}
	return strings.ToLower(strings.TrimSpace(*g))
}

// CheckGame fails when the manifest names a game other than those known
// (the registry's names), saying which are.
func (m Manifest) CheckGame(known []string) error {
	if slices.Contains(known, m.Game) {
		return nil
	}
	return fmt.Errorf("%s: unknown Game %q (known: %s)", m.Source, m.Game, strings.Join(known, ", "))
}

// cleanPath turns a manifest path into a clean slash-separated path inside
// the bot folder. Both backslash forms of the original become a slash.
func cleanPath(field, p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%s contains a NUL character", field)
	}
	p = strings.ReplaceAll(strings.TrimSpace(p), `\\`, "/")
	p = strings.ReplaceAll(p, `\`, "/")
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') || !filepath.IsLocal(filepath.FromSlash(c)) {
		return "", fmt.Errorf("%s %q must be a path inside the bot folder", field, p)
	}
	return c, nil
}

// Load reads the manifest of the bot folder dir: bot.json, else entry.zon,
// else a bare run.sh (a BrainJar bot).
func Load(dir string) (Manifest, error) {
	data, err := readLimited(filepath.Join(dir, BotJSON))
	if err == nil {
		return Parse(data)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("read bot.json: %w", err)
	}
	data, err = readLimited(filepath.Join(dir, EntryZON))
	if err == nil {
		return ParseZON(data)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("read entry.zon: %w", err)
	}
	if st, err := os.Stat(filepath.Join(dir, RunSh)); err == nil && st.Mode().IsRegular() {
		return RunShManifest(), nil
	}
	if st, err := os.Stat(dir); err != nil {
		return Manifest{}, fmt.Errorf("bot folder: %w", err)
	} else if !st.IsDir() {
		return Manifest{}, fmt.Errorf("bot folder %s is not a folder", dir)
	}
	return Manifest{}, ErrNoManifest
}

// RunShManifest is the manifest of a bot folder that has only a BrainJar
// run.sh: an Executable started as ./run.sh, playing brainjar.
func RunShManifest() Manifest {
	return Manifest{BotType: Executable, RunFile: RunSh, Game: RunShGame, Source: RunSh}
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder", filepath.Base(path))
	}
	if st.Size() > MaxManifestBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d allowed", filepath.Base(path), st.Size(), MaxManifestBytes)
	}
	return os.ReadFile(path)
}

// SplitArgs splits a command-line string on white space; double quotes
// group words and a backslash before a quote keeps the quote.
func SplitArgs(s string) []string {
	var (
		out     []string
		cur     strings.Builder
		inQuote bool
		started bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			started = true
			i++
		case c == '"':
			inQuote = !inQuote
			started = true
		case !inQuote && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			if started {
				out = append(out, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if started {
		out = append(out, cur.String())
	}
	return out
}
