// Command bot is the reference bot for Entelect Challenge 2017 Battleships.
// The engine starts it once per round as `bot <key> <round folder>`; it
// reads state.json from the folder and writes place.txt (phase 1) or
// command.txt (phase 2) there.
package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: bot <player key> <round folder>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "bot:", err)
		os.Exit(1)
	}
}

func run(key, dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("state.json: %w", err)
	}
	// Seeded from the state, so the same match plays the same way again.
	h := fnv.New64a()
	h.Write([]byte(key))
	h.Write(data)
	rng := rand.New(rand.NewSource(int64(h.Sum64())))
	if s.Phase == 1 {
		return os.WriteFile(filepath.Join(dir, "place.txt"), []byte(placeShips(s.MapDimension, rng)), 0o644)
	}
	c := chooseCommand(&s, rng)
	fmt.Printf("%s: %s\n", key, c.why)
	return os.WriteFile(filepath.Join(dir, "command.txt"), []byte(fmt.Sprintf("%d,%d,%d\n", c.code, c.x, c.y)), 0o644)
}
