package page

import "strings"

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
