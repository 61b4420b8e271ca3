package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testBadBots plays the reference bot against bots that cannot be loaded
// or misbehave: the match must still finish (exit 0) with the reason in the
// summary and in the bad bot's own log.txt.
func testBadBots(t *testing.T, k kit) {
	needTool(t, "python3")
	const py = `{"NickName":"%s","BotType":"Python3","RunFile":"bot.py"}`
	tests := []struct {
		name  string
		files map[string]string
		// reason and log must appear in the summary's reason and in the
		// bot's log.txt of the first round.
		reason, log string
	}{
		{name: "no bot.json", files: map[string]string{"bot.py": "print(1)\n"},
			reason: "no bot.json", log: "no bot.json"},
		{name: "unknown BotType", files: map[string]string{"bot.json": `{"BotType":"Cobol","RunFile":"bot.py"}`, "bot.py": ""},
			reason: `unknown BotType "Cobol"`, log: "Cobol"},
		{name: "RunFile missing", files: map[string]string{"bot.json": strings.Replace(py, "%s", "NoFile", 1)},
			reason: "RunFile bot.py does not exist", log: "does not exist"},
		{name: "writes garbage", files: map[string]string{
			"bot.json": strings.Replace(py, "%s", "Garbage", 1),
			"bot.py": "import os, sys\nprint('\\x00\\xff junk ' * 100)\n" +
				"for f in ('place.txt', 'command.txt'):\n    open(os.path.join(sys.argv[2], f), 'wb').write(b'\\xff\\xfe,,,\\n')\n"},
			reason: "failed ship placements", log: "junk"},
		{name: "crashes", files: map[string]string{
			"bot.json": strings.Replace(py, "%s", "Crash", 1),
			"bot.py":   "import sys\nsys.stderr.write('boom\\n')\nraise SystemExit(3)\n"},
			reason: "failed ship placements", log: "boom"},
		{name: "never exits", files: map[string]string{
			"bot.json": strings.Replace(py, "%s", "Hang", 1),
			"bot.py":   "import time\nwhile True:\n    time.sleep(1)\n"},
			reason: "failed ship placements", log: "killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "bad")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			replay := filepath.Join(t.TempDir(), "replay")
			r := k.play(t, "-b", "entelect-go-reference", dir, "-s", "1", "--seed", "5", "--json", "-l", replay)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			sum := r.summary
			if sum.Winner == nil || *sum.Winner != "A" || len(sum.Players) != 2 {
				t.Fatalf("summary %+v", sum)
			}
			bad := sum.Players[1]
			if !bad.Killed || !strings.Contains(bad.Reason, tt.reason) {
				t.Errorf("bad bot %+v, want its reason to contain %q", bad, tt.reason)
			}
			log, err := os.ReadFile(filepath.Join(replay, "Phase 1 - Round 0", "B", "log.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), tt.log) {
				t.Errorf("B/log.txt does not mention %q:\n%s", tt.log, log)
			}
			checkReplay(t, replay, sum.Rounds)
		})
	}
}
