package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/game/rulesets"
)

// TestSubmitLocalChecks: submit refuses what the portal would refuse,
// with the portal's words and exit status 2, before it needs a portal.
func TestSubmitLocalChecks(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("BROADSIDE_PORTAL", "")
	t.Setenv("BROADSIDE_TOKEN", "")
	folder := func(files map[string]string) string {
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	good := map[string]string{"bot.json": `{"BotType": "Python3", "RunFile": "bot.py", "NickName": "Local"}`, "bot.py": "print(1)\n"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no folder", []string{"submit"}, "give one bot folder"},
		{"not a folder", []string{"submit", filepath.Join(t.TempDir(), "missing")}, "is not a folder"},
		{"no manifest", []string{"submit", folder(map[string]string{"bot.py": "x"})}, "There is no bot.json at the root of the zip."},
		{"bad manifest", []string{"submit", folder(map[string]string{"bot.json": `{"BotType": "Cobol"}`})}, "unknown BotType"},
		{"another game", []string{"submit", "--game", "brainjar", folder(good)}, "and you chose BrainJar"},
		{"a name too long", []string{"submit", folder(good), "--name", strings.Repeat("n", 65)}, "at most 64 characters"},
		{"not logged in", []string{"submit", folder(good)}, "not logged in"},
		{"matches not logged in", []string{"matches"}, "not logged in"},
		{"download without ids", []string{"download"}, "give match ids"},
		{"login without a portal", []string{"login"}, "login needs --portal"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), rulesets.Registry(), c.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 saying %q", c.name, code, stderr.String(), c.want)
		}
	}
}
