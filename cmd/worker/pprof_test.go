package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestServePprof: the profiler answers on the address it was given, and
// the index lists the profiles an operator takes.
func TestServePprof(t *testing.T) {
	stop, addr, err := servePprofOn("127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine") || !strings.Contains(string(body), "profile") {
		t.Fatalf("%s:\n%.500s", resp.Status, body)
	}
	if _, _, err := servePprofOn(addr, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "WORKER_PPROF_ADDR") {
		t.Fatalf("a second listener on %s: %v, want an error naming WORKER_PPROF_ADDR", addr, err)
	}
}
