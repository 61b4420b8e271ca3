package web

import (
	"fmt"
	"testing"
)

// A stream that fell behind misses events, but still gets the event that
// ends its topic: a page that waits for the end to reload would otherwise
// wait forever.
func TestFanoutEndReachesAStreamBehind(t *testing.T) {
	for _, behind := range []int{0, watchBuffer - 1, watchBuffer, 3 * watchBuffer} {
		t.Run(fmt.Sprint(behind), func(t *testing.T) {
			f := newFanout[int]()
			slow, stopSlow := f.watch(7, func() int { return 0 })
			defer stopSlow()
			other, stopOther := f.watch(8, func() int { return 0 })
			defer stopOther()
			for i := 0; i < behind; i++ {
				f.deliver(7, func(n *int) ([]sseEvent, bool) {
					*n++
					return []sseEvent{{name: "log", id: fmt.Sprint(*n)}}, false
				})
			}
			f.deliver(7, func(*int) ([]sseEvent, bool) {
				return []sseEvent{{name: "end"}}, true
			})

			var got []sseEvent
			for len(slow) > 0 {
				got = append(got, <-slow)
			}
			if len(got) == 0 || got[len(got)-1].name != "end" {
				t.Fatalf("the stream's events end with %v, want the end", got)
			}
			logs := len(got) - 1
			if want := min(behind, watchBuffer-1); logs != want {
				t.Errorf("%d log events kept before the end, want %d", logs, want)
			}
			if len(other) != 0 {
				t.Errorf("a stream of another topic got %d events", len(other))
			}
			// The topic is over: a later event reaches nobody.
			f.deliver(7, func(*int) ([]sseEvent, bool) {
				t.Error("an ended topic is still followed")
				return nil, false
			})
		})
	}
}
