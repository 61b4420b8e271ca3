package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game/rulesets"
)

// TestBuildRefusesMissingInterpreter builds bots whose run.sh or #! line
// names interpreters: those the platform has build, the others fail at
// once with the interpreter named in the log.
func TestBuildRefusesMissingInterpreter(t *testing.T) {
	b := New(runner(t), rulesets.Registry())
	brainjar := botmeta.Manifest{BotType: botmeta.Executable, RunFile: "run.sh", Game: "brainjar"}
	script := botmeta.Manifest{BotType: botmeta.Executable, RunFile: "bot.py", Game: "deepship"}
	tests := []struct {
		name  string
		m     botmeta.Manifest
		files map[string]string
		// missing is the program the log must name; empty: the build succeeds.
		missing string
	}{
		{"run.sh calls python", brainjar, map[string]string{"run.sh": "#!/bin/sh\npython bot.py $1\n"}, ""},
		{"run.sh calls node after cd", brainjar, map[string]string{"run.sh": "cd . && exec node bot.js \"$1\" # node\n"}, ""},
		{"run.sh through env bash", brainjar, map[string]string{"run.sh": "#!/usr/bin/env bash\nperl bot.pl $1\n"}, ""},
		{"env python shebang", script, map[string]string{"bot.py": "#!/usr/bin/env python\nprint('x')\n"}, ""},
		{"unknown interpreter in the shebang", script, map[string]string{"bot.py": "#!/usr/bin/env python4\n"}, "python4"},
		{"interpreter path not on the platform", script, map[string]string{"bot.py": "#!/opt/python2.5/bin/python\n"}, "/opt/python2.5/bin/python"},
		{"interpreted RunFile's shebang is not run", botmeta.Manifest{BotType: botmeta.Python3, RunFile: "bot.py", Game: "entelect"},
			map[string]string{"bot.py": "#!/usr/bin/env python4\n"}, ""},
		{"run.sh names a missing interpreter", brainjar, map[string]string{"run.sh": "#!/bin/sh\n/usr/local/bin/nosuch/ruby bot.rb $1\n"}, "/usr/local/bin/nosuch/ruby"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeBot(t, tt.files)
			for name := range tt.files {
				if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			res, err := b.Build(context.Background(), dir, tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if tt.missing == "" {
				if !res.OK {
					t.Fatalf("build failed:\n%s", res.Log)
				}
				return
			}
			if res.OK {
				t.Fatalf("build succeeded for a bot naming %s:\n%s", tt.missing, res.Log)
			}
			if !strings.Contains(res.Log, "this platform has no "+tt.missing) {
				t.Fatalf("log does not name %s:\n%s", tt.missing, res.Log)
			}
		})
	}
}
