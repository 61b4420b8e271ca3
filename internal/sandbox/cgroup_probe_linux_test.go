package sandbox

import (
	"os"
	"sync"
	"testing"
)

// TestCheckWritableConcurrent: probes of one process run at once (tests
// side by side, a worker's two sandboxes); each must create and remove its
// own test cgroup, never one another probe removes first.
func TestCheckWritableConcurrent(t *testing.T) {
	parent := t.TempDir()
	cp := cgroupParents{"memory": parent}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if err := cp.checkWritable(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if left, err := os.ReadDir(parent); err != nil || len(left) != 0 {
		t.Errorf("probe cgroups left behind: %v (%v)", left, err)
	}
}
