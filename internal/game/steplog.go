package game

import "strings"

// StepMark is the line a rule set writes into a bot's own log where the
// part of a replay step begins ("shot 12", "game 2, turn 40", "round 7"),
// so that the viewer shows the bot's owner the lines of the step shown.
// The step labels are the rule set's and its viewer's to agree on.
func StepMark(label string) string { return "=== " + label + " ===\n" }

// Step marks the start of a step's lines in the log.
func (l *BotLog) Step(label string) { l.Printf("%s", StepMark(label)) }

// StepLog returns the lines of log written for the step label: from its
// mark to the next mark or the end. ok is false when the log has no mark
// of that label (the bot did nothing in that step).
func StepLog(log, label string) (lines string, ok bool) {
	mark := StepMark(label)
	var at int
	switch {
	case strings.HasPrefix(log, mark):
		at = 0
	default:
		i := strings.Index(log, "\n"+mark)
		if i < 0 {
			return "", false
		}
		at = i + 1
	}
	rest := log[at+len(mark):]
	if end := strings.Index(rest, "\n=== "); end >= 0 {
		rest = rest[:end+1]
	}
	return rest, true
}
