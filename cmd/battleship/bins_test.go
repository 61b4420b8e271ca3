package main

import (
	"os"
	"testing"

	"github.com/broadside/broadside/internal/testenv"
)

// TestMain removes the commands the tests built (testenv.GoBinary) and the
// match they share (played14).
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveGoBinaries()
	if match14.dir != "" {
		os.RemoveAll(match14.dir)
	}
	os.Exit(code)
}
