package jobs_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// A replay is compared as its files by path: the entries of the zip the
// platform stores, the files of the folder the battleship command writes.
// Besides the replay itself, each bot's log of the match is compared:
// where the rule set leaves it to the caller (all but Entelect, whose
// replay holds each round's log.txt), the command writes it into the
// replay folder as <key>/log.txt and the platform keeps it with the seat
// for its owner; the platform's are put in under the same names.

// storedReplay returns the files of match m's stored replay, with the
// seats' logs under <key>/log.txt unless the rule set writes them itself.
func storedReplay(ctx context.Context, b *blob.Bucket, m *store.MatchRow, traits game.Traits) (map[string]string, error) {
	r, err := blob.Get(ctx, b, m.ReplayKey)
	if err != nil {
		return nil, fmt.Errorf("replay of match %d: %w", m.ID, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("replay of match %d: %w", m.ID, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("replay of match %d: %w", m.ID, err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue // a folder entry
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("replay of match %d: %s: %w", m.ID, f.Name, err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("replay of match %d: %s: %w", m.ID, f.Name, err)
		}
		files[f.Name] = string(body)
	}
	if !traits.WritesBotLogs {
		for _, p := range m.Players {
			files[path.Join(p.Key, "log.txt")] = p.Log
		}
	}
	return files, nil
}

// folderReplay returns the files of a replay folder by their slash paths.
func folderReplay(dir string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replay folder: %w", err)
	}
	return files, nil
}

// replayExemptions are all that may differ between two plays of one match
// with the same seed and bots, and only in logs (log.txt, engine.log):
// each is replaced by a mark in both before they are compared. Replays
// proper (replay.json, state.json, map.txt, …) must be equal byte for
// byte.
var replayExemptions = []struct {
	what string
	re   *regexp.Regexp
	mark string
}{
	{"the time stamp that opens each line of Entelect's logs",
		regexp.MustCompile(`(?m)^\d\d-\d\d-\d{4} \d\d:\d\d:\d\d:\d{3} - `), "<time> - "},
	{"the paths on Entelect's \"Executing process\" line: the bot's folder and its round folder",
		regexp.MustCompile(`(?m)^(<time> - I: \tExecuting process ).*$`), "${1}<command line>"},
	{"Entelect's measured wall and CPU time of a turn",
		regexp.MustCompile(`\d\d:\d\d:\d\d\.\d{7}`), "<duration>"},
	{"the measured time of a call (Hit and Sunk, BrainJar) or of a line since the bot started (In Deep Ship)",
		regexp.MustCompile(`\b(\d+(\.\d+)?(h|m|s|ms|µs|ns))+\b`), "<duration>"},
}

// sunkBy is the one exemption in replays proper: a reason that names the
// ship that sank another (Hit and Sunk) names it as the pages do, the
// bot with its owner, on the worker, and by its manifest's name in a
// local run. A ship sunk by its own fire or a mine is named alike in both.
var sunkBy = regexp.MustCompile(`sunk by [^"\\\n]*`)

// normalize applies the exemptions to a file: every exemption to a log,
// the name in a reason to any file.
func normalize(name, body string) string {
	body = sunkBy.ReplaceAllStringFunc(body, func(s string) string {
		if s == "sunk by its own fire or mine" {
			return s
		}
		return "sunk by <another ship>"
	})
	if base := path.Base(name); base != "log.txt" && base != "engine.log" {
		return body
	}
	for _, x := range replayExemptions {
		body = x.re.ReplaceAllString(body, x.mark)
	}
	return body
}

// diffReplays says how two replays differ: files missing from either, and
// the first differing line of each file that differs.
func diffReplays(a, b map[string]string) string {
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out strings.Builder
	for _, n := range names {
		x, inA := a[n]
		y, inB := b[n]
		switch {
		case !inB:
			fmt.Fprintf(&out, "- %s (only in the first)\n", n)
		case !inA:
			fmt.Fprintf(&out, "+ %s (only in the second)\n", n)
		default:
			if d := firstDifference(normalize(n, x), normalize(n, y)); d != "" {
				fmt.Fprintf(&out, "%s: %s\n", n, d)
			}
		}
	}
	return out.String()
}

// firstDifference shows where x and y first differ, with some text
// around it (a replay.json is one long line); "" when they are equal.
func firstDifference(x, y string) string {
	if x == y {
		return ""
	}
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	return fmt.Sprintf("line %d, byte %d:\n  - …%s…\n  + …%s…", strings.Count(x[:i], "\n")+1, i, around(x, i), around(y, i))
}

// around is the text of s near byte i.
func around(s string, i int) string {
	return s[max(0, i-160):min(len(s), i+160)]
}
