package build

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFetchFolder checks what a download's fresh folder holds: the
// manifests at their paths, empty stand-ins for the stubs, nothing from
// hidden or dependency folders, no link; and that the results replace
// what the bot shipped at their paths.
func TestFetchFolder(t *testing.T) {
	work := writeBot(t, map[string]string{
		"Cargo.toml": "[workspace]\n", "Cargo.lock": "lock", "src/main.rs": "fn main() {}",
		"crates/a/Cargo.toml": "[package]", "crates/a/src/lib.rs": "pub fn a() {}", "crates/a/build.rs": "",
		".cargo/config.toml": "[build]\nrustc-wrapper = \"x\"\n", "target/debug/Cargo.toml": "", "vendor/v/Cargo.toml": "",
		"node_modules/m/Cargo.toml": "", ".cargo-home/registry/x": "shipped",
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(work, "crates", "Cargo.toml")); err != nil {
		t.Fatal(err)
	}
	f := &fetch{tool: "cargo", manifests: []string{"Cargo.toml", "Cargo.lock"}, stubs: []string{"src/main.rs", "src/lib.rs"},
		results: []string{cargoHome, "Cargo.lock"}}
	root, copied, err := f.newFetchRoot(t.TempDir(), work)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Cargo.lock", "Cargo.toml", "crates/a/Cargo.toml"}; !slices.Equal(copied, want) {
		t.Errorf("copied %v, want %v", copied, want)
	}
	var found []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			found = append(found, filepath.ToSlash(rel))
			if info, _ := d.Info(); d.Name() == "main.rs" || d.Name() == "lib.rs" {
				if info.Size() != 0 {
					t.Errorf("%s is not empty", rel)
				}
			}
		}
		return nil
	})
	if want := []string{"Cargo.lock", "Cargo.toml", "crates/a/Cargo.toml", "crates/a/src/lib.rs", "src/main.rs"}; !slices.Equal(found, want) {
		t.Errorf("fresh folder holds %v, want %v", found, want)
	}

	// The download wrote a lock and a cargo home.
	os.WriteFile(filepath.Join(root, "Cargo.lock"), []byte("new lock"), 0o644)
	os.MkdirAll(filepath.Join(root, cargoHome, "registry"), 0o755)
	os.WriteFile(filepath.Join(root, cargoHome, "registry", "y"), []byte("downloaded"), 0o644)
	if err := f.collect(root, work); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "Cargo.lock")); string(got) != "new lock" {
		t.Errorf("Cargo.lock: %q", got)
	}
	if _, err := os.Stat(filepath.Join(work, cargoHome, "registry", "x")); !os.IsNotExist(err) {
		t.Errorf("the bot's own %s survived the download's: %v", cargoHome, err)
	}
	if got, _ := os.ReadFile(filepath.Join(work, cargoHome, "registry", "y")); string(got) != "downloaded" {
		t.Errorf("downloaded file: %q", got)
	}
}

// TestCopyTree checks the copy that replaces a move across file systems.
func TestCopyTree(t *testing.T) {
	src := writeBot(t, map[string]string{"node_modules/m/index.js": "x", "node_modules/m/cli.js": "#!/usr/bin/env node\n"})
	os.Chmod(filepath.Join(src, "node_modules/m/cli.js"), 0o755)
	os.MkdirAll(filepath.Join(src, "node_modules/.bin"), 0o755)
	os.Symlink("../m/cli.js", filepath.Join(src, "node_modules/.bin/m"))
	dst := filepath.Join(t.TempDir(), "bot", "node_modules")
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if err := copyTree(filepath.Join(src, "node_modules"), dst); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, ".bin", "m")); err != nil || string(got) != "#!/usr/bin/env node\n" {
		t.Errorf("link: %q %v", got, err)
	}
	if target, _ := os.Readlink(filepath.Join(dst, ".bin", "m")); target != "../m/cli.js" {
		t.Errorf("link target %q", target)
	}
	if st, err := os.Stat(filepath.Join(dst, "m", "cli.js")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("cli.js: %v %v", st, err)
	}
}
