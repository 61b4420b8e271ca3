package web

import (
	"testing"

	"github.com/broadside/broadside/internal/store"
)

func TestVersionZipName(t *testing.T) {
	cases := []struct {
		bot  store.Bot
		n    int
		want string
	}{
		{store.Bot{Name: "Pyro", Game: "entelect"}, 2, "Pyro-v2.zip"},
		{store.Bot{Name: "Sea Wolf", Game: "entelect"}, 1, "Sea-Wolf-v1.zip"},
		{store.Bot{Name: "entelect-python3", Game: "entelect", House: true}, 3, "broadside-entelect-python3-starter.zip"},
		{store.Bot{Name: "Python3 Starter", Game: "hitandsunk", House: true}, 1, "broadside-hitandsunk-python3-starter.zip"},
		{store.Bot{Name: "Deepship-Go", Game: "deepship", House: true}, 1, "broadside-deepship-go-starter.zip"},
	}
	for _, c := range cases {
		if got := versionZipName(&c.bot, c.n); got != c.want {
			t.Errorf("%q (house %v): %q, want %q", c.bot.Name, c.bot.House, got, c.want)
		}
	}
}
