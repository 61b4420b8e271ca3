package botmeta

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input panics the bot.json parser and that every
// accepted manifest keeps the invariants others rely on.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"BotType":"Python3","RunFile":"a\\..\\b","RunArgs":"\"x y\" z","Game":"deepship"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		checkManifest(t, m)
	})
}

// FuzzParseZON does the same for entry.zon.
func FuzzParseZON(f *testing.F) {
	f.Add([]byte(`.{ .name = "Aimless Amy", .runnable = "src/main.py", .img = "assets/ralph.png", .emote = "assets/kaboom.mp3" }`))
	f.Add([]byte(".{ .name = \"\\u{41}\\x42\", // c\n .runnable = \"a\", .img = \"\", .emote = \"\", }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseZON(data)
		if err != nil {
			return
		}
		checkManifest(t, m)
	})
}

func checkManifest(t *testing.T, m Manifest) {
	t.Helper()
	if !m.BotType.Valid() {
		t.Fatalf("accepted an invalid BotType %d", m.BotType)
	}
	if m.RunFile == "" || !filepath.IsLocal(m.RunFile) || strings.Contains(m.RunFile, `\`) {
		t.Fatalf("accepted RunFile %q", m.RunFile)
	}
	if m.Game == "" || m.Game != strings.ToLower(strings.TrimSpace(m.Game)) {
		t.Fatalf("accepted Game %q", m.Game)
	}
}
