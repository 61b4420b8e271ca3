package game

import "testing"

// TestStepLog: a step's lines run from its mark to the next mark, and a
// step without a mark has none; a mark-like text inside a line is not a
// mark.
func TestStepLog(t *testing.T) {
	l := NewBotLog(1 << 10)
	l.Printf("note: started\n")
	l.Step("shot 1")
	l.Printf("request 1: {}\nreply: {\"move\":\"00\"}\n")
	l.Step("shot 3")
	l.Printf("echo === shot 2 ===\nreply: {\"move\":\"11\"}\n")
	log := l.String()
	tests := []struct {
		label, want string
		ok          bool
	}{
		{"shot 1", "request 1: {}\nreply: {\"move\":\"00\"}\n", true},
		{"shot 3", "echo === shot 2 ===\nreply: {\"move\":\"11\"}\n", true},
		{"shot 2", "", false},
		{"shot", "", false},
	}
	for _, tt := range tests {
		got, ok := StepLog(log, tt.label)
		if got != tt.want || ok != tt.ok {
			t.Errorf("StepLog(%q) = %q, %v; want %q, %v", tt.label, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := StepLog(StepMark("round 1")+"a\n", "round 1"); !ok || got != "a\n" {
		t.Errorf("a mark at the start: %q, %v", got, ok)
	}
}
