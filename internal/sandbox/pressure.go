package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// ParsePressure reads the total of the line named line ("some" or "full")
// of a pressure stall file (/proc/pressure/cpu, a cgroup's cpu.pressure):
// how long at least one task waited ("some"), or how long all of them
// waited and none ran ("full", meaningful for a cgroup only). ok is false
// when the file has no such line.
func ParsePressure(b []byte, line string) (total time.Duration, ok bool) {
	// Read at every turn's start and end: split in place, where a
	// bufio.Scanner allocated its 4 KiB buffer each time.
	for l := range bytes.Lines(b) {
		name, rest, _ := bytes.Cut(bytes.TrimSpace(l), []byte(" "))
		if string(name) != line {
			continue
		}
		for _, f := range bytes.Fields(rest) {
			if v, found := bytes.CutPrefix(f, []byte("total=")); found {
				us, err := strconv.ParseInt(string(v), 10, 64)
				return time.Duration(us) * time.Microsecond, err == nil
			}
		}
	}
	return 0, false
}

// PressureFile is a pressure stall file kept open. Each reading is one
// pread, where reading the file afresh also opens and closes it: a worker
// reads the machine's before every turn of every bot.
type PressureFile struct {
	f *os.File
}

// OpenPressure opens the pressure file at path (/proc/pressure/cpu).
func OpenPressure(path string) (*PressureFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return &PressureFile{f: f}, nil
}

// Total reads the total of line ("some" or "full") as ParsePressure does;
// ok is false for a nil PressureFile, as where the kernel has no PSI.
func (p *PressureFile) Total(line string) (time.Duration, bool) {
	if p == nil {
		return 0, false
	}
	// Two lines of five fields each: under 160 bytes at any value.
	var buf [256]byte
	n, err := p.f.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	return ParsePressure(buf[:n], line)
}

// Close closes the file.
func (p *PressureFile) Close() error {
	if p == nil {
		return nil
	}
	return p.f.Close()
}
