package sandbox

import "testing"

// TestCgroupNamesUniquePerProcess: a worker runs two sandboxes (matches
// and builds) whose sequences both start at 1; their cgroups must never
// share a name, or one command fails with "file exists".
func TestCgroupNamesUniquePerProcess(t *testing.T) {
	a, b := &Bwrap{tag: randomTag()}, &Bwrap{tag: randomTag()}
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		for _, r := range []*Bwrap{a, b} {
			n := r.cgroupName()
			if seen[n] {
				t.Fatalf("cgroup name %s given twice", n)
			}
			seen[n] = true
		}
	}
}
