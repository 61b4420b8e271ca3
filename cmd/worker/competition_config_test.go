package main

import (
	"strings"
	"testing"
	"time"
)

// TestCompetitionConfig: the battle and ladder ticks' settings, with the
// ladder's "off".
func TestCompetitionConfig(t *testing.T) {
	const db = "postgres://u@localhost/db"
	tests := []struct {
		name       string
		env        map[string]string
		battle     time.Duration
		ladder     time.Duration
		slots      int
		wantErrVar string
	}{
		{"defaults", map[string]string{}, 10 * time.Second, 30 * time.Second, 4, ""},
		{"set", map[string]string{"BATTLE_INTERVAL": "2s", "LADDER_INTERVAL": "1m", "LADDER_SLOTS": "9"}, 2 * time.Second, time.Minute, 9, ""},
		{"ladder off", map[string]string{"LADDER_INTERVAL": "off"}, 10 * time.Second, 0, 4, ""},
		{"ladder 0", map[string]string{"LADDER_INTERVAL": "0"}, 10 * time.Second, 0, 4, ""},
		{"bad ladder interval", map[string]string{"LADDER_INTERVAL": "often"}, 0, 0, 0, "LADDER_INTERVAL"},
		{"bad battle interval", map[string]string{"BATTLE_INTERVAL": "-1s"}, 0, 0, 0, "BATTLE_INTERVAL"},
		{"no ladder slots", map[string]string{"LADDER_SLOTS": "0"}, 0, 0, 0, "LADDER_SLOTS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"DATABASE_URL": db, "BLOB_URL": "file:///srv/blobs"}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := parseConfig(envOf(env))
			if tc.wantErrVar != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrVar) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErrVar)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.BattleEvery != tc.battle || c.LadderEvery != tc.ladder || c.LadderSlots != tc.slots {
				t.Errorf("got battle %v ladder %v slots %d", c.BattleEvery, c.LadderEvery, c.LadderSlots)
			}
		})
	}
}
