package botupload

import "testing"

func TestNameKeys(t *testing.T) {
	same := []struct{ a, b string }{
		{"Python Starter", "python starter"},
		{"Python Starter", "Pyth\u043en Starter"},                          // Cyrillic o
		{"Python Starter", "\uff30\uff59\uff54\uff48\uff4f\uff4e Starter"}, // fullwidth
		{"Python Starter", "PythonStarter"},
		{"Python Starter", "Python-Starter"},
		{"Python Starter", "Python_Starter."},
		{"Python Starter", "Pyth0n Starter"},                   // zero for o
		{"Python Starter", "Python\u200b Starter"},             // zero-width space
		{"Python Starter", "\U0001d40f\U0001d432thon Starter"}, // mathematical bold
		{"Sinker", "\u0405INKER"},                              // Cyrillic Dze
		{"Ill", "1ll"},
		{"Ill", "lll"},
		{"Ill", "ill"},
		{"Straße", "STRASSE"},
		{"🚢", "🚢"},
	}
	for _, c := range same {
		if !readAlike(nameKeys(c.a), nameKeys(c.b)) {
			t.Errorf("%q and %q read alike but have keys %q and %q", c.a, c.b, nameKeys(c.a), nameKeys(c.b))
		}
	}
	differ := []struct{ a, b string }{
		{"Python Starter", "Python Starter 2"},
		{"Sinker", "Stinker"},
		{"Café", "Cafe"},
		{"🚢", "⚓"},
		{"Orca", "Okra"},
		{"ill", "1ll"},
	}
	for _, c := range differ {
		if readAlike(nameKeys(c.a), nameKeys(c.b)) {
			t.Errorf("%q and %q are different names but share a key: %q and %q", c.a, c.b, nameKeys(c.a), nameKeys(c.b))
		}
	}
}
