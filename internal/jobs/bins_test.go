package jobs_test

import (
	"os"
	"testing"

	"github.com/broadside/broadside/internal/testenv"
)

// TestMain removes the commands the tests built (testenv.GoBinary).
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveGoBinaries()
	os.Exit(code)
}
