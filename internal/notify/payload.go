package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// Header names of a webhook delivery.
const (
	HeaderSignature = "X-Broadside-Signature"
	HeaderTimestamp = "X-Broadside-Timestamp"
	HeaderEvent     = "X-Broadside-Event"
	HeaderDelivery  = "X-Broadside-Delivery"
)

// Payload is the JSON body of a webhook delivery (docs/api.md). ID is the
// event's: a retried delivery carries the same one, so receivers can drop
// repeats.
type Payload struct {
	ID        int64           `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// Body is the payload of ev, the same bytes for every attempt.
func Body(ev *store.NotifyEvent) ([]byte, error) {
	return json.Marshal(Payload{ID: ev.ID, Type: string(ev.Type), CreatedAt: ev.CreatedAt.UTC().Truncate(time.Second), Data: ev.Data})
}

// Sign returns the signature header's value for body sent at ts:
// "sha256=" and the hex HMAC-SHA256, keyed with the hook's secret, of the
// decimal Unix time, a dot and the body.
func Sign(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// ErrBadSignature is Verify's refusal of a delivery.
var ErrBadSignature = errors.New("notify: bad webhook signature")

// Verify checks a delivery as a receiver should: the signature matches
// and the timestamp is within tolerance of now, so a recorded delivery
// replayed later is refused.
func Verify(secret, signature, timestamp string, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q", ErrBadSignature, timestamp)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp %s is %s away from now", ErrBadSignature, timestamp, d.Round(time.Second))
	}
	if !strings.HasPrefix(signature, "sha256=") || !hmac.Equal([]byte(signature), []byte(Sign(secret, ts, body))) {
		return ErrBadSignature
	}
	return nil
}
