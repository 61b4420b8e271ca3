package gametest

import (
	"reflect"
	"testing"
)

func TestRebase(t *testing.T) {
	tests := []struct {
		name string
		cmd  []string
		want []string
	}{
		{"inside", []string{"/bots/a/src/main.py"}, []string{"/copy/src/main.py"}},
		{"interpreter outside", []string{"/usr/bin/python3", "/bots/a/bot.py"}, []string{"/usr/bin/python3", "/copy/bot.py"}},
		{"sibling with a common prefix", []string{"/bots/ab/bot.py"}, []string{"/bots/ab/bot.py"}},
		{"relative", []string{"bot.py"}, []string{"bot.py"}},
		{"none", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := rebase(tc.cmd, "/bots/a", "/copy"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rebase(%q) = %q, want %q", tc.cmd, got, tc.want)
			}
		})
	}
}
