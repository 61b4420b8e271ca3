package sandbox

import "sync"

// capBuffer keeps the first max bytes written to it and reads and drops the
// rest, so a command flooding its output never blocks on a full pipe and
// never grows the worker's memory.
type capBuffer struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool
}

func newCapBuffer(max int) *capBuffer {
	return &capBuffer{max: max}
}

// Write never fails, so the copying goroutine of os/exec keeps draining the
// pipe after the cap is reached.
func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.max <= 0 {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	room := b.max - len(b.buf)
	if room >= len(p) {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	if room > 0 {
		b.buf = append(b.buf, p[:room]...)
	}
	b.truncated = true
	return len(p), nil
}

// bytes returns a copy of what was kept and whether anything was dropped.
func (b *capBuffer) bytes() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]byte, len(b.buf))
	copy(out, b.buf)
	return out, b.truncated
}
