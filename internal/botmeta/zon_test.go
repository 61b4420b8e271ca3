package botmeta

import (
	"strings"
	"testing"
)

// TestParseZON covers In Deep Ship's entry.zon (in-deep-ship.md §2).
func TestParseZON(t *testing.T) {
	tests := []struct {
		name    string
		zon     string
		want    Manifest
		wantErr string
	}{
		{name: "§2 the README's example",
			zon:  `.{ .name = "Aimless Amy", .runnable = "src/main.py", .img = "assets/ralph.png", .emote = "assets/kaboom.mp3" }`,
			want: Manifest{NickName: "Aimless Amy", RunFile: "src/main.py", Image: "assets/ralph.png", Emote: "assets/kaboom.mp3"}},
		{name: "multi-line with comments and a trailing comma",
			zon:  ".{\n  // who\n  .name = \"B\\x41\\u{1F6A2}\",\n  .runnable = \"./bot\",\n  .img = \"\",\n  .emote = \"\",\n}\n",
			want: Manifest{NickName: "BA\U0001F6A2", RunFile: "bot"}},
		{name: "§2 a missing field drops the entry", zon: `.{ .name = "a", .runnable = "b", .img = "c" }`, wantErr: "field .emote is missing"},
		{name: "§2 an unknown field drops the entry", zon: `.{ .name = "a", .runnable = "b", .img = "c", .emote = "d", .x = "e" }`,
			wantErr: "unknown field .x"},
		{name: "duplicate field", zon: `.{ .name = "a", .name = "b" }`, wantErr: "given twice"},
		{name: "runnable outside", zon: `.{ .name = "a", .runnable = "../b", .img = "c", .emote = "d" }`, wantErr: "inside the bot folder"},
		{name: "runnable empty", zon: `.{ .name = "a", .runnable = "", .img = "c", .emote = "d" }`, wantErr: ".runnable is empty"},
		{name: "not a struct", zon: `{"name":"a"}`, wantErr: `expected ".{"`},
		{name: "number value", zon: `.{ .name = 3 }`, wantErr: "expected a string"},
		{name: "unclosed string", zon: ".{ .name = \"a\n }", wantErr: "not closed"},
		{name: "bad escape", zon: `.{ .name = "\q" }`, wantErr: "unknown escape"},
		{name: "text after", zon: `.{ .name = "a", .runnable = "b", .img = "c", .emote = "d" } x`, wantErr: "after the struct"},
		{name: "empty", zon: ``, wantErr: `expected ".{"`},
		{name: "a name of 101 characters", zon: `.{ .name = "` + strings.Repeat("n", 101) + `", .runnable = "b", .img = "", .emote = "" }`,
			wantErr: ".name is 101 characters long"},
		{name: "a long image path", zon: `.{ .name = "a", .runnable = "b", .img = "` + strings.Repeat("i", 1025) + `", .emote = "" }`,
			wantErr: ".img is 1025 characters long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseZON([]byte(tt.zon))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseZON error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseZON: %v", err)
			}
			tt.want.BotType, tt.want.Game, tt.want.Source = Executable, EntryZONGame, EntryZON
			if got != tt.want {
				t.Errorf("ParseZON =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}
