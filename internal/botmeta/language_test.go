package botmeta

import "testing"

// TestProgramLanguage: an Executable's language comes from its #! line,
// then from being a compiled program, then from its file name.
func TestProgramLanguage(t *testing.T) {
	tests := []struct {
		runFile, head, want string
	}{
		{"src/main.py", "#!/usr/bin/env python3\nimport sys\n", "Python"},
		{"bot", "#!/usr/bin/python\n", "Python"},
		{"run", "#!/usr/bin/env -S node --max-old-space-size=256\n", "JavaScript"},
		{"run.sh", "#!/bin/sh\nexec ./bot\n", "Shell"},
		{"bot", "#! /usr/bin/env ruby\n", "Ruby"},
		{"bot", "\x7fELF\x02\x01\x01", "Compiled program"},
		{"main.py", "import sys\n", "Python"},
		{"bot.pl", "", "Perl"},
		{"bot", "#!/usr/bin/env brainfuck\n", "Executable"},
		{"bot", "", "Executable"},
	}
	for _, tt := range tests {
		if got := ProgramLanguage(tt.runFile, []byte(tt.head)); got != tt.want {
			t.Errorf("ProgramLanguage(%q, %q) = %q, want %q", tt.runFile, tt.head, got, tt.want)
		}
	}
}
