package notify

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/broadside/broadside/internal/egress"
	"github.com/broadside/broadside/internal/store"
)

// MaxWebhooks is how many hooks one user may have.
const MaxWebhooks = 5

// Inserter puts jobs on River's queue inside a transaction; the portal's
// insert-only client is one.
type Inserter interface {
	InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Settings is the portal's side: it checks hook URLs and starts e-mail
// verifications; the worker's Deliverer sends.
type Settings struct {
	store *store.Store
	queue Inserter
	// Dev lets hooks use plain http:// on loopback (DEV_MODE).
	Dev bool
	// Email says whether the platform sends e-mail (SMTP_URL is set).
	Email bool
}

// NewSettings returns the portal's side of notifications.
func NewSettings(st *store.Store, queue Inserter, dev, email bool) *Settings {
	return &Settings{store: st, queue: queue, Dev: dev, Email: email}
}

// EmailOn reports whether e-mail can be sent at all.
func (s *Settings) EmailOn() bool { return s.Email }

// CheckURL refuses a hook URL that is not https:// to a public host name
// or address; with Dev, http:// to a loopback address or localhost is
// allowed too. The address a name resolves to is checked again at every
// delivery.
func (s *Settings) CheckURL(raw string) error { return CheckURL(raw, s.Dev) }

// CheckURL is Settings.CheckURL; dev allows loopback http.
func CheckURL(raw string, dev bool) error {
	if len(raw) > 2000 {
		return fmt.Errorf("the URL is longer than 2000 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	if u.User != nil {
		return fmt.Errorf("the URL may not carry a user name or password")
	}
	if u.Fragment != "" {
		return fmt.Errorf("the URL may not have a #fragment")
	}
	host := u.Hostname()
	loopback := host == "localhost"
	if a, err := netip.ParseAddr(host); err == nil {
		loopback = a.Unmap().IsLoopback()
		if !(dev && loopback) && egress.NotPublic(a) {
			return fmt.Errorf("%s is not a public address", host)
		}
	}
	switch {
	case dev && loopback && (u.Scheme == "http" || u.Scheme == "https"):
		return nil
	case u.Scheme != "https":
		return fmt.Errorf("the URL must start with https://")
	case loopback || strings.HasSuffix(host, ".localhost") || net.ParseIP(host) == nil && !strings.Contains(host, "."):
		return fmt.Errorf("%s is not a public host", host)
	}
	return nil
}

// NewSecret returns a random secret for signing a hook's deliveries.
func NewSecret() (string, error) {
	return randomToken("whsec_")
}

func randomToken(prefix string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("notify: random token: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// TokenHash is how a verification token is kept: only its hash.
func TokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// SetEmail sets the user's address, unverified, and queues the
// verification e-mail in the same transaction.
func (s *Settings) SetEmail(ctx context.Context, userID int64, address string) error {
	unsub, err := randomToken("")
	if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		if err := st.NotifyEmailSet(ctx, userID, address, nil, unsub); err != nil {
			return err
		}
		if _, err := s.queue.InsertTx(ctx, tx, VerifyArgs{UserID: userID, Address: address}, nil); err != nil {
			return fmt.Errorf("notify: queue verification of user %d: %w", userID, err)
		}
		return nil
	})
}
