package botmeta

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseExamples reads the bot.json of every reference and sample bot of
// the original repository (spec §5, entelect-2017-data/bot-json-examples).
func TestParseExamples(t *testing.T) {
	tests := []struct {
		file    string
		want    Manifest
		wantErr string
	}{
		// §5: BotType as an integer; "bin\\Debug\\X.exe" becomes a slash path.
		{file: "reference-csharp.bot.json", want: Manifest{Author: "John Doe", Email: "john.doe@example.com", NickName: "John",
			BotType: CSharp, RunFile: "bin/Debug/ReferenceBot.exe"}},
		// §5: RunFile must be present (the original's reader calls .Replace on it).
		{file: "reference-java.bot.json", wantErr: "BotType is missing"},
		// §5: CRLF line endings and a tab, BotType as a name.
		{file: "sample-cplusplus.bot.json", want: Manifest{Author: "Mallin Moolman", NickName: "C++ Sample Bot",
			BotType: CPlusPlus, RunFile: "bin/Release/SampleBot.exe"}},
		{file: "sample-csharp.bot.json", want: Manifest{Author: "John Doe", Email: "john.doe@example.com", NickName: "John",
			BotType: CSharp, RunFile: "bin/Release/SampleBot.exe"}},
		// §5: ProjectLocation is kept for builds; Golang as integer 7.
		{file: "sample-golang.bot.json", want: Manifest{Author: "John Go", Email: "john.go@example.com", NickName: "Hugo",
			BotType: Golang, ProjectLocation: "goboat", RunFile: "bin/goboat"}},
		{file: "sample-java.bot.json", want: Manifest{Author: "John Doe", Email: "john.doe@example.com", NickName: "John",
			BotType: Java, RunFile: "target/sample-bot-1.0-SNAPSHOT-jar-with-dependencies.jar"}},
		// §5: RunArgs present but empty.
		{file: "sample-javascript.bot.json", want: Manifest{Author: "Gerrit van Huyssteen", Email: "gerrit@brazenhill.com",
			NickName: "JavaScriptSampleBot", BotType: JavaScript, RunFile: "bot.js"}},
		{file: "sample-julia.bot.json", want: Manifest{Author: "Marius Kruger", Email: "marius.kruger@entelect.co.za",
			NickName: "Julia", BotType: Julia, RunFile: "main.jl"}},
		{file: "sample-python2.bot.json", want: Manifest{Author: "Christian", Email: "csw.reeve@gmail.com", NickName: "sampleBot",
			BotType: Python2, RunFile: "bot.py"}},
		{file: "sample-python3.bot.json", want: Manifest{Author: "Henry", Email: "henry.harya@gmail.com", NickName: "py3Bot",
			BotType: Python3, RunFile: "bot.py"}},
		{file: "sample-rust.bot.json", want: Manifest{Author: "John Doe", Email: "john.doe@example.com", NickName: "Rusty",
			BotType: Rust, RunFile: "target/release/rust_sample_bot.exe"}},
		// The original's Scala sample declares BotType 1 (Java): it runs as a jar.
		{file: "sample-scala.bot.json", want: Manifest{Author: "Scala Doe", Email: "Scala.doe@example.com", NickName: "Scala",
			BotType: Java, RunFile: "target/battleships-1.0-SNAPSHOT-jar-with-dependencies.jar"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tt.want.Game = DefaultGame
			tt.want.Source = BotJSON
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestParseRules(t *testing.T) {
	const base = `"Author":"a","RunFile":"bot.py"`
	tests := []struct {
		name    string
		json    string
		check   func(Manifest) bool
		wantErr string
	}{
		{name: "§5 BotType integer 5 is Python3", json: `{` + base + `,"BotType":5}`,
			check: func(m Manifest) bool { return m.BotType == Python3 }},
		{name: "§5 BotType integer as a string", json: `{` + base + `,"BotType":"10"}`,
			check: func(m Manifest) bool { return m.BotType == Scala }},
		{name: "§5 BotType name in any case", json: `{` + base + `,"BotType":"pYtHoN3"}`,
			check: func(m Manifest) bool { return m.BotType == Python3 }},
		{name: "platform BotType Executable by name", json: `{` + base + `,"BotType":"Executable"}`,
			check: func(m Manifest) bool { return m.BotType == Executable }},
		{name: "platform BotType Executable is not an integer", json: `{` + base + `,"BotType":100}`, wantErr: "unknown BotType 100"},
		{name: "§5 BotType out of range", json: `{` + base + `,"BotType":11}`, wantErr: "unknown BotType 11"},
		{name: "§5 BotType negative", json: `{` + base + `,"BotType":-1}`, wantErr: "unknown BotType -1"},
		{name: "§5 BotType fraction", json: `{` + base + `,"BotType":1.5}`, wantErr: "unknown BotType"},
		{name: "§5 BotType unknown name", json: `{` + base + `,"BotType":"Cobol"}`, wantErr: `unknown BotType "Cobol"`},
		{name: "§5 BotType wrong kind", json: `{` + base + `,"BotType":true}`, wantErr: "name or an integer"},
		{name: "§5 BotType null", json: `{` + base + `,"BotType":null}`, wantErr: "BotType is missing"},
		{name: "§5 keys are matched without case", json: `{"author":"x","runfile":"b.py","bottype":"Python3","NICKNAME":"n"}`,
			check: func(m Manifest) bool { return m.Author == "x" && m.RunFile == "b.py" && m.NickName == "n" }},
		{name: "§5 single backslashes", json: `{` + `"RunFile":"bin\\Release\\bot","BotType":7}`,
			check: func(m Manifest) bool { return m.RunFile == "bin/Release/bot" }},
		{name: "§5 double backslashes", json: `{` + `"RunFile":"bin\\\\Release\\\\bot","BotType":7}`,
			check: func(m Manifest) bool { return m.RunFile == "bin/Release/bot" }},
		{name: "§5 RunFile missing", json: `{"BotType":5}`, wantErr: "RunFile is missing"},
		{name: "§5 RunFile empty", json: `{"BotType":5,"RunFile":"  "}`, wantErr: "RunFile is missing"},
		{name: "RunFile outside the folder", json: `{"BotType":5,"RunFile":"..\\..\\etc\\passwd"}`, wantErr: "inside the bot folder"},
		{name: "RunFile absolute", json: `{"BotType":5,"RunFile":"/usr/bin/python3"}`, wantErr: "inside the bot folder"},
		{name: "RunFile Windows drive", json: `{"BotType":5,"RunFile":"C:\\bot\\bot.exe"}`, wantErr: "inside the bot folder"},
		{name: "§5 ProjectLocation optional", json: `{"BotType":5,"RunFile":"a/./b.py"}`,
			check: func(m Manifest) bool { return m.ProjectLocation == "" && m.RunFile == "a/b.py" }},
		{name: "Game absent is entelect", json: `{` + base + `,"BotType":5}`,
			check: func(m Manifest) bool { return m.Game == "entelect" }},
		{name: "Game given", json: `{` + base + `,"BotType":5,"Game":"HitAndSunk"}`,
			check: func(m Manifest) bool { return m.Game == "hitandsunk" }},
		{name: "Game unknown is read", json: `{` + base + `,"BotType":5,"Game":" Chess "}`,
			check: func(m Manifest) bool { return m.Game == "chess" }},
		{name: "unknown fields are ignored", json: `{` + base + `,"BotType":5,"Extra":[1,2]}`,
			check: func(m Manifest) bool { return m.BotType == Python3 }},
		{name: "BOM is skipped", json: "\xef\xbb\xbf{" + base + `,"BotType":5}`,
			check: func(m Manifest) bool { return m.BotType == Python3 }},
		{name: "not JSON", json: `Author: me`, wantErr: "not valid JSON"},
		{name: "empty file", json: ``, wantErr: "not valid JSON"},
		{name: "JSON array", json: `[1]`, wantErr: "not valid JSON"},
		{name: "trailing garbage", json: `{` + base + `,"BotType":5} {}`, wantErr: "extra data"},
		{name: "not UTF-8", json: "{\"Author\":\"\xff\"}", wantErr: "not UTF-8"},
		{name: "too big", json: `{"Author":"` + strings.Repeat("a", MaxManifestBytes) + `"}`, wantErr: "more than"},
		{name: "a NickName of 100 characters", json: `{` + base + `,"BotType":5,"NickName":"` + strings.Repeat("ß", 100) + `"}`,
			check: func(m Manifest) bool { return m.NickName == strings.Repeat("ß", 100) }},
		{name: "a NickName of 101 characters", json: `{` + base + `,"BotType":5,"NickName":"` + strings.Repeat("ß", 101) + `"}`,
			wantErr: "NickName is 101 characters long; at most 100 are allowed"},
		{name: "a long Author", json: `{"Author":"` + strings.Repeat("a", 101) + `","RunFile":"b.py","BotType":5}`, wantErr: "Author is 101"},
		{name: "a long Email", json: `{` + base + `,"BotType":5,"Email":"` + strings.Repeat("a", 255) + `"}`, wantErr: "Email is 255"},
		{name: "a long RunFile", json: `{"BotType":5,"RunFile":"` + strings.Repeat("a/", 513) + `b"}`, wantErr: "RunFile is 1027"},
		{name: "a long ProjectLocation", json: `{` + base + `,"BotType":5,"ProjectLocation":"` + strings.Repeat("p", 1025) + `"}`, wantErr: "ProjectLocation is 1025"},
		{name: "a long RunArgs", json: `{` + base + `,"BotType":5,"RunArgs":"` + strings.Repeat("x", 1025) + `"}`, wantErr: "RunArgs is 1025"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.json))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !tt.check(m) {
				t.Errorf("Parse = %+v fails the check", m)
			}
		})
	}
}

func TestRunArgs(t *testing.T) {
	tests := []struct {
		name    string
		botType BotType
		runArgs string
		want    []string
	}{
		{"§5 Python3 takes RunArgs", Python3, "extra1 extra2", []string{"extra1", "extra2"}},
		{"§5 Golang ignores RunArgs", Golang, "extra1", nil},
		{"§5 Rust ignores RunArgs", Rust, "extra1", nil},
		{"§5 Java takes RunArgs", Java, `-v "two words" x\"y`, []string{"-v", "two words", `x"y`}},
		{"§5 empty RunArgs", JavaScript, "  ", nil},
		{"empty quoted argument", CSharp, `a "" b`, []string{"a", "", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Manifest{BotType: tt.botType, RunArgs: tt.runArgs}.Args()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Args = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDisplayName(t *testing.T) {
	tests := []struct {
		m    Manifest
		want string
	}{
		{Manifest{NickName: "n", Author: "a", Email: "e"}, "n"}, // §5 NickName ?? Author ?? Email
		{Manifest{Author: "a", Email: "e"}, "a"},
		{Manifest{Email: "e"}, "e"},
		{Manifest{NickName: " ", Author: "a"}, "a"},
		{Manifest{}, ""},
	}
	for _, tt := range tests {
		if got := tt.m.DisplayName(); got != tt.want {
			t.Errorf("%+v.DisplayName() = %q, want %q", tt.m, got, tt.want)
		}
	}
}

func TestBotTypeText(t *testing.T) {
	for _, bt := range BotTypes() {
		b, err := bt.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back BotType
		if err := back.UnmarshalText(b); err != nil || back != bt {
			t.Errorf("round trip of %v = %v, %v", bt, back, err)
		}
	}
	if _, err := BotType(42).MarshalText(); err == nil {
		t.Error("MarshalText of an unknown type succeeded")
	}
}

func TestLoad(t *testing.T) {
	write := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	t.Run("bot.json first", func(t *testing.T) {
		dir := write(t, map[string]string{
			BotJSON:  `{"NickName":"j","BotType":"Python3","RunFile":"bot.py"}`,
			EntryZON: `.{ .name = "z", .runnable = "r", .img = "i", .emote = "e" }`,
		})
		m, err := Load(dir)
		if err != nil || m.NickName != "j" || m.Source != BotJSON {
			t.Fatalf("Load = %+v, %v", m, err)
		}
	})
	t.Run("entry.zon is deepship", func(t *testing.T) {
		dir := write(t, map[string]string{EntryZON: `.{ .name = "z", .runnable = "src/main.py", .img = "i.png", .emote = "e.mp3" }`})
		m, err := Load(dir)
		if err != nil || m.Game != EntryZONGame || m.BotType != Executable || m.RunFile != "src/main.py" {
			t.Fatalf("Load = %+v, %v", m, err)
		}
	})
	t.Run("bare run.sh is brainjar", func(t *testing.T) {
		dir := write(t, map[string]string{RunSh: "#!/bin/sh\necho '{}'\n"})
		m, err := Load(dir)
		if err != nil || m.Game != RunShGame || m.BotType != Executable || m.RunFile != RunSh {
			t.Fatalf("Load = %+v, %v", m, err)
		}
	})
	t.Run("no manifest", func(t *testing.T) {
		_, err := Load(write(t, map[string]string{"bot.py": "print(1)"}))
		if !errors.Is(err, ErrNoManifest) {
			t.Fatalf("Load error = %v, want ErrNoManifest", err)
		}
	})
	t.Run("missing folder", func(t *testing.T) {
		_, err := Load(filepath.Join(t.TempDir(), "nope"))
		if err == nil || errors.Is(err, ErrNoManifest) || !strings.Contains(err.Error(), "bot folder") {
			t.Fatalf("Load error = %v, want a bot folder error", err)
		}
	})
	t.Run("bot.json is a folder", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, BotJSON), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
			t.Fatalf("Load error = %v", err)
		}
	})
	t.Run("invalid bot.json", func(t *testing.T) {
		_, err := Load(write(t, map[string]string{BotJSON: `{"BotType":"Cobol","RunFile":"x"}`}))
		if err == nil || !strings.Contains(err.Error(), "Cobol") {
			t.Fatalf("Load error = %v", err)
		}
	})
}

// TestCheckGame checks that a manifest naming a game the registry does not
// list is refused, with the games it does.
func TestCheckGame(t *testing.T) {
	known := []string{"brainjar", "entelect"}
	tests := []struct {
		name    string
		m       Manifest
		wantErr string
	}{
		{name: "known", m: Manifest{Game: "entelect", Source: BotJSON}},
		{name: "unknown", m: Manifest{Game: "chess", Source: BotJSON}, wantErr: `bot.json: unknown Game "chess" (known: brainjar, entelect)`},
		{name: "empty", m: Manifest{Source: BotJSON}, wantErr: `unknown Game ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.m.CheckGame(known)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckGame = %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("CheckGame = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
