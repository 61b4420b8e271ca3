package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOwnFolders(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(root, d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, "sub", "state.txt"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	tests := []struct {
		name   string
		dirs   []string
		copied []bool // per seat: plays from a copy
	}{
		{"distinct folders stay", []string{a, b}, []bool{false, false}},
		{"a folder twice", []string{a, a}, []bool{false, true}},
		{"spelled differently", []string{a, filepath.Join(root, ".", "a") + "/", filepath.Join(root, "link")}, []bool{false, true, true}},
		{"mixed", []string{b, a, b, a}, []bool{false, false, true, true}},
		{"a missing folder is left to the match", []string{filepath.Join(root, "none"), filepath.Join(root, "none")}, []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var note bytes.Buffer
			got, err := ownFolders(tt.dirs, t.TempDir(), &note)
			if err != nil {
				t.Fatal(err)
			}
			copies := 0
			for i, dir := range got {
				if !tt.copied[i] {
					if dir != tt.dirs[i] {
						t.Errorf("seat %d: got %s, want its own folder %s", i+1, dir, tt.dirs[i])
					}
					continue
				}
				copies++
				if dir == tt.dirs[i] || filepath.Base(dir) != "a" && filepath.Base(dir) != "b" {
					t.Errorf("seat %d: got %s, want a copy with the folder's name", i+1, dir)
				}
				fi, err := os.Stat(filepath.Join(dir, "run.sh"))
				if err != nil || fi.Mode()&0o100 == 0 {
					t.Errorf("seat %d: run.sh not copied with its executable bit: %v %v", i+1, fi, err)
				}
				if _, err := os.Stat(filepath.Join(dir, "sub", "state.txt")); err != nil {
					t.Errorf("seat %d: subfolder not copied: %v", i+1, err)
				}
			}
			if n := strings.Count(note.String(), "plays from a copy"); n != copies {
				t.Errorf("%d notes for %d copies:\n%s", n, copies, note.String())
			}
		})
	}
}

// TestSameFolderSeats plays Hit and Sunk copies of one bot that keeps a
// state file in its folder: named three times, the folder must give the
// same game as three separate folders, which is what the worker plays.
func TestSameFolderSeats(t *testing.T) {
	needTool(t, "python3")
	tmp := t.TempDir()
	bin := battleshipBinary(t)
	src, err := os.ReadFile(filepath.Join("..", "..", "bots", "hitandsunk-python3", "bot.py"))
	if err != nil {
		t.Fatal(err)
	}
	manifest := `{"Author":"Test","NickName":"StateKeeper","BotType":"Executable","RunFile":"bot.py","Game":"hitandsunk"}`
	for _, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, d, "bot.py"), src, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, d, "bot.json"), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := kit{bin: bin, bots: tmp}
	// Seed 1 is a seed on which the ships meet and fire, so shared state
	// files change the game.
	args := []string{"--game", "hitandsunk", "--seed", "1", "--nolimit", "--json"}
	same := k.play(t, append(args, "-l", filepath.Join(tmp, "r-same"), "-b", "a", "a", "a")...)
	apart := k.play(t, append(args, "-l", filepath.Join(tmp, "r-apart"), "-b", "a", "b", "c")...)
	if same.code != 0 || apart.code != 0 {
		t.Fatalf("exit %d and %d\n%s\n%s", same.code, apart.code, same.stderr, apart.stderr)
	}
	shots := 0
	for _, p := range apart.summary.Players {
		shots += p.ShotsFired
	}
	if shots == 0 {
		t.Fatalf("no shots on this seed, the test proves nothing: %+v", apart.summary)
	}
	x, _ := json.Marshal(same.summary)
	y, _ := json.Marshal(apart.summary)
	if string(x) != string(y) {
		t.Errorf("one folder three times plays another game than three folders:\n%s\nvs\n%s", x, y)
	}
	if !strings.Contains(same.stderr, "seat 3 plays from a copy of a") {
		t.Errorf("no note about the copies on stderr:\n%s", same.stderr)
	}
}
