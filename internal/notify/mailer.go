package notify

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/wneessen/go-mail"
)

// Mailer sends e-mail.
type Mailer interface {
	Send(ctx context.Context, msgs ...*mail.Msg) error
}

// SMTP sends through one SMTP server (SMTP_URL).
type SMTP struct {
	host string
	opts []mail.Option
}

// ParseSMTPURL reads SMTP_URL: smtp://user:password@host:587 sends with
// STARTTLS, which the server must offer (with dev, it may not: mail then
// goes in the clear, for a local test server); smtps://user:password@host:465
// speaks TLS from the start. User and password are optional; with them
// the client authenticates (PLAIN).
func ParseSMTPURL(raw string, dev bool) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("must be smtp://[user:password@]host[:port] or smtps://…, got %q", raw)
	}
	s := &SMTP{host: u.Hostname(), opts: []mail.Option{mail.WithTimeout(30 * time.Second)}}
	port := 587
	switch u.Scheme {
	case "smtp":
		policy := mail.TLSMandatory
		if dev {
			policy = mail.TLSOpportunistic
		}
		s.opts = append(s.opts, mail.WithTLSPolicy(policy))
	case "smtps":
		port = 465
		s.opts = append(s.opts, mail.WithSSL())
	default:
		return nil, fmt.Errorf("must start with smtp:// or smtps://, got %q", u.Scheme+"://")
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return nil, fmt.Errorf("has a bad port %q", p)
		}
	}
	s.opts = append(s.opts, mail.WithPort(port))
	if u.User != nil {
		pass, _ := u.User.Password()
		s.opts = append(s.opts, mail.WithSMTPAuth(mail.SMTPAuthPlain),
			mail.WithUsername(u.User.Username()), mail.WithPassword(pass))
	}
	return s, nil
}

// Send delivers msgs over one connection.
func (s *SMTP) Send(ctx context.Context, msgs ...*mail.Msg) error {
	c, err := mail.NewClient(s.host, s.opts...)
	if err != nil {
		return fmt.Errorf("notify: smtp client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msgs...); err != nil {
		return fmt.Errorf("notify: send e-mail through %s: %w", s.host, err)
	}
	return nil
}
