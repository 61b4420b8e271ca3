package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/repro"
)

// TestParseArgs covers the original engine's flags (spec §10) and the
// platform's own.
func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    config
		wantErr string
	}{
		{name: "§10 -b takes several folders", args: "-b a b -s 1",
			want: config{bots: []string{"a", "b"}, size: 1}},
		{name: "§10 --bot twice", args: "--bot a --bot b",
			want: config{bots: []string{"a", "b"}}},
		{name: "§10 long forms with =", args: "--bot=a --size=3 --log=out --console=1",
			want: config{bots: []string{"a"}, size: 3, logDir: "out", consoles: 1}},
		{name: "§10 switches", args: "-c 2 --clog --pretty --nolimit --debug --tournamentMode -l x",
			want: config{consoles: 2, clog: true, pretty: true, noLimit: true, debug: true, tournament: true, logDir: "x"}},
		{name: "platform flags", args: "--seed 42 --json --game HitAndSunk --sandbox -b a",
			want: config{seed: 42, seedSet: true, json: true, game: "hitandsunk", sandbox: true, bots: []string{"a"}}},
		{name: "negative seed", args: "--seed -3", want: config{seed: -3, seedSet: true}},
		{name: "help", args: "--help", want: config{help: true}},
		{name: "-b without folders", args: "-b --json", wantErr: "at least one bot folder"},
		{name: "size not a number", args: "-s big", wantErr: `-s wants an integer, not "big"`},
		{name: "seed not a number", args: "--seed x", wantErr: "--seed wants an integer"},
		{name: "missing value", args: "-l", wantErr: "-l needs a value"},
		{name: "negative consoles", args: "-c -1", wantErr: "must not be negative"},
		{name: "unknown option", args: "--fast", wantErr: "unknown option --fast"},
		{name: "stray argument", args: "a", wantErr: `unexpected argument "a"`},
		{name: "value on a switch", args: "--json=yes", wantErr: "--json takes no value"},
		{name: "§10 -f builds first", args: "-f -b a", want: config{rebuild: true, bots: []string{"a"}}},
		{name: "--forceRebuild", args: "--forceRebuild --sandbox -b a", want: config{rebuild: true, sandbox: true, bots: []string{"a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(strings.Fields(tt.args))
			if tt.wantErr != "" {
				if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseArgs error = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseArgs =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestParseReplayCommand reads the command a match page shows
// (internal/repro) as the match it names: its game, seed, map size, mode
// and folders in seat order, whatever the folders are called.
func TestParseReplayCommand(t *testing.T) {
	m := repro.Match{Game: "entelect", Seed: -9, Size: 3}
	folders := []string{"-dashing", "ann/v2/Amy"}
	got, err := parseArgs(repro.Args(m, folders))
	if err != nil {
		t.Fatal(err)
	}
	want := config{game: "entelect", seed: -9, seedSet: true, size: 3, tournament: true, bots: []string{"./-dashing", "ann/v2/Amy"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseArgs =\n%+v\nwant\n%+v", got, want)
	}
}
