// Command guestinit is the first process of the cgroup v2 test guest
// (scripts/cgroup2): it loads the modules the guest needs, mounts the
// host's root read-only over 9p as its own, and the test folder
// read-write, brings up the network, runs the guest's script and powers
// the machine off. The kernel boots with cgroup v1 disabled, so every
// process sees cgroup v2 only, as on a current distribution.
//
// Its settings come from the kernel command line: broadside.script (the
// script to run), broadside.work (the shared folder, also where the
// script's exit status is written) and broadside.modules (the module
// files, in load order, inside the initramfs).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	start := time.Now()
	err := run()
	if err != nil {
		fmt.Fprintf(os.Stderr, "guestinit: %v\n", err)
	}
	fmt.Printf("guestinit: done after %s\n", time.Since(start).Round(time.Millisecond))
	unix.Sync()
	_ = unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}

func run() error {
	if err := mountAll([]mnt{
		{"proc", "/proc", "proc", 0, ""},
		{"sysfs", "/sys", "sysfs", 0, ""},
		{"devtmpfs", "/dev", "devtmpfs", 0, ""},
	}); err != nil {
		return err
	}
	args, err := kernelArgs()
	if err != nil {
		return err
	}
	for _, m := range strings.Split(args["broadside.modules"], ",") {
		if m == "" {
			continue
		}
		if err := insmod(m); err != nil {
			return err
		}
	}
	if err := os.MkdirAll("/newroot", 0o755); err != nil {
		return err
	}
	// The host's root, read-only: its programs, the repository and the
	// test binaries at the same paths as on the host.
	if err := mount9p("hostroot", "/newroot", unix.MS_RDONLY, "cache=loose"); err != nil {
		return err
	}
	if err := switchRoot("/newroot"); err != nil {
		return err
	}
	if err := mountAll([]mnt{
		{"proc", "/proc", "proc", 0, ""},
		{"sysfs", "/sys", "sysfs", 0, ""},
		{"cgroup2", "/sys/fs/cgroup", "cgroup2", 0, "nsdelegate"},
		{"devtmpfs", "/dev", "devtmpfs", 0, ""},
		{"devpts", "/dev/pts", "devpts", 0, "newinstance,ptmxmode=0666"},
		{"tmpfs", "/dev/shm", "tmpfs", 0, ""},
		{"tmpfs", "/tmp", "tmpfs", 0, "mode=1777"},
		{"tmpfs", "/run", "tmpfs", 0, "mode=755"},
		{"tmpfs", "/var/tmp", "tmpfs", 0, "mode=1777"},
	}); err != nil {
		return err
	}
	// After /tmp's tmpfs, which the shared folder may lie in.
	work := args["broadside.work"]
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if err := mount9p("work", work, 0, "cache=none"); err != nil {
		return err
	}
	// The repository again, read-only at its own path: a clone in /tmp
	// or /var/tmp is hidden by their tmpfs above.
	repo := args["broadside.repo"]
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	if err := mount9p("repo", repo, unix.MS_RDONLY, "cache=loose"); err != nil {
		return err
	}
	if err := network(); err != nil {
		return err
	}
	fmt.Printf("guestinit: %s\n", strings.TrimSpace(string(must(os.ReadFile("/proc/self/cgroup")))))
	cmd := exec.Command("/bin/bash", args["broadside.script"])
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	cmd.Env = []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=/root", "USER=root", "LANG=C.UTF-8", "TMPDIR=/tmp",
		// The home folder is read-only here.
		"XDG_CACHE_HOME=/tmp/cache", "GOCACHE=/tmp/gocache",
		"BROADSIDE_WORK=" + work,
	}
	code := 0
	if err := cmd.Run(); err != nil {
		code = 1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		fmt.Printf("guestinit: script: %v\n", err)
	}
	return os.WriteFile(filepath.Join(work, "exit-code"), []byte(strconv.Itoa(code)+"\n"), 0o644)
}

type mnt struct {
	source, target, fstype string
	flags                  uintptr
	data                   string
}

func mountAll(ms []mnt) error {
	for _, m := range ms {
		if err := os.MkdirAll(m.target, 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("mkdir %s: %w", m.target, err)
		}
		if err := unix.Mount(m.source, m.target, m.fstype, m.flags, m.data); err != nil {
			return fmt.Errorf("mount %s on %s: %w", m.fstype, m.target, err)
		}
	}
	return nil
}

func mount9p(tag, target string, flags uintptr, extra string) error {
	opts := "trans=virtio,version=9p2000.L,msize=1048576,access=any," + extra
	if err := unix.Mount(tag, target, "9p", flags, opts); err != nil {
		return fmt.Errorf("mount 9p %s on %s: %w", tag, target, err)
	}
	return nil
}

// switchRoot makes dir the root, as switch_root does: the initramfs
// cannot be pivoted away from, so the new root is moved over it.
func switchRoot(dir string) error {
	if err := unix.Chdir(dir); err != nil {
		return err
	}
	if err := unix.Mount(dir, "/", "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("move %s to /: %w", dir, err)
	}
	if err := unix.Chroot("."); err != nil {
		return fmt.Errorf("chroot: %w", err)
	}
	return unix.Chdir("/")
}

func insmod(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.FinitModule(int(f.Fd()), "", 0); err != nil && err != unix.EEXIST {
		return fmt.Errorf("load %s: %w", path, err)
	}
	return nil
}

// network brings up loopback and the first Ethernet device with QEMU's
// user-mode address: the host answers at 10.0.2.2.
func network() error {
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "set", "eth0", "up"},
		{"addr", "add", "10.0.2.15/24", "dev", "eth0"},
		{"route", "add", "default", "via", "10.0.2.2"},
	} {
		if out, err := exec.Command("/usr/sbin/ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

func kernelArgs() (map[string]string, error) {
	b, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range strings.Fields(string(b)) {
		k, v, _ := strings.Cut(f, "=")
		out[k] = v
	}
	return out, nil
}

func must(b []byte, err error) []byte {
	if err != nil {
		return []byte(err.Error())
	}
	return b
}
