package sandbox

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"time"
)

// ParsePressure reads the total of the line named line ("some" or "full")
// of a pressure stall file (/proc/pressure/cpu, a cgroup's cpu.pressure):
// how long at least one task waited ("some"), or how long all of them
// waited and none ran ("full", meaningful for a cgroup only). ok is false
// when the file has no such line.
func ParsePressure(b []byte, line string) (total time.Duration, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != line {
			continue
		}
		for _, f := range fields[1:] {
			if v, found := strings.CutPrefix(f, "total="); found {
				us, err := strconv.ParseInt(v, 10, 64)
				return time.Duration(us) * time.Microsecond, err == nil
			}
		}
	}
	return 0, false
}
