//go:build linux && amd64

package sandbox

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// setuidFilter is a seccomp program that refuses to create or chmod a file
// with the setuid or setgid bit. Inside the sandbox a command's files belong
// to the worker's host user (often root); a setuid copy of a shell left in a
// bot folder would be a way up for anyone on the host. Also refused: 32-bit
// and x32 system calls (whose numbers differ) and openat2, whose mode cannot
// be inspected (programs fall back to openat).
func setuidFilter() []byte {
	const (
		offNr   = 0
		offArch = 4
		deny    = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		nosys   = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		allow   = unix.SECCOMP_RET_ALLOW
		bits    = unix.S_ISUID | unix.S_ISGID
	)
	// System call number and the index of its mode argument.
	modeArg := []struct{ nr, arg uint32 }{
		{unix.SYS_CHMOD, 1}, {unix.SYS_FCHMOD, 1}, {unix.SYS_FCHMODAT, 2}, {452 /* fchmodat2 */, 2},
		{unix.SYS_OPEN, 2}, {unix.SYS_OPENAT, 3}, {unix.SYS_CREAT, 1},
		{unix.SYS_MKNOD, 1}, {unix.SYS_MKNODAT, 2},
	}
	var prog []unix.SockFilter
	stmt := func(code uint16, k uint32) { prog = append(prog, unix.SockFilter{Code: code, K: k}) }
	// Jumps are resolved once the length is known: targets are labels.
	type jmp struct {
		at     int
		jt, jf int // -1 allow, -2 deny, -3 nosys, >= 0 next instruction
	}
	var jumps []jmp
	jump := func(code uint16, k uint32, jt, jf int) {
		jumps = append(jumps, jmp{len(prog), jt, jf})
		prog = append(prog, unix.SockFilter{Code: code, K: k})
	}
	const next, toAllow, toDeny, toNosys = 0, -1, -2, -3
	stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AUDIT_ARCH_X86_64, next, toDeny)
	stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, 0x40000000, toDeny, next)
	jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_OPENAT2, toNosys, next)
	for _, m := range modeArg {
		// If the number matches, load the low word of the mode and test it;
		// otherwise skip those two instructions.
		jumps = append(jumps, jmp{len(prog), next, 2})
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: m.nr})
		stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, 16+8*m.arg)
		jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, bits, toDeny, toAllow)
		// After the JSET the number in the accumulator is gone, so each
		// matched call ends there; unmatched calls reload nothing and go on.
	}
	allowAt := len(prog)
	stmt(unix.BPF_RET|unix.BPF_K, allow)
	denyAt := len(prog)
	stmt(unix.BPF_RET|unix.BPF_K, deny)
	nosysAt := len(prog)
	stmt(unix.BPF_RET|unix.BPF_K, nosys)
	target := func(from, label int) uint8 {
		switch label {
		case toAllow:
			return uint8(allowAt - from - 1)
		case toDeny:
			return uint8(denyAt - from - 1)
		case toNosys:
			return uint8(nosysAt - from - 1)
		}
		return uint8(label)
	}
	for _, j := range jumps {
		prog[j.at].Jt = target(j.at, j.jt)
		prog[j.at].Jf = target(j.at, j.jf)
	}
	out := make([]byte, 0, 8*len(prog))
	for _, f := range prog {
		out = binary.LittleEndian.AppendUint16(out, f.Code)
		out = append(out, f.Jt, f.Jf)
		out = binary.LittleEndian.AppendUint32(out, f.K)
	}
	return out
}
