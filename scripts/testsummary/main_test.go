package main

import (
	"slices"
	"strings"
	"testing"
)

// TestSummarise feeds a recorded go test -json stream: passing tests stay
// quiet, a failing test's output is shown, skips are counted with their
// reasons, and a line that is not JSON goes through as it is.
func TestSummarise(t *testing.T) {
	stream := `# a build message
{"Action":"run","Package":"p","Test":"TestPass"}
{"Action":"output","Package":"p","Test":"TestPass","Output":"=== RUN   TestPass\n"}
{"Action":"output","Package":"p","Test":"TestPass","Output":"    p_test.go:5: quiet\n"}
{"Action":"pass","Package":"p","Test":"TestPass","Elapsed":2.5}
{"Action":"output","Package":"p","Test":"TestSkip","Output":"    p_test.go:7: earlier log\n"}
{"Action":"output","Package":"p","Test":"TestSkip","Output":"    p_test.go:8: testenv: skipped without bubblewrap: not found\n"}
{"Action":"output","Package":"p","Test":"TestSkip","Output":"--- SKIP: TestSkip (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestSkip"}
{"Action":"output","Package":"p","Test":"TestFail","Output":"    p_test.go:9: boom\n"}
{"Action":"run","Package":"p","Test":"TestFail/sub"}
{"Action":"pass","Package":"p","Test":"TestFail/sub","Elapsed":7}
{"Action":"fail","Package":"p","Test":"TestFail","Elapsed":7.25}
{"Action":"output","Package":"p","Output":"PASS\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}
{"Action":"fail","Package":"p"}
`
	var out strings.Builder
	res := summarise(strings.NewReader(stream), &out)
	skips := res.skips
	wantTimes := []timing{{"p", "TestPass", 2.5}, {"p", "TestFail", 7.25}}
	if !slices.Equal(res.timings, wantTimes) {
		t.Errorf("timings %+v, want %+v", res.timings, wantTimes)
	}
	var slow strings.Builder
	slowest(&slow, res.timings, 1)
	if want := "\nthe 1 slowest tests\n      7.2s  p TestFail\n"; slow.String() != want {
		t.Errorf("slowest: %q, want %q", slow.String(), want)
	}
	if len(skips) != 1 || skips[0].Test != "TestSkip" || skips[0].Reason != "testenv: skipped without bubblewrap: not found" {
		t.Errorf("skips %+v", skips)
	}
	got := out.String()
	for _, want := range []string{"# a build message\n", "p_test.go:9: boom", "FAIL\tp\t0.1s"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"quiet", "PASS\n", "earlier log"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("output has %q:\n%s", unwanted, got)
		}
	}
	var rep strings.Builder
	report(&rep, skips)
	if !strings.Contains(rep.String(), "1 tests skipped") || !strings.Contains(rep.String(), "p TestSkip") {
		t.Errorf("report:\n%s", rep.String())
	}
}
