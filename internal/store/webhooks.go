package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Webhook is one of a user's notification endpoints.
type Webhook struct {
	ID     int64
	UserID int64
	URL    string
	// Secret signs the deliveries; shown to the user once, at creation.
	Secret    string
	Events    []string
	CreatedAt time.Time
	// Failures counts the attempts failed in a row since FailingSince.
	Failures     int
	FailingSince *time.Time
	// DisabledAt is set when the hook was switched off for failing, with
	// DisabledReason for the account page.
	DisabledAt     *time.Time
	DisabledReason string
}

const webhookSelect = `SELECT id, user_id, url, secret, events, created_at, failures, failing_since,
	disabled_at, disabled_reason FROM webhooks`

func scanWebhook(row pgx.Row) (*Webhook, error) {
	var w Webhook
	err := row.Scan(&w.ID, &w.UserID, &w.URL, &w.Secret, &w.Events, &w.CreatedAt, &w.Failures, &w.FailingSince,
		&w.DisabledAt, &w.DisabledReason)
	if err != nil {
		return nil, interpretError(err)
	}
	return &w, nil
}

func (s *Store) webhookQuery(ctx context.Context, what, sql string, args ...any) ([]Webhook, error) {
	rows, err := s.db.Query(ctx, webhookSelect+" "+sql, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	defer rows.Close()
	var out []Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", what, err)
		}
		out = append(out, *w)
	}
	return out, rows.Err()
}

// WebhookCreate records a hook of userID, refusing with ErrConflict when
// the user already has max hooks.
func (s *Store) WebhookCreate(ctx context.Context, userID int64, url, secret string, events []string, max int) (*Webhook, error) {
	row := s.db.QueryRow(ctx, `
		INSERT INTO webhooks (user_id, url, secret, events)
		SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM webhooks WHERE user_id = $1) < $5
		RETURNING id, user_id, url, secret, events, created_at, failures, failing_since, disabled_at, disabled_reason`,
		userID, url, secret, events, max)
	w, err := scanWebhook(row)
	if err == ErrNotFound {
		return nil, fmt.Errorf("store: create webhook of user %d: %w", userID, ErrConflict)
	} else if err != nil {
		return nil, fmt.Errorf("store: create webhook of user %d: %w", userID, err)
	}
	return w, nil
}

// WebhookList lists a user's hooks, oldest first.
func (s *Store) WebhookList(ctx context.Context, userID int64) ([]Webhook, error) {
	return s.webhookQuery(ctx, fmt.Sprintf("list webhooks of user %d", userID), `WHERE user_id = $1 ORDER BY id`, userID)
}

// WebhooksFor lists the user's hooks that are on and hear of type t.
func (s *Store) WebhooksFor(ctx context.Context, userID int64, t string) ([]Webhook, error) {
	return s.webhookQuery(ctx, fmt.Sprintf("webhooks of user %d for %s", userID, t),
		`WHERE user_id = $1 AND disabled_at IS NULL AND $2 = ANY(events) ORDER BY id`, userID, t)
}

// WebhookGetByID returns a hook.
func (s *Store) WebhookGetByID(ctx context.Context, id int64) (*Webhook, error) {
	w, err := scanWebhook(s.db.QueryRow(ctx, webhookSelect+` WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get webhook %d: %w", id, err)
	}
	return w, nil
}

// WebhookUpdate sets which events one of a user's hooks hears of and
// whether it is on; switching it on clears its failures.
func (s *Store) WebhookUpdate(ctx context.Context, userID, id int64, events []string, on bool) error {
	tag, err := s.db.Exec(ctx, `
		UPDATE webhooks SET events = $3,
		       disabled_at = CASE WHEN $4 THEN NULL ELSE coalesce(disabled_at, now()) END,
		       disabled_reason = CASE WHEN $4 THEN '' WHEN disabled_at IS NULL THEN 'Switched off by you.' ELSE disabled_reason END,
		       failures = CASE WHEN $4 AND disabled_at IS NOT NULL THEN 0 ELSE failures END,
		       failing_since = CASE WHEN $4 AND disabled_at IS NOT NULL THEN NULL ELSE failing_since END
		WHERE id = $1 AND user_id = $2`, id, userID, events, on)
	if err != nil {
		return fmt.Errorf("store: update webhook %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: update webhook %d: %w", id, ErrNotFound)
	}
	return nil
}

// WebhookDelete deletes one of a user's hooks and its deliveries.
func (s *Store) WebhookDelete(ctx context.Context, userID, id int64) error {
	tag, err := s.db.Exec(ctx, `DELETE FROM webhooks WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("store: delete webhook %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: delete webhook %d: %w", id, ErrNotFound)
	}
	return nil
}

// WebhookDelivery is one event's delivery to one hook, as its last
// attempt left it.
type WebhookDelivery struct {
	ID          int64
	WebhookID   int64
	EventID     int64
	EventType   string
	Status      string
	Attempts    int
	StatusCode  *int
	Error       string
	AttemptedAt *time.Time
	CreatedAt   time.Time
}

// WebhookDeliveryCreate records that event eventID is to be delivered to
// hook webhookID; created is false when it already was.
func (s *Store) WebhookDeliveryCreate(ctx context.Context, webhookID, eventID int64) (id int64, created bool, err error) {
	err = s.db.QueryRow(ctx, `
		INSERT INTO webhook_deliveries (webhook_id, event_id) VALUES ($1, $2)
		ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`, webhookID, eventID).Scan(&id)
	if err = interpretError(err); err == ErrNotFound {
		return 0, false, nil
	} else if err != nil {
		return 0, false, fmt.Errorf("store: record delivery of event %d to webhook %d: %w", eventID, webhookID, err)
	}
	return id, true, nil
}

const deliverySelect = `SELECT d.id, d.webhook_id, d.event_id, e.type, d.status, d.attempts, d.status_code, d.error,
	d.attempted_at, d.created_at FROM webhook_deliveries d JOIN notify_events e ON e.id = d.event_id`

func scanDelivery(row pgx.Row) (*WebhookDelivery, error) {
	var d WebhookDelivery
	err := row.Scan(&d.ID, &d.WebhookID, &d.EventID, &d.EventType, &d.Status, &d.Attempts, &d.StatusCode, &d.Error,
		&d.AttemptedAt, &d.CreatedAt)
	if err != nil {
		return nil, interpretError(err)
	}
	return &d, nil
}

// WebhookDeliveryGetByID returns a delivery.
func (s *Store) WebhookDeliveryGetByID(ctx context.Context, id int64) (*WebhookDelivery, error) {
	d, err := scanDelivery(s.db.QueryRow(ctx, deliverySelect+` WHERE d.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get webhook delivery %d: %w", id, err)
	}
	return d, nil
}

// WebhookDeliveriesRecent lists the newest deliveries to a user's hooks.
func (s *Store) WebhookDeliveriesRecent(ctx context.Context, userID int64, limit int) ([]WebhookDelivery, error) {
	rows, err := s.db.Query(ctx, deliverySelect+`
		JOIN webhooks w ON w.id = d.webhook_id WHERE w.user_id = $1 ORDER BY d.id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent deliveries of user %d: %w", userID, err)
	}
	defer rows.Close()
	var out []WebhookDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("store: recent deliveries of user %d: %w", userID, err)
		}
		out = append(out, *d)
	}
	return out, rows.Err()
}

// WebhookAttempt is the outcome of one attempt at a delivery.
type WebhookAttempt struct {
	DeliveryID int64
	WebhookID  int64
	// StatusCode is the answer's status, 0 when none came.
	StatusCode int
	Err        string
	OK         bool
	// Final is set on a failure after which no retry follows.
	Final bool
	// DisableAfter failures in a row spanning at least DisableSpan switch
	// the hook off.
	DisableAfter int
	DisableSpan  time.Duration
}

// WebhookAttemptRecord records an attempt on its delivery and the hook's
// run of failures; it reports whether the hook was switched off by it.
func (s *Store) WebhookAttemptRecord(ctx context.Context, a WebhookAttempt) (disabled bool, err error) {
	status := "retrying"
	switch {
	case a.OK:
		status = "delivered"
	case a.Final:
		status = "failed"
	}
	var code *int
	if a.StatusCode != 0 {
		code = &a.StatusCode
	}
	err = s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		if _, err := st.db.Exec(ctx, `
			UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, status_code = $3, error = $4,
			       attempted_at = now()
			WHERE id = $1`, a.DeliveryID, status, code, a.Err); err != nil {
			return err
		}
		if a.OK {
			_, err := st.db.Exec(ctx, `UPDATE webhooks SET failures = 0, failing_since = NULL WHERE id = $1`, a.WebhookID)
			return err
		}
		reason := fmt.Sprintf("Switched off after %d failed deliveries in a row over more than %s; the last: %s",
			a.DisableAfter, a.DisableSpan, a.Err)
		err := st.db.QueryRow(ctx, `
			UPDATE webhooks SET failures = failures + 1, failing_since = coalesce(failing_since, now()),
			       disabled_at = CASE WHEN disabled_at IS NULL AND failures + 1 >= $2
			                          AND coalesce(failing_since, now()) <= now() - $3 * interval '1 second'
			                     THEN now() ELSE disabled_at END,
			       disabled_reason = CASE WHEN disabled_at IS NULL AND failures + 1 >= $2
			                              AND coalesce(failing_since, now()) <= now() - $3 * interval '1 second'
			                         THEN $4 ELSE disabled_reason END
			WHERE id = $1 RETURNING disabled_at IS NOT NULL AND disabled_at = now()`,
			a.WebhookID, a.DisableAfter, int64(a.DisableSpan/time.Second), reason).Scan(&disabled)
		if err != nil || !disabled {
			return err
		}
		// No retry follows on a hook switched off.
		_, err = st.db.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, a.DeliveryID)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: record attempt of delivery %d: %w", a.DeliveryID, interpretError(err))
	}
	return disabled, nil
}

// WebhookDeliverySkip marks a delivery not attempted because its hook was
// switched off or deleted meanwhile.
func (s *Store) WebhookDeliverySkip(ctx context.Context, id int64) error {
	if _, err := s.db.Exec(ctx, `UPDATE webhook_deliveries SET status = 'skipped' WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: skip delivery %d: %w", id, err)
	}
	return nil
}
