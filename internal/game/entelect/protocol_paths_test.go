package entelect

import (
	"reflect"
	"testing"
)

// TestShownArgs: a bot's log names its command line without the worker's
// paths: the bot's own files relative to its folder, the round folder as
// the replay names it, an interpreter by its file name.
func TestShownArgs(t *testing.T) {
	bot := "/tmp/worker-vm_1_ab/match-3-99/seat-0"
	round := "/tmp/worker-vm_1_ab/match-3-99/replay/Phase 2 - Round 14/A"
	tests := []struct {
		args, want []string
	}{
		{[]string{"/root/.pyenv/versions/3.11.7/bin/python3", "bot.py", "A", round},
			[]string{"python3", "bot.py", "A", "Phase 2 - Round 14/A"}},
		{[]string{"java", "-jar", bot + "/target/bot.jar", "B", round},
			[]string{"java", "-jar", "target/bot.jar", "B", "Phase 2 - Round 14/A"}},
		{[]string{bot + "/bot", "A", round, "--fast"}, []string{"bot", "A", "Phase 2 - Round 14/A", "--fast"}},
	}
	for _, tt := range tests {
		if got := shownArgs(tt.args, bot, round); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("shownArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
	if got := commandLine(shownArgs(tests[0].args, bot, round)); got != `python3 bot.py A "Phase 2 - Round 14/A"` {
		t.Errorf("command line %q", got)
	}
}
