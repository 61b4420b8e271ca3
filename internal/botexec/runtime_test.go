package botexec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRustup makes a rustup home and a cargo bin folder whose cargo and
// rustc are proxies (symlinks or hard links to rustup), with a real-looking
// cargo and rustc in each named toolchain.
func fakeRustup(t *testing.T, hardLinks bool, toolchains ...string) (home, bin string) {
	t.Helper()
	root := t.TempDir()
	home, bin = filepath.Join(root, "rustup"), filepath.Join(root, "cargo", "bin")
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "rustup"))
	for _, name := range []string{"cargo", "rustc"} {
		link := os.Symlink
		if hardLinks {
			link = os.Link
		}
		if err := link(filepath.Join(bin, "rustup"), filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, "toolchains"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range toolchains {
		write(filepath.Join(home, "toolchains", tc, "bin", "cargo"))
		write(filepath.Join(home, "toolchains", tc, "bin", "rustc"))
	}
	t.Setenv("PATH", bin)
	t.Setenv("RUSTUP_HOME", home)
	t.Setenv("RUSTUP_TOOLCHAIN", "")
	return home, bin
}

// TestRustupProxy checks that cargo and rustc resolve to the toolchain
// rustup would run, since the proxies cannot work inside the sandbox.
func TestRustupProxy(t *testing.T) {
	const host = "-x86_64-unknown-linux-gnu"
	tests := []struct {
		name       string
		hardLinks  bool
		toolchains []string
		settings   string
		env        string
		want       string // toolchain; empty: an error
	}{
		{"default toolchain", false, []string{"stable" + host, "nightly" + host}, `default_toolchain = "nightly` + host + `"`, "", "nightly" + host},
		{"default toolchain without host triple", false, []string{"1.80.0" + host, "beta" + host}, "version = \"12\"\ndefault_toolchain = \"beta\"\n", "", "beta" + host},
		{"hard-linked proxies", true, []string{"stable" + host}, `default_toolchain = "stable` + host + `"`, "", "stable" + host},
		{"RUSTUP_TOOLCHAIN overrides the default", false, []string{"stable" + host, "nightly" + host}, `default_toolchain = "stable` + host + `"`, "nightly" + host, "nightly" + host},
		{"no settings: stable first", false, []string{"nightly" + host, "1.90.0" + host, "stable" + host}, "", "", "stable" + host},
		{"no settings: highest release", false, []string{"nightly" + host, "1.9.0" + host, "1.75.1" + host}, "", "", "1.75.1" + host},
		{"default toolchain not installed: newest", false, []string{"1.70.0" + host}, `default_toolchain = "stable"`, "", "1.70.0" + host},
		{"no toolchain", false, nil, `default_toolchain = "stable"`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, bin := fakeRustup(t, tt.hardLinks, tt.toolchains...)
			if tt.settings != "" {
				if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(tt.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("RUSTUP_TOOLCHAIN", tt.env)
			rt := NewRuntimes()
			for _, program := range []string{"cargo", "rustc"} {
				got, err := rt.Find("Rust", program)
				if tt.want == "" {
					if err == nil || !errors.Is(err, errUnresolved) || !strings.Contains(err.Error(), "rustup proxy") {
						t.Fatalf("Find(%s) = %q, %v; want a rustup proxy error", program, got, err)
					}
					var missing *MissingRuntimeError
					if errors.As(err, &missing) {
						t.Fatalf("a proxy without toolchain reads as not installed: %v", err)
					}
					continue
				}
				if want := filepath.Join(home, "toolchains", tt.want, "bin", program); err != nil || got != want {
					t.Fatalf("Find(%s) = %q, %v; want %q", program, got, err, want)
				}
			}
			// rustup itself is no proxy.
			if got, err := rt.Find("Rust", "rustup"); err != nil || got != filepath.Join(bin, "rustup") {
				t.Fatalf("Find(rustup) = %q, %v", got, err)
			}
		})
	}
}

// TestNotAProxy checks that an ordinary program next to no rustup, or a
// copy of rustup's bytes that is not rustup, is left as it is.
func TestNotAProxy(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"cargo", "rustup"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv("RUSTUP_HOME", t.TempDir())
	got, err := NewRuntimes().Find("Rust", "cargo")
	if want := filepath.Join(bin, "cargo"); err != nil || got != want {
		t.Fatalf("Find = %q, %v; want %q", got, err, want)
	}
}
