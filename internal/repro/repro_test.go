package repro

import (
	"slices"
	"testing"

	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
)

func TestFolder(t *testing.T) {
	for _, tc := range []struct{ bot, want string }{
		{"Tidy-Bot_2.0+", "Tidy-Bot_2.0+"},
		{"Sea Wolf", "Sea_Wolf"},
		{"  padded  ", "padded"},
		{"a/b\\c", "a_b_c"},
		{"tab\there", "tab_here"},
		{"O'Brien \"$(rm)\"", "O_Brien____rm__"},
		{".hidden", "_hidden"},
		{"-option", "_option"},
		{".", "_"},
		{"..", "_."},
		{"", "bot"},
		{"Émile ☂", "Émile__"},
	} {
		if got := Folder(tc.bot); got != tc.want {
			t.Errorf("Folder(%q) = %q, want %q", tc.bot, got, tc.want)
		}
	}
}

func TestFolders(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seats []Seat
		want  []string
	}{
		{"distinct names",
			[]Seat{{Bot: "Amy", Owner: "ann", Version: 1, VersionID: 10}, {Bot: "Alex", Owner: "al", Version: 2, VersionID: 20}},
			[]string{"Amy", "Alex"}},
		{"one version in two seats shares its folder",
			[]Seat{{Bot: "Amy", Owner: "ann", Version: 1, VersionID: 10}, {Bot: "Amy", Owner: "ann", Version: 1, VersionID: 10}},
			[]string{"Amy", "Amy"}},
		{"two owners' bots of one name",
			[]Seat{{Bot: "Amy", Owner: "ann", Version: 1, VersionID: 10}, {Bot: "Amy", Owner: "bo", Version: 1, VersionID: 30},
				{Bot: "Zed", Owner: "zo", Version: 4, VersionID: 40}},
			[]string{"ann/Amy", "bo/Amy", "zo/Zed"}},
		{"two versions of one bot",
			[]Seat{{Bot: "Amy", Owner: "ann", Version: 1, VersionID: 10}, {Bot: "Amy", Owner: "ann", Version: 3, VersionID: 12}},
			[]string{"ann/v1/Amy", "ann/v3/Amy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Folders(tc.seats); !slices.Equal(got, tc.want) {
				t.Errorf("Folders = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	rules := rulesets.Registry()
	for _, tc := range []struct {
		name string
		m    store.MatchRow
		want string
	}{
		{"entelect on the small map, seats in seat order whatever the listing",
			store.MatchRow{Game: "entelect", Seed: 42, MapSize: 1, Players: []store.MatchPlayerRow{
				{Seat: 1, BotName: "Second", Owner: "b", VersionNumber: 1, VersionID: 2},
				{Seat: 0, BotName: "First Bot", Owner: "a", VersionNumber: 3, VersionID: 1},
			}},
			"battleship --game entelect --seed 42 --size 1 --tournamentMode -b First_Bot Second"},
		{"a game with one map takes no size; a negative seed",
			store.MatchRow{Game: "hitandsunk", Seed: -7, MapSize: 2, Players: []store.MatchPlayerRow{
				{Seat: 0, BotName: "O'Brien", Owner: "a", VersionNumber: 1, VersionID: 1},
				{Seat: 1, BotName: "-dash", Owner: "b", VersionNumber: 1, VersionID: 2},
				{Seat: 2, BotName: "plain", Owner: "c", VersionNumber: 1, VersionID: 3},
			}},
			`battleship --game hitandsunk --seed -7 --tournamentMode -b O_Brien _dash plain`},
		{"the default map size is not named",
			store.MatchRow{Game: "entelect", Seed: 1, Players: []store.MatchPlayerRow{
				{Seat: 0, BotName: "a", VersionID: 1}, {Seat: 1, BotName: "b", VersionID: 2},
			}},
			"battleship --game entelect --seed 1 --tournamentMode -b a b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Command(ForMatch(&tc.m, rules)); got != tc.want {
				t.Errorf("Command =\n  %s\nwant\n  %s", got, tc.want)
			}
		})
	}
}

func TestReproCommand(t *testing.T) {
	two := func(game string) Match {
		return Match{Game: game, Seed: 5, Seats: []Seat{
			{Bot: "Sea Wolf", Owner: "ann", Version: 2, VersionID: 20},
			{Bot: "Sea Wolf", Owner: "ann", Version: 1, VersionID: 10},
		}}
	}
	for _, tc := range []struct {
		name string
		m    Match
		seat int
		want string
		ok   bool
	}{
		{"seat A", two("entelect"), 0, "battleship repro --seat A --bot ann/v2/Sea_Wolf match-7-replay.zip", true},
		{"seat B", two("entelect"), 1, "battleship repro --seat B --bot ann/v1/Sea_Wolf match-7-replay.zip", true},
		{"another game", two("hitandsunk"), 0, "", false},
		{"no such seat", two("entelect"), 2, "", false},
		{"one bot against itself", Match{Game: "entelect", Seats: []Seat{{Bot: "O'Brien", VersionID: 1}, {Bot: "O'Brien", VersionID: 1}}}, 1,
			"battleship repro --seat B --bot O_Brien match-7-replay.zip", true},
	} {
		got, ok := ReproCommand(tc.m, tc.seat, ReplayZip(7))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
