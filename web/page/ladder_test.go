package page

import (
	"testing"
	"time"
)

// TestAbout checks the wait the ladder line names, across its three
// ranges: the day's reset is from seconds to a day away.
func TestAbout(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{45 * time.Second, "in about 45 seconds"},
		{107 * time.Minute, "in about 107 min"},
		{2*time.Hour + 5*time.Minute, "in about 2 h 5 min"},
	}
	for _, c := range cases {
		if got := about(c.d); got != c.want {
			t.Errorf("about(%s) = %q, want %q", c.d, got, c.want)
		}
	}
}
