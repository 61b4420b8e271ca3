//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/broadside/broadside/internal/command"
)

// supervisorPath is where the supervisor binary appears in the sandbox.
const supervisorPath = "/.broadside-supervisor"

// Session keeps one sandbox for many commands that share their mounts, such
// as the turns of one bot in one match: a small supervisor inside (the
// worker's own binary) starts each command fresh, enforces its limits and
// kills everything it left before answering. Setting up namespaces and
// mounts is paid once per session instead of once per turn. Commands whose
// mounts are not within the session's, and every command after the session
// broke (its supervisor killed), run in a fresh sandbox instead.
//
// Between commands, /tmp and the mounted folders keep what the previous
// command wrote; processes do not survive. Memory and process limits apply
// to the session's cgroup (the largest of its commands' limits); CPU time is
// measured per command from the cgroup.
type Session struct {
	b      *Bwrap
	mounts []Mount
	limits Limits

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     *os.File
	out    *bufio.Reader
	outF   *os.File
	cg     *cgroupSet
	broken bool
	done   chan struct{}
	// killMu guards exited: once bubblewrap has ended (exited, found
	// without reaping it), its pid, the sandbox's process group, is soon
	// free for any other process on the machine, a bot of another match
	// among them, so breakSession no longer signals the group.
	killMu sync.Mutex
	exited bool
	// stages back the PerCommand mounts (root only).
	stages []stage
	// kept is the previous command's staged mounts, left in place for the
	// next command (see showPlaced).
	kept  []staged
	stats SessionStats
	// forkFailures is the session cgroup's count of forks failed at its
	// process limit, as of the last command's end.
	forkFailures int64
	// nice is the worker's nice value, at which every command runs; the
	// supervisor runs higher (supervisorBoost).
	nice int
	// disk bounds what all the commands write together; nil: no bound.
	disk *sessionDisk
	// tree watches the session's writable folders (own) and each
	// command's for changes, so a command's disk watch walks them only
	// after one; nil without inotify.
	tree *treeWatch
	own  *treeGroup
	// turns watches the previous command's own folders, kept for the next
	// command when it has the same ones (a match's turn folder, the same
	// at every turn): see commandTree.
	turns *treeGroup
	// wrapDisk, set by tests only, wraps each command's disk check.
	wrapDisk func(check func() string) func() string
	// lastEnd is the file clock when the previous command ended, and
	// lastEndFine the fine clock (see countFrom).
	lastEnd, lastEndFine unix.Timespec
	// clock reads the file clock: fileClock, but for tests that hold it
	// in one tick.
	clock func() unix.Timespec
}

// SessionStats counts a session's commands, for the worker's logs: many
// fresh sandboxes mean the session's mounts do not fit its commands.
type SessionStats struct {
	// Commands is how many commands Run was given.
	Commands int
	// Fresh is how many of them ran in a fresh sandbox instead.
	Fresh int
}

// Stats returns the session's counts so far.
func (s *Session) Stats() SessionStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// NewSession starts a sandbox with mounts whose commands get limits (zero
// fields from the runner's defaults).
func (b *Bwrap) NewSession(mounts []Mount, limits Limits) (*Session, error) {
	exe, err := supervisorBinary()
	if err != nil {
		return nil, fmt.Errorf("sandbox: session: %w", err)
	}
	// Every interpreter of the program folders is shown: which of them
	// the session's commands start is not known yet.
	mounts = append(append([]Mount{}, mounts...), b.runtimes.mounts(programDirs())...)
	c, err := absolutePaths(Cmd{Args: []string{supervisorPath}, Mounts: mounts})
	if err != nil {
		return nil, err
	}
	s := &Session{b: b, limits: WithDefaults(limits, b.cfg.TurnDefaults), done: make(chan struct{}), clock: fileClock}
	for _, m := range c.Mounts {
		if !m.PerCommand {
			s.mounts = append(s.mounts, m)
		}
	}
	if s.nice, err = ownNice(); err != nil {
		return nil, fmt.Errorf("sandbox: session: %w", err)
	}
	own := writableDirs(s.mounts)
	s.tree = newTreeWatch()
	if len(own) > 0 {
		s.own = s.tree.watch(own)
	}
	if b.sessionDiskLimit() >= 0 {
		s.disk = &sessionDisk{start: fileClock(), own: own, tree: s.own}
	}
	c.Mounts, s.stages = newStages(c.Mounts)
	c.Mounts = append(c.Mounts, Mount{Source: exe, Target: supervisorPath})
	args, err := b.args(c, s.limits)
	if err != nil {
		s.release()
		return nil, err
	}
	place, err := s.newCgroup()
	if err != nil {
		s.release()
		return nil, fmt.Errorf("sandbox: session: %w", err)
	}
	setup := func(pid int) error {
		boost(pid, s.nice)
		if place != nil {
			return place(pid)
		}
		return nil
	}
	if err := s.startSupervisor(args, setup); err != nil {
		s.release()
		return nil, fmt.Errorf("sandbox: session: %w", err)
	}
	// A first command proves the supervisor answers; without it every
	// command would silently fall back to a fresh sandbox.
	r, err := s.Run(context.Background(), Cmd{Args: []string{"/bin/true"}, Limits: Limits{WallTime: checkWallTime}})
	if err != nil || s.broken || r.ExitCode != 0 {
		s.Close()
		return nil, fmt.Errorf("sandbox: session: the supervisor does not answer (%v, %+v)", err, r)
	}
	return s, nil
}

// supervisorMemory is what the session's memory limit holds beyond its
// commands' for the supervisor.
const supervisorMemory = 64 << 20

// newCgroup creates the session's cgroup, when the runner has cgroups,
// and returns what places the supervisor in it.
func (s *Session) newCgroup() (func(int) error, error) {
	if s.b.cgroups == nil {
		return nil, nil
	}
	sessionLimits := s.limits
	if sessionLimits.MemoryBytes > 0 {
		sessionLimits.MemoryBytes += supervisorMemory
	}
	if sessionLimits.Processes > 0 {
		sessionLimits.Processes += 32 // the supervisor's threads
	}
	cg, err := s.b.cgroups.newCgroupSet(s.b.cgroupName(), sessionLimits)
	if err != nil {
		return nil, err
	}
	s.cg = cg
	return cg.add, nil
}

// startSupervisor starts bubblewrap with args and the supervisor inside,
// connected to the session by a pipe each way.
func (s *Session) startSupervisor(args []string, setup func(int) error) error {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	files = append(files, inR, inW)
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll()
		return err
	}
	files = append(files, outR, outW)
	if s.b.seccomp != nil {
		// The filter applies to the supervisor and, inherited, to every
		// command it starts.
		args = append([]string{"--seccomp", "3"}, args...)
	}
	cmd := exec.Command(s.b.bwrap, args...)
	cmd.Env = append(minimalEnv(sandboxPath, "/tmp", nil), supervisorEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if s.b.seccomp != nil {
		filter, err := s.b.seccompPipe()
		if err != nil {
			closeAll()
			return err
		}
		defer filter.Close()
		cmd.ExtraFiles = []*os.File{filter}
	}
	err = startLimited(cmd, nil, setup)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return err
	}
	s.cmd, s.in, s.outF, s.out = cmd, inW, outR, bufio.NewReader(outR)
	go func() {
		// Wait without reaping first: until bubblewrap is reaped its pid
		// can be no other's, so a breakSession before then still kills
		// only this sandbox's group.
		waitUnreaped(cmd.Process.Pid)
		s.killMu.Lock()
		s.exited = true
		s.killMu.Unlock()
		_ = cmd.Wait()
		close(s.done)
	}()
	return nil
}

// release removes what NewSession made before the sandbox started:
// the cgroups and the stages.
func (s *Session) release() {
	// Closing an inotify instance waits for a grace period: not at the
	// end of every match.
	go s.tree.close()
	if s.cg != nil {
		s.cg.remove()
	}
	for _, st := range s.stages {
		st.remove()
	}
	s.stages = nil
}

// fresh is c for a fresh sandbox: with the session's own mounts, which the
// command's working directory and program may be in, and the session's
// limits where c sets none. Without them a bot that broke its session
// would play its next turns with no memory or process limit.
func (s *Session) fresh(c Cmd) Cmd {
	s.stats.Fresh++
	c.Mounts = append(append([]Mount{}, s.mounts...), c.Mounts...)
	c.Limits = WithDefaults(c.Limits, s.limits)
	return c
}

// Run runs c in the session's sandbox, or in a fresh one when it cannot.
func (s *Session) Run(ctx context.Context, c Cmd) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(c.Args) == 0 {
		return Result{}, errors.New("sandbox: empty command")
	}
	c, err := absolutePaths(c)
	if err != nil {
		return Result{}, err
	}
	s.stats.Commands++
	spent := int64(-1)
	if s.disk != nil {
		s.disk.settle()
	}
	since := s.countFrom()
	defer s.ended()
	if s.disk != nil {
		limit := s.b.sessionDiskLimit()
		if s.disk.spent > limit {
			return Result{ExitCode: -1, Stderr: []byte("sandbox: not run: earlier commands " + sessionDiskReason(limit) + "\n")}, nil
		}
		spent = s.disk.spent
		defer s.disk.account(c.Mounts, since, limit)
	}
	placed, ok := s.place(c.Mounts)
	if s.broken || c.Network || !ok {
		return s.b.Run(ctx, s.fresh(c))
	}
	visible := append(append([]Mount{}, s.mounts...), c.Mounts...)
	if err := s.check(c, visible); err != nil {
		if errors.Is(err, command.ErrPlatform) {
			// A program the session does not show: a fresh sandbox
			// shows it, or says why it cannot.
			return s.b.Run(ctx, s.fresh(c))
		}
		return Result{}, err
	}
	if err := s.showPlaced(placed); err != nil {
		return Result{}, err
	}
	defer func() { s.kept = placed }()
	limits := WithDefaults(c.Limits, s.limits)
	req, err := s.request(c, limits)
	if err != nil {
		return Result{}, err
	}
	w := newTurnWatch(s.cg)
	// The command's own folders are watched from before it starts.
	trees := []*treeGroup{s.own}
	if extra := commandDirs(writableDirs(s.mounts), c.Mounts); len(extra) > 0 {
		trees = append(trees, s.commandTree(extra))
	}
	dw := s.b.newDiskWatcher(visible, since, spent, trees...)
	var disk func() string
	if dw != nil {
		disk = dw.check
	}
	if s.wrapDisk != nil {
		disk = s.wrapDisk(disk)
	}
	start := time.Now()
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		s.breakSession()
		return s.b.Run(ctx, s.fresh(c))
	}
	r, over, err := s.await(ctx, limits, w, dw, disk, start)
	if err != nil {
		return Result{}, err
	}
	s.measure(&r, w, over)
	return r, nil
}

// countFrom returns what the next command's walks count, read before it
// starts: whatever it writes is stamped later. A file the previous command
// wrote in its last tick of the file clock must not count again for this
// one (two turns of 900 KB were taken for one of 1.8 MB). When this
// command starts in that tick, the session's watch tells which files
// changed since; only without one does the command wait for the next tick
// (a few milliseconds on the round's critical path).
func (s *Session) countFrom() changedSince {
	now := s.clock()
	if before(s.lastEnd, now) {
		// The previous command's record, if any, is no longer needed: its
		// walks ended (settle).
		s.tree.stopRecording()
		return changedFrom(now)
	}
	if seen := s.tree.record(); seen != nil {
		return changedSince{from: now, until: s.lastEndFine, seen: seen}
	}
	return changedFrom(fileClockAfter(s.lastEnd))
}

// ended notes when a command ended, once all its processes are gone: the
// file clock, and the fine clock, which no change time stamped before it
// is past.
func (s *Session) ended() {
	s.lastEnd = s.clock()
	s.lastEndFine = unix.NsecToTimespec(time.Now().UnixNano())
}

// commandTree returns the watch of a command's own folders dirs: the
// previous command's when it watched the same folders and still watches
// each of them, else a new one in its place. Adding a folder's watch and
// removing it at every turn had cost the worker more than the turn's disk
// walks; what changed between the commands (the engine's files) was read
// into the watch's count before the command starts, so it does not make
// the command's folders due for a walk.
func (s *Session) commandTree(dirs []string) *treeGroup {
	if s.turns != nil && slices.Equal(s.turns.roots, dirs) && s.turns.watchesRoots() {
		return s.turns
	}
	s.turns.remove()
	s.turns = s.tree.watch(dirs)
	return s.turns
}

// check reports a program or a working directory the command would not
// see in the session, as a fresh sandbox would.
func (s *Session) check(c Cmd, visible []Mount) error {
	if err := s.b.checkProgram(Cmd{Args: c.Args, Dir: c.Dir, Path: c.Path, Mounts: visible}); err != nil {
		return err
	}
	return s.b.checkDir(Cmd{Dir: c.Dir, Mounts: visible})
}

// Start starts c in a fresh sandbox that also sees the session's own
// mounts: a session runs one command at a time, and a long-lived process
// would hold it for the whole match.
func (s *Session) Start(ctx context.Context, c Cmd) (Process, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	c, err := absolutePaths(c)
	if err != nil {
		return nil, err
	}
	c.Mounts = append(append([]Mount{}, s.mounts...), c.Mounts...)
	c.Limits = WithDefaults(c.Limits, s.limits)
	return s.b.Start(ctx, c)
}

// covers reports whether every mount is within a session mount that allows
// as much.
func (s *Session) covers(mounts []Mount) bool {
	for _, m := range mounts {
		target := m.Target
		if target == "" {
			target = m.Source
		}
		ok := false
		for _, sm := range s.mounts {
			st := sm.Target
			if st == "" {
				st = sm.Source
			}
			rel, err := filepath.Rel(st, target)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				continue
			}
			srcRel, err := filepath.Rel(sm.Source, m.Source)
			if err == nil && srcRel == rel && (sm.Writable || !m.Writable) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// showPlaced shows the command's staged mounts in the sandbox: the
// previous command's mount moved to this command's path where it is the
// same one (moveKept), else the previous command's mounts removed first.
// A command's mounts stay after it, for the next: nothing runs in the
// sandbox between commands (the supervisor kills and reaps every process
// before it answers), and Close removes them with the stages.
func (s *Session) showPlaced(placed []staged) error {
	if moveKept(s.kept, placed) {
		return nil
	}
	unmountStaged(s.kept)
	s.kept = nil
	return mountStaged(placed)
}

// breakSession kills the sandbox; later commands run in fresh sandboxes.
func (s *Session) breakSession() {
	s.broken = true
	s.killMu.Lock()
	if s.cmd != nil && s.cmd.Process != nil && !s.exited {
		killGroup(s.cmd.Process.Pid)
	}
	s.killMu.Unlock()
	if s.cg != nil {
		s.cg.kill()
	}
}

// Close ends the session's sandbox and everything in it.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.in.Close()
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
	}
	s.breakSession()
	<-s.done
	s.outF.Close()
	s.release()
	return nil
}
