package botexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/sandbox"
	"github.com/broadside/broadside/internal/testenv"
)

// botDir writes files (name → content; a name ending in "*" is made
// executable) into a fresh folder.
func botDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, "*") {
			name, mode = strings.TrimSuffix(name, "*"), 0o755
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func need(t *testing.T, program string) string {
	t.Helper()
	p, err := NewRuntimes().Find(program, program)
	testenv.RequireErr(t, program, err)
	return p
}

// TestCommand checks the command line of every BotType against spec §5.
func TestCommand(t *testing.T) {
	rt := NewRuntimes()
	tests := []struct {
		name    string
		program string // runtime the case needs; skipped when missing
		m       botmeta.Manifest
		files   map[string]string
		want    func(dir, prog string) Launch
	}{
		{name: "§5 Python3: python3 \"<RunFile>\" A \"<dir>\" RunArgs", program: "python3",
			m:     botmeta.Manifest{BotType: botmeta.Python3, RunFile: "bot.py", RunArgs: "extra1 extra2"},
			files: map[string]string{"bot.py": ""},
			want: func(dir, p string) Launch {
				return Launch{Command: []string{p, "bot.py"}, TrailingArgs: []string{"extra1", "extra2"}, Language: "Python3"}
			}},
		{name: "§5 Python2", program: "python2",
			m: botmeta.Manifest{BotType: botmeta.Python2, RunFile: "bot.py"}, files: map[string]string{"bot.py": ""},
			want: func(dir, p string) Launch { return Launch{Command: []string{p, "bot.py"}, Language: "Python2"} }},
		{name: "§5 JavaScript: node <RunFile>", program: "node",
			m: botmeta.Manifest{BotType: botmeta.JavaScript, RunFile: "src/bot.js"}, files: map[string]string{"src/bot.js": ""},
			want: func(dir, p string) Launch { return Launch{Command: []string{p, "src/bot.js"}, Language: "JavaScript"} }},
		{name: "§5 Java: java -Xms512m -jar \"<RunFile>\"", program: "java",
			m: botmeta.Manifest{BotType: botmeta.Java, RunFile: "target/bot.jar", RunArgs: "x"}, files: map[string]string{"target/bot.jar": ""},
			want: func(dir, p string) Launch {
				return Launch{Command: []string{p, "-Xms512m", "-jar", "target/bot.jar"}, TrailingArgs: []string{"x"}, Language: "Java"}
			}},
		{name: "§5 Scala runs as a jar", program: "java",
			m: botmeta.Manifest{BotType: botmeta.Scala, RunFile: "b.jar"}, files: map[string]string{"b.jar": ""},
			want: func(dir, p string) Launch {
				return Launch{Command: []string{p, "-Xms512m", "-jar", "b.jar"}, Language: "Scala"}
			}},
		{name: "§5 Golang: <botDir>/<RunFile>, RunArgs not passed",
			m: botmeta.Manifest{BotType: botmeta.Golang, RunFile: "bin/bot", RunArgs: "ignored"}, files: map[string]string{"bin/bot*": ""},
			want: func(dir, _ string) Launch {
				return Launch{Command: []string{filepath.Join(dir, "bin/bot")}, Language: "Golang"}
			}},
		{name: "§5 Rust: <botDir>/<RunFile>, RunArgs not passed",
			m:     botmeta.Manifest{BotType: botmeta.Rust, RunFile: "target/release/bot", RunArgs: "ignored"},
			files: map[string]string{"target/release/bot*": ""},
			want: func(dir, _ string) Launch {
				return Launch{Command: []string{filepath.Join(dir, "target/release/bot")}, Language: "Rust"}
			}},
		{name: "platform: CPlusPlus is a native program with RunArgs",
			m: botmeta.Manifest{BotType: botmeta.CPlusPlus, RunFile: "bot", RunArgs: "a"}, files: map[string]string{"bot*": ""},
			want: func(dir, _ string) Launch {
				return Launch{Command: []string{filepath.Join(dir, "bot")}, TrailingArgs: []string{"a"}, Language: "CPlusPlus"}
			}},
		{name: "platform: Executable with a python shebang calibrates as Python3",
			m:     botmeta.Manifest{BotType: botmeta.Executable, RunFile: "src/main.py"},
			files: map[string]string{"src/main.py*": "#!/usr/bin/env python3\nprint(1)\n"},
			want: func(dir, _ string) Launch {
				return Launch{Command: []string{filepath.Join(dir, "src/main.py")}, Language: "Python3"}
			}},
		{name: "platform: Executable shell script",
			m: botmeta.Manifest{BotType: botmeta.Executable, RunFile: "run.sh"}, files: map[string]string{"run.sh*": "#!/bin/sh\n"},
			want: func(dir, _ string) Launch {
				return Launch{Command: []string{filepath.Join(dir, "run.sh")}, Language: "Executable"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := ""
			if tt.program != "" {
				prog = need(t, tt.program)
			}
			dir := botDir(t, tt.files)
			got, err := Command(rt, tt.m, dir, game.Traits{})
			if err != nil {
				t.Fatalf("Command: %v", err)
			}
			if want := tt.want(dir, prog); !reflect.DeepEqual(got, want) {
				t.Errorf("Command =\n%#v\nwant\n%#v", got, want)
			}
		})
	}
}

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		name      string
		m         botmeta.Manifest
		files     map[string]string
		emptyPATH bool
		wantErr   string
	}{
		{name: "RunFile missing", m: botmeta.Manifest{BotType: botmeta.Python3, RunFile: "bot.py"},
			wantErr: "RunFile bot.py does not exist"},
		{name: "native RunFile missing says build", m: botmeta.Manifest{BotType: botmeta.Golang, RunFile: "bot"},
			wantErr: "build the bot first"},
		{name: "RunFile is a folder", m: botmeta.Manifest{BotType: botmeta.Python3, RunFile: "src"},
			files: map[string]string{"src/x": ""}, wantErr: "is a folder"},
		{name: "native RunFile not executable", m: botmeta.Manifest{BotType: botmeta.CPlusPlus, RunFile: "bot"},
			files: map[string]string{"bot": ""}, wantErr: "chmod +x"},
		{name: "missing runtime names it", m: botmeta.Manifest{BotType: botmeta.Python3, RunFile: "bot.py"},
			files: map[string]string{"bot.py": ""}, emptyPATH: true, wantErr: "Python3 bots need python3, which is not installed"},
		{name: "missing node", m: botmeta.Manifest{BotType: botmeta.JavaScript, RunFile: "bot.js"},
			files: map[string]string{"bot.js": ""}, emptyPATH: true, wantErr: "need node or nodejs"},
		{name: "missing mono", m: botmeta.Manifest{BotType: botmeta.CSharp, RunFile: "bin/Bot.exe"},
			files: map[string]string{"bin/Bot.exe": ""}, emptyPATH: true, wantErr: "CSharp bots need mono"},
		{name: "missing julia", m: botmeta.Manifest{BotType: botmeta.Julia, RunFile: "main.jl"},
			files: map[string]string{"main.jl": ""}, emptyPATH: true, wantErr: "Julia bots need julia"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.emptyPATH {
				t.Setenv("PATH", t.TempDir())
			}
			_, err := Command(NewRuntimes(), tt.m, botDir(t, tt.files), game.Traits{})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Command error = %v, want one containing %q", err, tt.wantErr)
			}
			var missing *MissingRuntimeError
			if tt.emptyPATH != errors.As(err, &missing) {
				t.Errorf("MissingRuntimeError = %v for %v", errors.As(err, &missing), err)
			}
		})
	}
	if _, err := Command(NewRuntimes(), botmeta.Manifest{BotType: botmeta.Python3, RunFile: "b.py"}, "relative", game.Traits{}); err == nil {
		t.Error("a relative bot folder was accepted")
	}
}

// TestCommandRunSh checks that a run.sh without the executable bit starts
// through sh only in a rule set whose engine runs run.sh itself.
func TestCommandRunSh(t *testing.T) {
	m := botmeta.Manifest{BotType: botmeta.Executable, RunFile: botmeta.RunSh}
	tests := []struct {
		name    string
		traits  game.Traits
		wantErr string
	}{
		{name: "engine runs run.sh", traits: game.Traits{RunSh: true}},
		{name: "run.sh is a program", traits: game.Traits{}, wantErr: "chmod +x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := botDir(t, map[string]string{"run.sh": "echo hi\n"})
			l, err := Command(NewRuntimes(), m, dir, tt.traits)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Command = %+v, %v; want an error containing %q", l, err, tt.wantErr)
				}
				return
			}
			want := []string{"/bin/sh", filepath.Join(dir, "run.sh")}
			if err != nil || !slices.Equal(l.Command, want) {
				t.Fatalf("Command = %+v, %v; want command %q", l, err, want)
			}
		})
	}
}

// TestPyenvShim checks that a pyenv shim resolves to the real interpreter,
// which is the one that works inside the sandbox.
func TestPyenvShim(t *testing.T) {
	root := t.TempDir()
	shims := filepath.Join(root, "shims")
	for _, p := range []string{"shims/python3", "shims/python2", "versions/3.9.1/bin/python3", "versions/3.12.0/bin/python3", "versions/2.7.18/bin/python2"} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", shims)
	t.Setenv("PYENV_ROOT", root)
	t.Setenv("PYENV_VERSION", "")
	rt := NewRuntimes()
	got, err := rt.Find("Python3", "python3")
	if want := filepath.Join(root, "versions/3.12.0/bin/python3"); err != nil || got != want {
		t.Fatalf("newest version: Find = %q, %v; want %q", got, err, want)
	}
	if err := os.WriteFile(filepath.Join(root, "version"), []byte("3.9.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = NewRuntimes().Find("Python3", "python3")
	if want := filepath.Join(root, "versions/3.9.1/bin/python3"); err != nil || got != want {
		t.Fatalf("global version: Find = %q, %v; want %q", got, err, want)
	}

	// $PYENV_VERSION overrides the global version, as it does for the
	// shims: the first of its versions that has the program, "system" the
	// program on PATH outside the shims.
	system := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(system, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(system, "python3"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shims+string(os.PathListSeparator)+system)
	for _, tt := range []struct{ versions, program, want string }{
		{"3.12.0", "python3", filepath.Join(root, "versions/3.12.0/bin/python3")},
		{"system:3.9.1", "python3", filepath.Join(system, "python3")},
		{"3.9.1:system", "python3", filepath.Join(root, "versions/3.9.1/bin/python3")},
		// No version named has it: the newest that does.
		{"system:3.9.1", "python2", filepath.Join(root, "versions/2.7.18/bin/python2")},
		{"4.0.0", "python3", filepath.Join(root, "versions/3.12.0/bin/python3")},
	} {
		t.Setenv("PYENV_VERSION", tt.versions)
		if got, err := NewRuntimes().Find("Python", tt.program); err != nil || got != tt.want {
			t.Errorf("PYENV_VERSION=%s: Find(%s) = %q, %v; want %q", tt.versions, tt.program, got, err, tt.want)
		}
	}
}

// TestLaunchRuns starts a real bot of each installed interpreted language
// with the command line Command gives and checks what the bot received.
func TestLaunchRuns(t *testing.T) {
	rt := NewRuntimes()
	runner := sandbox.NewHost(sandbox.HostConfig{})
	tests := []struct {
		program string
		m       botmeta.Manifest
		file    string
		body    string
	}{
		{"python3", botmeta.Manifest{BotType: botmeta.Python3, RunFile: "bot.py", RunArgs: "x y"}, "bot.py",
			"import sys, os\nprint(' '.join(sys.argv[1:]) + '|' + os.getcwd())\n"},
		{"python2", botmeta.Manifest{BotType: botmeta.Python2, RunFile: "bot.py", RunArgs: "x y"}, "bot.py",
			"import sys, os\nprint(' '.join(sys.argv[1:]) + '|' + os.getcwd())\n"},
		{"node", botmeta.Manifest{BotType: botmeta.JavaScript, RunFile: "bot.js", RunArgs: "x y"}, "bot.js",
			"console.log(process.argv.slice(2).join(' ') + '|' + process.cwd())\n"},
	}
	for _, tt := range tests {
		t.Run(tt.program, func(t *testing.T) {
			need(t, tt.program)
			dir := botDir(t, map[string]string{tt.file: tt.body})
			l, err := Command(rt, tt.m, dir, game.Traits{})
			if err != nil {
				t.Fatal(err)
			}
			args := append(append(append([]string{}, l.Command...), "A", "/round/A"), l.TrailingArgs...)
			res, err := runner.Run(context.Background(), sandbox.Cmd{Args: args, Dir: dir, Limits: sandbox.Limits{WallTime: 20 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			want := "A /round/A x y|" + dir
			if got := strings.TrimSpace(string(res.Stdout)); got != want {
				t.Errorf("bot printed %q (stderr %q), want %q", got, res.Stderr, want)
			}
		})
	}
}

func TestShebangLanguage(t *testing.T) {
	tests := map[string]string{
		"#!/usr/bin/env python3\n":     "Python3",
		"#!/usr/bin/python2.7\n":       "Python2",
		"#!/usr/bin/env -S node --x\n": "JavaScript",
		"#!/bin/bash\n":                "Executable",
		"\x7fELF":                      "Executable",
	}
	for body, want := range tests {
		dir := botDir(t, map[string]string{"b": body})
		if got := shebangLanguage(filepath.Join(dir, "b")); got != want {
			t.Errorf("shebangLanguage(%q) = %q, want %q", body, got, want)
		}
	}
}
