package botmeta

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// zonFields are the fields of In Deep Ship's entry.zon, all required; the
// original's parser rejects a missing or unknown field.
var zonFields = [...]string{"name", "runnable", "img", "emote"}

// ParseZON reads an In Deep Ship entry.zon: a Zig struct literal with the
// four string fields name, runnable, img and emote, for example
//
//	.{ .name = "Aimless Amy", .runnable = "src/main.py", .img = "a.png", .emote = "a.mp3" }
//
// The runnable is started directly, so its manifest has BotType Executable.
func ParseZON(data []byte) (Manifest, error) {
	if len(data) > MaxManifestBytes {
		return Manifest{}, fmt.Errorf("entry.zon is %d bytes, more than the %d allowed", len(data), MaxManifestBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return Manifest{}, errors.New("entry.zon is not UTF-8 text")
	}
	p := &zonParser{s: string(data)}
	fields, err := p.parse()
	if err != nil {
		return Manifest{}, fmt.Errorf("entry.zon: %w", err)
	}
	for _, f := range zonFields {
		if _, ok := fields[f]; !ok {
			return Manifest{}, fmt.Errorf("entry.zon: field .%s is missing (required: .name, .runnable, .img, .emote)", f)
		}
	}
	for _, f := range zonFields {
		max := MaxPathChars
		if f == "name" {
			max = MaxNameChars
		}
		if err := checkLength("."+f, fields[f], max); err != nil {
			return Manifest{}, fmt.Errorf("entry.zon: %w", err)
		}
	}
	m := Manifest{NickName: fields["name"], BotType: Executable, Game: EntryZONGame, Source: EntryZON}
	if strings.TrimSpace(fields["runnable"]) == "" {
		return Manifest{}, errors.New("entry.zon: .runnable is empty")
	}
	if m.RunFile, err = cleanPath(".runnable", fields["runnable"]); err != nil {
		return Manifest{}, fmt.Errorf("entry.zon: %w", err)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"img", &m.Image}, {"emote", &m.Emote}} {
		if v := fields[f.name]; strings.TrimSpace(v) != "" {
			if *f.dst, err = cleanPath("."+f.name, v); err != nil {
				return Manifest{}, fmt.Errorf("entry.zon: %w", err)
			}
		}
	}
	return m, nil
}

// zonParser reads the subset of ZON an entry.zon uses: one anonymous struct
// of string fields, with comments and an optional trailing comma.
type zonParser struct {
	s   string
	pos int
}

func (p *zonParser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.s[:p.pos], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// skip passes white space and // comments.
func (p *zonParser) skip() {
	for p.pos < len(p.s) {
		switch {
		case strings.ContainsRune(" \t\r\n", rune(p.s[p.pos])):
			p.pos++
		case strings.HasPrefix(p.s[p.pos:], "//"):
			if i := strings.IndexByte(p.s[p.pos:], '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.s)
			}
		default:
			return
		}
	}
}

func (p *zonParser) expect(tok string) error {
	p.skip()
	if !strings.HasPrefix(p.s[p.pos:], tok) {
		return p.errorf("expected %q", tok)
	}
	p.pos += len(tok)
	return nil
}

func (p *zonParser) parse() (map[string]string, error) {
	if err := p.expect(".{"); err != nil {
		return nil, err
	}
	fields := make(map[string]string, len(zonFields))
	for {
		p.skip()
		if strings.HasPrefix(p.s[p.pos:], "}") {
			p.pos++
			break
		}
		if err := p.expect("."); err != nil {
			return nil, err
		}
		name := p.ident()
		if name == "" {
			return nil, p.errorf("expected a field name after '.'")
		}
		known := false
		for _, f := range zonFields {
			known = known || f == name
		}
		if !known {
			return nil, p.errorf("unknown field .%s (allowed: .name, .runnable, .img, .emote)", name)
		}
		if _, dup := fields[name]; dup {
			return nil, p.errorf("field .%s given twice", name)
		}
		if err := p.expect("="); err != nil {
			return nil, err
		}
		v, err := p.str()
		if err != nil {
			return nil, err
		}
		fields[name] = v
		p.skip()
		if strings.HasPrefix(p.s[p.pos:], ",") {
			p.pos++
			continue
		}
		if err := p.expect("}"); err != nil {
			return nil, err
		}
		break
	}
	p.skip()
	if p.pos != len(p.s) {
		return nil, p.errorf("unexpected text after the struct")
	}
	return fields, nil
}

func (p *zonParser) ident() string {
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.pos > start && c >= '0' && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

// str reads a Zig string literal with its escapes.
func (p *zonParser) str() (string, error) {
	p.skip()
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return "", p.errorf("expected a string in double quotes")
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\n':
			return "", p.errorf("string not closed before the end of the line")
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", p.errorf("string not closed")
}

func (p *zonParser) escape(b *strings.Builder) error {
	if p.pos+1 >= len(p.s) {
		return p.errorf("string not closed")
	}
	e := p.s[p.pos+1]
	p.pos += 2
	switch e {
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case '\\', '"', '\'':
		b.WriteByte(e)
	case 'x':
		if p.pos+2 > len(p.s) {
			return p.errorf("bad \\x escape")
		}
		v, err := strconv.ParseUint(p.s[p.pos:p.pos+2], 16, 8)
		if err != nil {
			return p.errorf("bad \\x escape")
		}
		b.WriteByte(byte(v))
		p.pos += 2
	case 'u':
		end := strings.IndexByte(p.s[p.pos:], '}')
		if !strings.HasPrefix(p.s[p.pos:], "{") || end < 0 {
			return p.errorf("bad \\u escape")
		}
		v, err := strconv.ParseUint(p.s[p.pos+1:p.pos+end], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return p.errorf("bad \\u escape")
		}
		b.WriteRune(rune(v))
		p.pos += end + 1
	default:
		return p.errorf("unknown escape \\%c", e)
	}
	return nil
}
