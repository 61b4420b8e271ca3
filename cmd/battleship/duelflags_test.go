package main

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
)

func TestParseDuelArgs(t *testing.T) {
	defaults := duelConfig{games: 200, jobs: runtime.NumCPU(), delta: 0.1}
	with := func(f func(c *duelConfig)) duelConfig {
		c := defaults
		c.dirs = []string{"a", "b"}
		f(&c)
		return c
	}
	tests := []struct {
		name string
		args []string
		want duelConfig
	}{
		{"defaults", []string{"a", "b"}, with(func(*duelConfig) {})},
		{"options after the folders", []string{"a", "b", "--games", "10", "--paired", "--json"},
			with(func(c *duelConfig) { c.games, c.paired, c.json = 10, true, true })},
		{"name=value", []string{"--game=BrainJar", "--seed=-3", "--jobs=4", "-s=1", "--delta=0.25", "a", "b"},
			with(func(c *duelConfig) {
				c.game, c.seed, c.seedSet, c.jobs, c.size, c.delta = "brainjar", -3, true, 4, 1, 0.25
			})},
		{"sandbox", []string{"--sandbox", "a", "b"}, with(func(c *duelConfig) { c.sandbox = true })},
		{"a folder that looks like an option", []string{"a", "--", "-b"},
			with(func(c *duelConfig) { c.dirs = []string{"a", "-b"} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDuelArgs(tt.args)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	for _, args := range [][]string{
		{}, {"a"}, {"a", "b", "c"}, {"--games", "0", "a", "b"}, {"--games", "-1", "a", "b"},
		{"--games", "5", "--paired", "a", "b"}, {"--jobs", "0", "a", "b"}, {"--delta", "0", "a", "b"},
		{"--delta", "0.5", "a", "b"}, {"--delta", "NaN", "a", "b"}, {"--seed", "1.5", "a", "b"},
		{"--json=yes", "a", "b"}, {"-b", "a", "b"}, {"a", "b", "--games"},
	} {
		if _, err := parseDuelArgs(args); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, want a command-line error", args, err)
		}
	}
	if c, err := parseDuelArgs([]string{"-h"}); err != nil || !c.help {
		t.Errorf("-h: %+v, %v", c, err)
	}
}
