// Command testsummary runs `go test -json`, prints what plain `go test`
// would (each package's result and the output of failed tests), and ends
// with the slowest tests and how many tests skipped and why. It exits with go test's status, or
// 1 when more tests skipped than -max-skips allows.
//
//	go run ./scripts/testsummary [-max-skips=N] -- go test -json ./...
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
	Elapsed    float64 // seconds, on pass and fail
}

// timing is how long one top-level test ran.
type timing struct {
	Package, Test string
	Seconds       float64
}

// result is what the summary ends with.
type result struct {
	skips   []skip
	timings []timing
}

// skip is one skipped test and the message it skipped with.
type skip struct {
	Package, Test, Reason string
}

func main() {
	maxSkips := flag.Int("max-skips", -1, "fail when more tests skipped than this; -1: no limit")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: testsummary [-max-skips=N] -- go test -json [flags] [packages]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	res := summarise(stdout, os.Stdout)
	skips := res.skips
	code := 0
	if err := cmd.Wait(); err != nil {
		code = 1
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() > 0 {
			code = ee.ExitCode()
		}
	}
	slowest(os.Stdout, res.timings, 10)
	report(os.Stdout, skips)
	if *maxSkips >= 0 && len(skips) > *maxSkips {
		fmt.Printf("FAIL: %d tests skipped, at most %d allowed\n", len(skips), *maxSkips)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// summarise copies the readable part of the event stream to w and returns
// the skipped tests and the top-level tests' times. Lines that are not
// JSON (a build's own messages) are copied as they are.
func summarise(r io.Reader, w io.Writer) result {
	// Output of running tests, kept until they end: shown when they fail,
	// searched for the reason when they skip, dropped when they pass.
	pending := map[string][]string{}
	key := func(e event) string { return e.Package + "\x00" + e.Test }
	var skips []skip
	var timings []timing
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Test == "" && e.Action == "output":
			// Output of tests that never ended (a timeout's panic) comes
			// before the package's FAIL line rather than being lost.
			if strings.HasPrefix(e.Output, "FAIL\t") {
				flush(w, pending, e.Package, true)
			}
			// The test binary's own PASS line, which plain go test of
			// several packages leaves out.
			if e.Output != "PASS\n" {
				fmt.Fprint(w, e.Output)
			}
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			flush(w, pending, e.Package, e.Action == "fail")
		case e.Action == "output":
			pending[key(e)] = append(pending[key(e)], e.Output)
		case e.Action == "fail":
			fmt.Fprint(w, strings.Join(pending[key(e)], ""))
			delete(pending, key(e))
			timings = addTiming(timings, e)
		case e.Action == "skip":
			skips = append(skips, skip{e.Package, e.Test, reason(pending[key(e)])})
			delete(pending, key(e))
		case e.Action == "pass":
			delete(pending, key(e))
			timings = addTiming(timings, e)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(w, "testsummary: reading go test's output: %v\n", err)
	}
	return result{skips: skips, timings: timings}
}

// addTiming records e's time when e ends a top-level test: a subtest's
// time is part of its parent's.
func addTiming(timings []timing, e event) []timing {
	if strings.Contains(e.Test, "/") {
		return timings
	}
	return append(timings, timing{e.Package, e.Test, e.Elapsed})
}

// slowest prints the n slowest tests, slowest first: where a suite's time
// goes.
func slowest(w io.Writer, timings []timing, n int) {
	sorted := append([]timing(nil), timings...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Seconds > sorted[j].Seconds })
	if len(sorted) > n {
		sorted = sorted[:n]
	}
	if len(sorted) == 0 {
		return
	}
	fmt.Fprintf(w, "\nthe %d slowest tests\n", len(sorted))
	for _, t := range sorted {
		fmt.Fprintf(w, "  %7.1fs  %s %s\n", t.Seconds, t.Package, t.Test)
	}
}

// flush drops the output kept for pkg's tests that have not ended,
// printing it first when show is set.
func flush(w io.Writer, pending map[string][]string, pkg string, show bool) {
	var left []string
	for k := range pending {
		if strings.HasPrefix(k, pkg+"\x00") {
			left = append(left, k)
		}
	}
	sort.Strings(left)
	for _, k := range left {
		if show {
			fmt.Fprint(w, strings.Join(pending[k], ""))
		}
		delete(pending, k)
	}
}

// logLine is a test's log line as `go test -v` prints it.
var logLine = regexp.MustCompile(`^\s+\S+\.go:\d+: `)

// reason is the last message a skipped test logged: what it passed to
// t.Skip.
func reason(output []string) string {
	for i := len(output) - 1; i >= 0; i-- {
		if loc := logLine.FindStringIndex(output[i]); loc != nil {
			return strings.TrimSpace(output[i][loc[1]:])
		}
	}
	return "(no reason given)"
}

// report prints the skip count and the skipped tests, grouped by reason.
func report(w io.Writer, skips []skip) {
	fmt.Fprintf(w, "\n%d tests skipped\n", len(skips))
	byReason := map[string][]string{}
	var reasons []string
	for _, s := range skips {
		if byReason[s.Reason] == nil {
			reasons = append(reasons, s.Reason)
		}
		byReason[s.Reason] = append(byReason[s.Reason], s.Package+" "+s.Test)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if a, b := len(byReason[reasons[i]]), len(byReason[reasons[j]]); a != b {
			return a > b
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		fmt.Fprintf(w, "  %d: %s\n", len(byReason[r]), r)
		for _, t := range byReason[r] {
			fmt.Fprintf(w, "      %s\n", t)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "testsummary:", err)
	os.Exit(2)
}
