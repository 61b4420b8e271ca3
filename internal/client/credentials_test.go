package client

import (
	"errors"
	"os"
	"testing"
)

func TestCredentials(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	none := func(string) string { return "" }
	if _, err := LoadCredentials(none); !errors.Is(err, ErrNoCredentials) {
		t.Fatalf("nothing stored: %v", err)
	}
	path, err := SaveCredentials(Credentials{Portal: "https://portal.example", Token: "bs_file"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	cases := []struct {
		name string
		env  map[string]string
		want Credentials
	}{
		{"the file", nil, Credentials{"https://portal.example", "bs_file"}},
		{"the token from the environment", map[string]string{EnvToken: "bs_env"}, Credentials{"https://portal.example", "bs_env"}},
		{"the portal from the environment", map[string]string{EnvPortal: "http://localhost:8080/"}, Credentials{"http://localhost:8080", "bs_file"}},
	}
	for _, c := range cases {
		got, err := LoadCredentials(func(k string) string { return c.env[k] })
		if err != nil || got != c.want {
			t.Errorf("%s: %+v (%v), want %+v", c.name, got, err, c.want)
		}
	}
	if removed, err := RemoveCredentials(); !removed || err != nil {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if removed, err := RemoveCredentials(); removed || err != nil {
		t.Fatalf("remove again: %v %v", removed, err)
	}
	env := map[string]string{EnvPortal: "http://p", EnvToken: "t"}
	if got, err := LoadCredentials(func(k string) string { return env[k] }); err != nil || got != (Credentials{"http://p", "t"}) {
		t.Fatalf("the environment alone: %+v %v", got, err)
	}
}
