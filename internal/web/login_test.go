package web

import "testing"

func TestSafeNext(t *testing.T) {
	cases := []struct{ next, want string }{
		{"/account", "/account"},
		{"/bots/12?tab=versions#log", "/bots/12?tab=versions#log"},
		{"/matches/%2Fx", "/matches/%2Fx"},
		{"", "/"},
		{"account", "/"},
		{"https://evil.example/", "/"},
		{"//evil.example", "/"},
		{"/\\evil.example", "/"},
		{"\\/evil.example", "/"},
		// Browsers drop tabs and line breaks anywhere in a URL.
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"/\r\n/evil.example", "/"},
		{"/\t\\evil.example", "/"},
		// And trim control characters and spaces at the ends.
		{" //evil.example", "/"},
		{"\x00//evil.example", "/"},
		{"/ /evil.example", "/"},
		{"/%2F/evil.example", "/"}, // decodes to a path starting with "//"
		{"/x\x7f", "/"},
		{"/:evil", "/:evil"},
	}
	for _, c := range cases {
		if got := safeNext(c.next); got != c.want {
			t.Errorf("safeNext(%q) = %q, want %q", c.next, got, c.want)
		}
	}
}
