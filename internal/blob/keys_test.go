package blob

import (
	"os"
	"strings"
	"testing"
)

// The operators' guide names the key layout the code uses.
func TestKeysMatchOperationsDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{
		strings.NewReplacer("111", "{bot}", "222", "{number}").Replace(SourceKey(111, 222)),
		strings.ReplaceAll(ArtifactKey(333), "333", "{version}"),
		strings.ReplaceAll(ReplayKey(444), "444", "{match}"),
	} {
		if !strings.Contains(string(doc), "`"+key+"`") {
			t.Errorf("docs/operations.md does not name the key layout %s", key)
		}
	}
}
