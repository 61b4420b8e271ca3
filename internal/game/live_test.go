package game_test

import (
	"encoding/json"
	"testing"

	"github.com/broadside/broadside/internal/game"
)

func TestApplyPatch(t *testing.T) {
	tests := []struct {
		name, doc string
		ops       []game.PatchOp
		want      string
		fails     bool
	}{
		{"append", `{"shots":[1]}`, []game.PatchOp{game.Append("/shots", 2)}, `{"shots":[1,2]}`, false},
		{"append to null", `{"games":null}`, []game.PatchOp{game.Append("/games", map[string]any{"events": []any{}})}, `{"games":[{"events":[]}]}`, false},
		{"nested", `{"games":[{"events":[]}]}`, []game.PatchOp{game.Append("/games/0/events", "a"), game.Append("/games/0/events", "b")}, `{"games":[{"events":["a","b"]}]}`, false},
		{"replace element", `{"games":[1,2]}`, []game.PatchOp{game.Replace("/games/1", 3)}, `{"games":[1,3]}`, false},
		{"replace member", `{"winner":null}`, []game.PatchOp{game.Replace("/winner", "A")}, `{"winner":"A"}`, false},
		{"replace missing member", `{}`, []game.PatchOp{game.Replace("/winner", "A")}, ``, true},
		{"index out of range", `{"games":[]}`, []game.PatchOp{game.Append("/games/0/events", 1)}, ``, true},
		{"unknown op", `{}`, []game.PatchOp{{Op: "remove", Path: "/a"}}, ``, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var doc any
			if err := json.Unmarshal([]byte(tc.doc), &doc); err != nil {
				t.Fatal(err)
			}
			got, err := game.ApplyPatch(doc, tc.ops)
			if tc.fails {
				if err == nil {
					t.Fatalf("applied: %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(got)
			if string(data) != tc.want {
				t.Errorf("got %s, want %s", data, tc.want)
			}
		})
	}
}
