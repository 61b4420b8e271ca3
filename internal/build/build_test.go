package build

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/sandbox"
)

// runner confines builds with bubblewrap where the machine can, as the
// worker does, else runs them on the host.
func runner(t *testing.T) sandbox.Runner {
	t.Helper()
	if sandbox.Probe(context.Background()).Enforced() {
		b, err := sandbox.NewBwrap(sandbox.BwrapConfig{DiskBytes: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Log("bubblewrap cannot confine here: building on the host")
	return sandbox.NewHost(sandbox.HostConfig{})
}

// copyDir copies a bot folder into a fresh temporary folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "bot")
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v %s", src, err, out)
	}
	return dst
}

func writeBot(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bot")
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBuild(t *testing.T) {
	r := runner(t)
	b := New(r)
	starters := "../../bots/"
	tests := []struct {
		name    string
		dir     func(t *testing.T) string
		tools   []string
		wantOK  bool
		wantLog string
	}{
		{"python starter", func(t *testing.T) string { return copyDir(t, starters+"entelect-python3") }, []string{"python3"}, true, "py_compile"},
		{"javascript starter", func(t *testing.T) string { return copyDir(t, starters+"entelect-javascript") }, []string{"node"}, true, "--check"},
		{"java starter with Makefile", func(t *testing.T) string { return copyDir(t, starters+"entelect-java") }, []string{"javac", "make"}, true, "make"},
		{"c++ starter with Makefile", func(t *testing.T) string { return copyDir(t, starters+"entelect-cplusplus") }, []string{"g++", "make"}, true, "g++"},
		{"go reference bot", func(t *testing.T) string { return copyDir(t, starters+"entelect-go-reference") }, []string{"go"}, true, "go build"},
		{"plain c++ sources", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CPlusPlus","RunFile":"bot"}`,
				"main.cpp": "#include <cstdio>\nint main(){std::puts(\"hi\");}\n"})
		}, []string{"g++"}, true, "-std=c++17"},
		{"plain java sources", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Java","RunFile":"out/bot.jar"}`,
				"src/a/Main.java": "package a;\npublic class Main { public static void main(String[] x) { System.out.println(1); } }\n"})
		}, []string{"javac"}, true, "a.Main"},
		{"python syntax error fails with the compiler's message", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Python3","RunFile":"bot.py"}`, "bot.py": "def broken(:\n"})
		}, []string{"python3"}, false, "SyntaxError"},
		{"c++ compile error fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CPlusPlus","RunFile":"bot"}`, "main.cpp": "int main( {"})
		}, []string{"g++"}, false, "exited with status"},
		{"compiled bot whose build makes no RunFile fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"CPlusPlus","RunFile":"other"}`, "Makefile": "all:\n\techo nothing\n"})
		}, []string{"make"}, false, "RunFile other does not exist"},
		{"missing ProjectLocation fails", func(t *testing.T) string {
			return writeBot(t, map[string]string{"bot.json": `{"BotType":"Python3","RunFile":"bot.py","ProjectLocation":"nope"}`, "bot.py": ""})
		}, nil, false, "ProjectLocation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, tool := range tc.tools {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed", tool)
				}
			}
			dir := tc.dir(t)
			m, err := botmeta.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.Build(context.Background(), dir, m)
			if err != nil {
				t.Fatalf("platform error: %v", err)
			}
			if res.OK != tc.wantOK || !strings.Contains(res.Log, tc.wantLog) {
				t.Fatalf("OK=%v (want %v), log lacks %q:\n%s", res.OK, tc.wantOK, tc.wantLog, res.Log)
			}
		})
	}
}

func TestPackUnpack(t *testing.T) {
	src := writeBot(t, map[string]string{"bot.py": "x", "lib/a.txt": "aaa"})
	os.Chmod(filepath.Join(src, "bot.py"), 0o755)
	os.Symlink("lib/a.txt", filepath.Join(src, "inside"))
	os.Symlink("/etc/passwd", filepath.Join(src, "outside"))
	os.Symlink("../../x", filepath.Join(src, "lib", "up"))
	var buf bytes.Buffer
	if err := Pack(src, &buf); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := Unpack(bytes.NewReader(buf.Bytes()), dst); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "inside")); err != nil || string(got) != "aaa" {
		t.Fatalf("inside link: %q %v", got, err)
	}
	for _, gone := range []string{"outside", "lib/up"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); !os.IsNotExist(err) {
			t.Errorf("%s: link leaving the folder was packed", gone)
		}
	}
	if st, _ := os.Stat(filepath.Join(dst, "bot.py")); st.Mode()&0o100 == 0 {
		t.Error("executable bit lost")
	}
	t.Run("corrupt archive leaves nothing", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "x")
		if err := Unpack(bytes.NewReader(buf.Bytes()[:buf.Len()/2]), out); err == nil {
			t.Fatal("accepted a truncated archive")
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatal("folder left behind")
		}
	})
}
