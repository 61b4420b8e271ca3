package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	gomail "github.com/wneessen/go-mail"

	"github.com/broadside/broadside/internal/event"
	"github.com/broadside/broadside/internal/store"
)

// EmailArgs sends one event to its user's verified address.
type EmailArgs struct {
	EventID int64 `json:"event_id"`
}

// Kind is the stable job kind stored in river_job.
func (EmailArgs) Kind() string { return "notify_email" }

// InsertOpts puts e-mails on the notification queue.
func (EmailArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: Queue, MaxAttempts: 6} }

// VerifyArgs sends the verification link for a user's new address.
type VerifyArgs struct {
	UserID  int64  `json:"user_id"`
	Address string `json:"address"`
}

// Kind is the stable job kind stored in river_job.
func (VerifyArgs) Kind() string { return "notify_verify" }

// InsertOpts puts verifications on the notification queue.
func (VerifyArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 6}
}

// CheckAddress returns the plain address of s, refusing anything but one
// address without a display name.
func CheckAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || len(s) > 254 {
		return "", fmt.Errorf("%q is not an e-mail address", s)
	}
	return a.Address, nil
}

type emailWorker struct {
	river.WorkerDefaults[EmailArgs]
	d *Deliverer
}

func (w *emailWorker) Timeout(*river.Job[EmailArgs]) time.Duration { return time.Minute }

func (w *emailWorker) Work(ctx context.Context, job *river.Job[EmailArgs]) error {
	st := w.d.cfg.Store
	if w.d.cfg.Mailer == nil {
		return nil
	}
	ev, err := st.EventGetByID(ctx, job.Args.EventID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	em, err := st.NotifyEmailGet(ctx, ev.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	// Checked again: the user may have unsubscribed since the dispatch.
	if em.VerifiedAt == nil || !slices.Contains(em.Events, string(ev.Type)) {
		return nil
	}
	msg, err := w.d.eventMessage(ev, em)
	if err != nil {
		return err
	}
	return w.d.cfg.Mailer.Send(ctx, msg)
}

// unsubscribeURL is the one-click unsubscribe link of an address.
func (d *Deliverer) unsubscribeURL(em *store.NotifyEmail) string {
	return strings.TrimSuffix(d.cfg.PublicURL, "/") + "/notifications/unsubscribe/" + em.UnsubscribeToken
}

func (d *Deliverer) newMessage(to, subject, body, id string) (*gomail.Msg, error) {
	m := gomail.NewMsg()
	if err := m.From(d.cfg.From); err != nil {
		return nil, fmt.Errorf("notify: SMTP_FROM %q: %w", d.cfg.From, err)
	}
	if err := m.To(to); err != nil {
		return nil, fmt.Errorf("notify: address %q: %w", to, err)
	}
	m.Subject(subject)
	m.SetDate()
	// The same id on every attempt lets mail systems drop a repeat.
	domain := "broadside"
	if a, err := mail.ParseAddress(d.cfg.From); err == nil {
		if i := strings.LastIndex(a.Address, "@"); i >= 0 {
			domain = a.Address[i+1:]
		}
	}
	m.SetMessageIDWithValue(id + "@" + domain)
	m.SetBodyString(gomail.TypeTextPlain, body)
	return m, nil
}

func (d *Deliverer) eventMessage(ev *store.NotifyEvent, em *store.NotifyEmail) (*gomail.Msg, error) {
	unsub := d.unsubscribeURL(em)
	text := Summary(ev) + "\n\n" + strings.TrimSuffix(d.cfg.PublicURL, "/") + "/account\n\n" +
		"You receive this because you asked Broadside for e-mail of these events. " +
		"Stop all of them with one click: " + unsub + "\n"
	m, err := d.newMessage(em.Address, "[Broadside] "+ev.Type.Title(), text, fmt.Sprintf("event-%d.user-%d", ev.ID, ev.UserID))
	if err != nil {
		return nil, err
	}
	// RFC 2369 and RFC 8058: mail programs offer the link as an
	// unsubscribe button and may POST to it.
	m.SetListUnsubscribe(unsub)
	m.SetListUnsubscribePost()
	return m, nil
}

// Summary is one paragraph telling of ev, for e-mail.
func Summary(ev *store.NotifyEvent) string {
	switch ev.Type {
	case event.BuildFinished, event.BuildFailed:
		var b event.Build
		if json.Unmarshal(ev.Data, &b) == nil {
			verb := "built"
			if ev.Type == event.BuildFailed {
				verb = "failed to build"
			}
			return fmt.Sprintf("Version %d of your bot %s %s.", b.Version, b.Bot.Name, verb)
		}
	case event.ChallengeReceived, event.ChallengeAnswered:
		var c event.Challenge
		if json.Unmarshal(ev.Data, &c) == nil {
			if ev.Type == event.ChallengeReceived {
				return fmt.Sprintf("%s challenged your bot %s with %s (challenge %d).", c.OpponentBy, c.Bot.Name, c.Opponent.Name, c.ChallengeID)
			}
			return fmt.Sprintf("%s %s your challenge of %s with %s (challenge %d).", c.OpponentBy, c.Answer, c.Opponent.Name, c.Bot.Name, c.ChallengeID)
		}
	case event.BattleFinished:
		var b event.Battle
		if json.Unmarshal(ev.Data, &b) == nil {
			return fmt.Sprintf("The battle %s finished.", b.Name)
		}
	case event.DuelFinished:
		var du event.Duel
		if json.Unmarshal(ev.Data, &du) == nil {
			if du.Status != "finished" {
				return fmt.Sprintf("The duel of %s v%d against %s v%d stopped: %s", du.Bot.Name, du.BotVersion, du.Opponent.Name, du.OpponentVersion, du.Error)
			}
			return fmt.Sprintf("The duel of %s v%d (A) against %s v%d (B) ended after %d games: %s, A's win rate %.0f%% (95%% interval %.0f–%.0f%%).",
				du.Bot.Name, du.BotVersion, du.Opponent.Name, du.OpponentVersion, du.Games, du.Verdict,
				100*du.WinRateA, 100*du.CI95[0], 100*du.CI95[1])
		}
	case event.BotPaused:
		var p event.Paused
		if json.Unmarshal(ev.Data, &p) == nil {
			return fmt.Sprintf("The ladder stopped pairing your bot %s: %s", p.Bot.Name, p.Reason)
		}
	case event.BotFaulted:
		var f event.Faulted
		if json.Unmarshal(ev.Data, &f) == nil {
			return fmt.Sprintf("Your bot %s lost ranked match %d by a %s: %s", f.Bot.Name, f.MatchID, f.Fault, f.Reason)
		}
	}
	return ev.Type.Title() + "."
}

type verifyWorker struct {
	river.WorkerDefaults[VerifyArgs]
	d *Deliverer
}

func (w *verifyWorker) Timeout(*river.Job[VerifyArgs]) time.Duration { return time.Minute }

// Work makes a fresh token (only its hash is kept, and never in the job's
// arguments) and sends the link; a retry makes another, replacing it.
func (w *verifyWorker) Work(ctx context.Context, job *river.Job[VerifyArgs]) error {
	if w.d.cfg.Mailer == nil {
		return nil
	}
	token, err := randomToken("")
	if err != nil {
		return err
	}
	ok, err := w.d.cfg.Store.NotifyEmailSetVerifyToken(ctx, job.Args.UserID, job.Args.Address, TokenHash(token))
	if err != nil || !ok {
		return err // changed or verified meanwhile: nothing to send
	}
	link := strings.TrimSuffix(w.d.cfg.PublicURL, "/") + "/notifications/verify?token=" + token
	text := "Someone, probably you, asked Broadside to send notifications to this address.\n\n" +
		"Confirm it by opening this link:\n" + link + "\n\n" +
		"If it was not you, ignore this message: nothing is sent to an address that is not confirmed.\n"
	m, err := w.d.newMessage(job.Args.Address, "[Broadside] Confirm your e-mail address", text,
		fmt.Sprintf("verify-%d.%d", job.ID, job.Attempt))
	if err != nil {
		return err
	}
	return w.d.cfg.Mailer.Send(ctx, m)
}
