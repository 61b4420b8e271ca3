package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/broadside/broadside/internal/egress"
	"github.com/broadside/broadside/internal/store"
)

// WebhookArgs delivers one event to one hook (a webhook_deliveries row).
type WebhookArgs struct {
	DeliveryID int64 `json:"delivery_id"`
}

// Kind is the stable job kind stored in river_job.
func (WebhookArgs) Kind() string { return "notify_webhook" }

// InsertOpts puts deliveries on the notification queue.
func (WebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 8}
}

// deliveryTimeout bounds one attempt, answer included.
const deliveryTimeout = 10 * time.Second

// newHTTPClient makes the client of deliveries: every connection goes
// through the egress policy on its resolved address, no proxy from the
// environment (it would make the proxy's address the one checked), and
// redirects are not followed (a redirect could point anywhere; the hook's
// URL is the one the user gave).
func newHTTPClient(p egress.Policy) *http.Client {
	return &http.Client{
		Timeout: deliveryTimeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         p.Dialer(5 * time.Second).DialContext,
			TLSHandshakeTimeout: 5 * time.Second,
			MaxIdleConns:        16,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type webhookWorker struct {
	river.WorkerDefaults[WebhookArgs]
	d *Deliverer
}

func (w *webhookWorker) Timeout(*river.Job[WebhookArgs]) time.Duration { return 2 * deliveryTimeout }

// NextRetry waits RetryBase, then four times longer each retry, at most
// six hours.
func (w *webhookWorker) NextRetry(job *river.Job[WebhookArgs]) time.Time {
	d := w.d.cfg.RetryBase
	for i := 1; i < job.Attempt && d < 6*time.Hour; i++ {
		d *= 4
	}
	return time.Now().Add(min(d, 6*time.Hour))
}

func (w *webhookWorker) Work(ctx context.Context, job *river.Job[WebhookArgs]) error {
	st := w.d.cfg.Store
	log := w.d.cfg.Logger.With("job_id", job.ID, "delivery_id", job.Args.DeliveryID, "attempt", job.Attempt)
	del, err := st.WebhookDeliveryGetByID(ctx, job.Args.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the hook or the event was deleted
	} else if err != nil {
		return err
	}
	hook, err := st.WebhookGetByID(ctx, del.WebhookID)
	if err != nil {
		return err
	}
	if hook.DisabledAt != nil {
		return st.WebhookDeliverySkip(ctx, del.ID)
	}
	ev, err := st.EventGetByID(ctx, del.EventID)
	if err != nil {
		return err
	}
	if ev.UserID != hook.UserID {
		// Never: the dispatcher pairs an event with its own user's hooks.
		return river.JobCancel(fmt.Errorf("delivery %d: event %d is not of the hook's user", del.ID, ev.ID))
	}
	body, err := Body(ev)
	if err != nil {
		return err
	}
	code, sendErr := w.d.post(ctx, hook, del.ID, string(ev.Type), body)
	final := job.Attempt >= job.MaxAttempts
	msg := ""
	if sendErr != nil {
		msg = sendErr.Error()
	}
	disabled, err := st.WebhookAttemptRecord(ctx, store.WebhookAttempt{
		DeliveryID: del.ID, WebhookID: hook.ID, StatusCode: code, Err: msg, OK: sendErr == nil, Final: final,
		DisableAfter: w.d.cfg.DisableAfter, DisableSpan: w.d.cfg.DisableSpan,
	})
	if err != nil {
		return err
	}
	if disabled {
		log.Info("notify: webhook switched off after failing", "webhook_id", hook.ID)
	}
	switch {
	case sendErr == nil:
		return nil
	case disabled:
		return river.JobCancel(sendErr)
	}
	log.Info("notify: webhook delivery failed", "webhook_id", hook.ID, "status", code, "err", sendErr)
	return sendErr
}

// post sends one attempt and returns the answer's status (0 when none);
// any status but 2xx is a failure.
func (d *Deliverer) post(ctx context.Context, hook *store.Webhook, deliveryID int64, eventType string, body []byte) (int, error) {
	ts := time.Now().Unix()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("bad URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Broadside-Webhook/1")
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(hook.Secret, ts, body))
	req.Header.Set(HeaderDelivery, strconv.FormatInt(deliveryID, 10))
	req.Header.Set(HeaderEvent, eventType)
	res, err := d.client.Do(req)
	if err != nil {
		var refused *egress.RefusedError
		if errors.As(err, &refused) {
			return 0, refused
		}
		return 0, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, fmt.Errorf("the endpoint answered %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	return res.StatusCode, nil
}
