package page

import (
	"strconv"
	"strings"
)

// methodName names a rating method as stored with rating events.
func methodName(method string) string {
	switch method {
	case "wenglin":
		return "Weng–Lin (Plackett–Luce), the free-for-all method"
	case "glicko2":
		return "Glicko-2"
	}
	return method
}

// joinNames lists names as people write them: "a, b and c".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// ratingMethodNote says how a match's rating changes were computed, and
// for a pair, on which half they were recorded.
func ratingMethodNote(v MatchView) string {
	note := "Computed by " + methodName(v.Ratings[0].Method)
	if len(v.Pair) == 2 {
		note += ", once for the pair (recorded on match #" + strconv.FormatInt(v.Ratings[0].MatchID, 10) + ")"
	}
	return note + "."
}
