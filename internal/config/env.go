package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Env reads one command's variables through typed getters. A bad or
// missing value does not stop the reading: every problem is collected, each
// naming its variable, and Err reports them all at once.
type Env struct {
	cmd    string
	getenv func(string) string
	vars   map[string]Var
	read   map[string]bool
	errs   []error
}

// NewEnv reads cmd's variables through getenv (os.Getenv, or a map in
// tests).
func NewEnv(cmd string, getenv func(string) string) *Env {
	e := &Env{cmd: cmd, getenv: getenv, vars: map[string]Var{}, read: map[string]bool{}}
	for _, v := range For(cmd) {
		e.vars[v.Name] = v
	}
	return e
}

// raw returns the value of name, or its default when unset. Reading a
// variable the table does not declare for this command is a programming
// error: the table, --help and the README would be wrong.
func (e *Env) raw(name string) string {
	v, ok := e.vars[name]
	if !ok {
		panic(fmt.Sprintf("config: %s reads %s, which the table does not declare for it", e.cmd, name))
	}
	e.read[name] = true
	if s := strings.TrimSpace(e.getenv(name)); s != "" {
		return s
	}
	if v.Required {
		e.Errorf("%s is required: %s", name, v.Meaning)
	}
	return v.Default
}

// NotRequired lets names be unset, for a subcommand that does not use
// them (the portal's make-organiser touches only the database): they
// read as their defaults, empty for the required ones.
func (e *Env) NotRequired(names ...string) {
	for _, n := range names {
		if v, ok := e.vars[n]; ok {
			v.Required = false
			e.vars[n] = v
		}
	}
}

// Errorf records a problem, such as two settings that contradict each
// other; the message should name the variables.
func (e *Env) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf(format, args...))
}

// Err joins every problem found so far, one per line; nil when none.
func (e *Env) Err() error {
	return errors.Join(e.errs...)
}

// Unread lists the variables the table declares for this command that
// were never read: the table claims the command uses them, but it does
// not.
func (e *Env) Unread() []string {
	var out []string
	for name := range e.vars {
		if !e.read[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// String returns the value as it is.
func (e *Env) String(name string) string {
	return e.raw(name)
}

// Parse returns the value passed through parse. Its error continues a
// sentence that starts with the variable's name ("must be …", "may not
// set …").
func Parse[T any](e *Env, name string, parse func(string) (T, error)) T {
	s := e.raw(name)
	if s == "" {
		var zero T
		return zero
	}
	out, err := parse(s)
	if err != nil {
		e.Errorf("%s %v", name, err)
	}
	return out
}

// Int returns a whole number from min to max.
func (e *Env) Int(name string, min, max int64) int64 {
	s := e.raw(name)
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min || n > max {
		e.Errorf("%s must be a whole number from %d to %d, got %q", name, min, max, s)
	}
	return n
}

// Duration returns a positive duration such as 90s or 30m; 0 when the
// variable is unset and has no default.
func (e *Env) Duration(name string) time.Duration {
	s := e.raw(name)
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		e.Errorf("%s must be a positive duration such as 90s or 30m, got %q", name, s)
	}
	return d
}

// DurationOrOff is Duration where "off" or "0" turns the feature off,
// returned as 0.
func (e *Env) DurationOrOff(name string) time.Duration {
	if s := e.raw(name); s == "off" || s == "0" {
		return 0
	}
	return e.Duration(name)
}

// Bool returns true or false (strconv.ParseBool's spellings); nil when the
// variable is unset and has no default.
func (e *Env) Bool(name string) *bool {
	s := e.raw(name)
	if s == "" {
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		e.Errorf("%s must be true or false, got %q", name, s)
		return nil
	}
	return &b
}

// OneOf returns the value, which must be one of choices.
func (e *Env) OneOf(name string, choices ...string) string {
	s := e.raw(name)
	if !slices.Contains(choices, s) {
		e.Errorf("%s must be %s, got %q", name, orList(choices), s)
	}
	return s
}

// LogLevel returns debug, info, warn or error as a slog level.
func (e *Env) LogLevel(name string) slog.Level {
	var l slog.Level
	s := e.raw(name)
	if err := l.UnmarshalText([]byte(s)); err != nil {
		e.Errorf("%s must be debug, info, warn or error, got %q", name, s)
	}
	return l
}

// PostgresURL returns a postgres:// or postgresql:// URL.
func (e *Env) PostgresURL(name string) string {
	s := e.raw(name)
	if s != "" && !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		e.Errorf("%s must be a postgres:// or postgresql:// URL, got %q", name, s)
	}
	return s
}

// Address returns a listen address, host:port or :port.
func (e *Env) Address(name string) string {
	s := e.raw(name)
	if s != "" && !strings.Contains(s, ":") {
		e.Errorf("%s must be host:port or :port, got %q", name, s)
	}
	return s
}

// LoopbackAddress returns a listen address on the loopback interface,
// host:port with host 127.0.0.1, ::1 or localhost: what it serves must
// not be reachable from other machines.
func (e *Env) LoopbackAddress(name string) string {
	s := e.raw(name)
	if s == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		e.Errorf("%s must be host:port on the loopback interface, such as 127.0.0.1:6060, got %q", name, s)
		return s
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		e.Errorf("%s must listen on the loopback interface only (127.0.0.1, ::1 or localhost), got %q: "+
			"what it serves must not be reachable from other machines", name, s)
	}
	return s
}

func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
