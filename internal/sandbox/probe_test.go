package sandbox

import (
	"errors"
	"strings"
	"testing"
)

func TestRequire(t *testing.T) {
	full := Capabilities{Bwrap: true, UserNamespaces: true, NetNamespaces: true, PIDNamespaces: true, Cgroups: "v1"}
	cases := []struct {
		name string
		caps Capabilities
		want string // empty: no error
	}{
		{"everything enforced", full, ""},
		{"no bwrap", Capabilities{Problems: []string{"sandbox: bubblewrap not found"}}, "bubblewrap not found"},
		{"no cgroups", func() Capabilities {
			c := full
			c.Cgroups = ""
			c.Problems = []string{"no usable cgroups for memory and process limits"}
			return c
		}(), "no usable cgroups"},
		{"no network namespace, no problem recorded", func() Capabilities {
			c := full
			c.NetNamespaces = false
			return c
		}(), "netns=false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Require(tc.caps)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Require = %v, want nil", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrNotEnforced) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Require = %v, want ErrNotEnforced mentioning %q", err, tc.want)
			}
		})
	}
}
