package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/egress"
	"github.com/broadside/broadside/internal/event"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/notify"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// testBundle is one test's database with a worker running the
// notification jobs, built as cmd/worker builds it.
type testBundle struct {
	ctx  context.Context
	pool *pgxpool.Pool
	st   *store.Store
	// stopDeliverer stops the worker and dispatcher setup started.
	stopDeliverer func()
}

// setup starts a worker whose only jobs are the notifications of cfg, and
// its dispatcher, on a fresh database.
func setup(t *testing.T, cfg notify.Config) *testBundle {
	t.Helper()
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	pool := testdb.NewPool(t)
	st := store.New(pool)
	cfg.Store = st
	stop := startDeliverer(t, ctx, pool, cfg)
	return &testBundle{ctx: ctx, pool: pool, st: st, stopDeliverer: stop}
}

// startDeliverer starts a worker whose only jobs are the notifications of
// cfg, and its dispatcher, on pool's database, as cmd/worker does; the
// returned function stops both and waits for them, also at the test's end.
func startDeliverer(t *testing.T, ctx context.Context, pool *pgxpool.Pool, cfg notify.Config) (stop func()) {
	t.Helper()
	bucket, err := blob.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(&testWriter{t}, nil))
	}
	cfg.Logger = logger
	// Events reach the dispatcher by their announcements alone: its
	// fallback look is not due within a test.
	if cfg.DispatchEvery == 0 {
		cfg.DispatchEvery = time.Hour
	}
	cfg.RetryBase = time.Second
	d := notify.NewDeliverer(cfg)
	w, err := jobs.NewWorker(jobs.Deps{Pool: pool, Bucket: bucket, Logger: logger, WorkDir: t.TempDir(),
		Addons: []jobs.Addon{d}, ShutdownGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	if err := w.Start(wctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(wctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
			<-w.Stopped()
		})
	}
	t.Cleanup(stop)
	return stop
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// botVersion records a user and a bot with one version waiting for its
// build, as an upload does.
func (b *testBundle) botVersion(t *testing.T, user, bot string) (userID, botID, versionID int64) {
	t.Helper()
	u, err := b.st.UserCreate(b.ctx, store.UserCreateParams{Username: user, PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.st.UploadRecord(b.ctx, store.UploadParams{OwnerID: u.ID, Name: bot, Game: "entelect", Language: "python",
		BotType: "python3", Manifest: json.RawMessage(`{}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: func(botID int64, n int) string { return "src" }})
	if err != nil {
		t.Fatal(err)
	}
	return u.ID, res.BotID, res.VersionID
}

// receiver is an HTTP endpoint of a webhook's owner: it answers each
// request with the next status of its script (the last one repeats).
type receiver struct {
	srv      *httptest.Server
	requests chan *http.Request
	bodies   chan []byte
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{requests: make(chan *http.Request, 16), bodies: make(chan []byte, 16)}
	var mu sync.Mutex
	n := 0
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		mu.Lock()
		status := statuses[min(n, len(statuses)-1)]
		n++
		mu.Unlock()
		w.WriteHeader(status)
		r.requests <- req
		r.bodies <- body
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) next(t *testing.T, ctx context.Context) (*http.Request, []byte) {
	t.Helper()
	select {
	case req := <-r.requests:
		return req, <-r.bodies
	case <-ctx.Done():
		t.Fatal("gave up waiting for a webhook delivery")
	}
	return nil, nil
}

// TestWebhookDeliversSignedBuild: a build that finishes, through the store
// call the build worker makes, reaches the owner's hook as a signed
// build.finished; the hook answers 500 first, and the same event comes
// again and is then recorded delivered.
func TestWebhookDeliversSignedBuild(t *testing.T) {
	b := setup(t, notify.Config{Egress: egress.Policy{AllowLoopback: true}})
	rcv := newReceiver(t, http.StatusInternalServerError, http.StatusNoContent)
	ann, annBot, version := b.botVersion(t, "ann", "Pyro")
	_, _, otherVersion := b.botVersion(t, "olga", "Quiet")
	hook, err := b.st.WebhookCreate(b.ctx, ann, rcv.srv.URL+"/hook", "whsec_test", []string{"build.finished", "build.failed"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Another user's build must never reach ann's hook.
	if err := b.st.BotVersionFinishBuild(b.ctx, otherVersion, store.BuildResult{OK: true, Log: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, version, store.BuildResult{OK: true, Log: "ok", ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}

	var first notify.Payload
	for attempt, wantStatus := range []string{"retrying", "delivered"} {
		req, body := rcv.next(t, b.ctx)
		if err := notify.Verify("whsec_test", req.Header.Get(notify.HeaderSignature), req.Header.Get(notify.HeaderTimestamp),
			body, time.Now(), 5*time.Minute); err != nil {
			t.Fatalf("attempt %d: %v\n%s", attempt+1, err, body)
		}
		if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" ||
			req.Header.Get(notify.HeaderEvent) != "build.finished" {
			t.Errorf("attempt %d: %s with %v", attempt+1, req.Method, req.Header)
		}
		var p notify.Payload
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		var data event.Build
		if err := json.Unmarshal(p.Data, &data); err != nil {
			t.Fatal(err)
		}
		if p.Type != "build.finished" || data.Bot.ID != annBot || data.Bot.Name != "Pyro" || data.Version != 1 {
			t.Errorf("attempt %d: payload %s", attempt+1, body)
		}
		if attempt == 0 {
			first = p
		} else if p.ID != first.ID || !bytes.Equal(p.Data, first.Data) {
			t.Errorf("the retry carries event %d %s, the first attempt %d %s", p.ID, p.Data, first.ID, first.Data)
		}
		b.waitDelivery(t, hook.ID, wantStatus, attempt+1)
	}
	d := b.deliveries(t, ann)
	if len(d) != 1 || d[0].StatusCode == nil || *d[0].StatusCode != http.StatusNoContent || d[0].Error != "" {
		t.Fatalf("deliveries: %+v", d)
	}
	if h, _ := b.st.WebhookGetByID(b.ctx, hook.ID); h.Failures != 0 || h.DisabledAt != nil {
		t.Errorf("after a success the hook has %d failures, disabled %v", h.Failures, h.DisabledAt)
	}
}

func (b *testBundle) deliveries(t *testing.T, userID int64) []store.WebhookDelivery {
	t.Helper()
	d, err := b.st.WebhookDeliveriesRecent(b.ctx, userID, 10)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitDelivery waits until the hook's delivery has status after attempts:
// the worker records it after the answer the test just saw.
func (b *testBundle) waitDelivery(t *testing.T, hookID int64, status string, attempts int) store.WebhookDelivery {
	t.Helper()
	for {
		var d store.WebhookDelivery
		err := b.pool.QueryRow(b.ctx, `SELECT status, attempts, coalesce(error, '') FROM webhook_deliveries WHERE webhook_id = $1`,
			hookID).Scan(&d.Status, &d.Attempts, &d.Error)
		if err == nil && d.Status == status && d.Attempts == attempts {
			return d
		}
		select {
		case <-b.ctx.Done():
			t.Fatalf("gave up waiting for the delivery to be %s after %d attempts: %s after %d (%v)", status, attempts, d.Status, d.Attempts, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestWebhookSwitchedOff: a hook that keeps failing for longer than the
// span is switched off with the reason, and its delivery is not retried.
func TestWebhookSwitchedOff(t *testing.T) {
	b := setup(t, notify.Config{Egress: egress.Policy{AllowLoopback: true}, DisableAfter: 2, DisableSpan: time.Second})
	rcv := newReceiver(t, http.StatusServiceUnavailable)
	ann, _, version := b.botVersion(t, "ann", "Pyro")
	hook, err := b.st.WebhookCreate(b.ctx, ann, rcv.srv.URL, "whsec_c", []string{"build.finished"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, version, store.BuildResult{OK: true, Log: "ok"}); err != nil {
		t.Fatal(err)
	}
	rcv.next(t, b.ctx)
	rcv.next(t, b.ctx)
	d := b.waitDelivery(t, hook.ID, "failed", 2)
	h, err := b.st.WebhookGetByID(b.ctx, hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	if h.DisabledAt == nil || !strings.Contains(h.DisabledReason, "the endpoint answered 503") || h.Failures != 2 {
		t.Fatalf("hook after %d failures: disabled %v %q, delivery %+v", h.Failures, h.DisabledAt, h.DisabledReason, d)
	}
}

// TestWebhookRefusesPrivateAddresses: with the production policy, a hook
// whose address is private or the host's own is never connected to; the
// refusal is recorded on the delivery for its owner to see.
func TestWebhookRefusesPrivateAddresses(t *testing.T) {
	b := setup(t, notify.Config{Egress: egress.NewPolicy()})
	rcv := newReceiver(t, http.StatusOK)
	ann, _, version := b.botVersion(t, "ann", "Pyro")
	// Written to the store directly: the settings refuse such URLs
	// already, and this is the check at delivery, on the address dialed.
	loop, err := b.st.WebhookCreate(b.ctx, ann, rcv.srv.URL+"/hook", "whsec_a", []string{"build.failed"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	private, err := b.st.WebhookCreate(b.ctx, ann, "http://10.11.12.13:9/hook", "whsec_b", []string{"build.failed"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, version, store.BuildResult{Log: "syntax error"}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		id   int64
		addr string
	}{{loop.ID, "127.0.0.1"}, {private.ID, "10.11.12.13"}} {
		d := b.waitDelivery(t, h.id, "retrying", 1)
		if !strings.Contains(d.Error, h.addr+" is not a public address") {
			t.Errorf("hook %d: delivery error %q", h.id, d.Error)
		}
	}
	select {
	case req := <-rcv.requests:
		t.Fatalf("the loopback endpoint was called: %s %s", req.Method, req.URL)
	default:
	}
}

// smtpServer is a real SMTP server (github.com/emersion/go-smtp) on
// loopback that takes one user's PLAIN login and keeps what it receives.
type smtpServer struct {
	addr string
	mail chan receivedMail
}

type receivedMail struct {
	from string
	to   []string
	data string
}

type smtpSession struct {
	srv  *smtpServer
	auth bool
	m    receivedMail
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != "mailer" || pass != "s3cret" {
			return smtp.ErrAuthFailed
		}
		s.auth = true
		return nil
	}), nil
}
func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if !s.auth {
		return smtp.ErrAuthRequired
	}
	s.m.from = from
	return nil
}
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.m.to = append(s.m.to, to)
	return nil
}
func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.m.data = string(b)
	s.srv.mail <- s.m
	return nil
}
func (s *smtpSession) Reset()        { s.m = receivedMail{} }
func (s *smtpSession) Logout() error { return nil }

func startSMTP(t *testing.T) *smtpServer {
	t.Helper()
	s := &smtpServer{mail: make(chan receivedMail, 8)}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{srv: s}, nil }))
	srv.Addr = "127.0.0.1:0"
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = 30*time.Second, 30*time.Second
	ln, err := netListen(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *smtpServer) next(t *testing.T, ctx context.Context) receivedMail {
	t.Helper()
	select {
	case m := <-s.mail:
		return m
	case <-ctx.Done():
		t.Fatal("gave up waiting for an e-mail")
	}
	return receivedMail{}
}

// TestEmailChallengeReceived: a user sets an address, confirms it through
// the e-mailed link, chooses challenge.received, and a challenge to their
// bot reaches the SMTP server with the one-click unsubscribe headers.
// Nothing is sent for an event they did not choose.
func TestEmailChallengeReceived(t *testing.T) {
	mail := startSMTP(t)
	mailer, err := notify.ParseSMTPURL("smtp://mailer:s3cret@"+mail.addr, true)
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t, notify.Config{Mailer: mailer, From: "Broadside <noreply@broadside.test>",
		PublicURL: "https://broadside.test", Egress: egress.NewPolicy()})
	olga, olgaBot, olgaVersion := b.botVersion(t, "olga", "Quiet")
	ann, annBot, _ := b.botVersion(t, "ann", "Pyro")

	queue, err := jobs.NewClient(b.pool)
	if err != nil {
		t.Fatal(err)
	}
	settings := notify.NewSettings(b.st, queue.River(), true, true)
	if err := settings.SetEmail(b.ctx, olga, "olga@example.org"); err != nil {
		t.Fatal(err)
	}
	verify := mail.next(t, b.ctx)
	if verify.from != "noreply@broadside.test" || len(verify.to) != 1 || verify.to[0] != "olga@example.org" {
		t.Fatalf("verification from %s to %v", verify.from, verify.to)
	}
	link := regexp.MustCompile(`https://broadside\.test/notifications/verify\?token=([A-Za-z0-9_-]+)`).FindStringSubmatch(unfold(verify.data))
	if link == nil {
		t.Fatalf("no verification link in:\n%s", verify.data)
	}
	// Before the link is opened, events are recorded but nothing is sent.
	if err := b.st.NotifyEmailSetEvents(b.ctx, olga, []string{"challenge.received"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.ChallengeCreate(b.ctx, store.ChallengeCreateParams{ChallengerID: ann, ChallengerBotID: annBot, ChallengedBotID: olgaBot}); err != nil {
		t.Fatal(err)
	}
	b.waitDispatched(t)
	if _, err := b.st.NotifyEmailVerify(b.ctx, notify.TokenHash(link[1])); err != nil {
		t.Fatal(err)
	}
	// Not chosen: her build's outcome.
	if err := b.st.BotVersionFinishBuild(b.ctx, olgaVersion, store.BuildResult{Log: "failed"}); err != nil {
		t.Fatal(err)
	}
	id, err := b.st.ChallengeCreate(b.ctx, store.ChallengeCreateParams{ChallengerID: ann, ChallengerBotID: annBot, ChallengedBotID: olgaBot})
	if err != nil {
		t.Fatal(err)
	}
	m := mail.next(t, b.ctx)
	data := unfold(m.data)
	em, err := b.st.NotifyEmailGet(b.ctx, olga)
	if err != nil {
		t.Fatal(err)
	}
	unsub := "https://broadside.test/notifications/unsubscribe/" + em.UnsubscribeToken
	for _, want := range []string{
		"Subject: [Broadside] A challenge was received",
		"To: <olga@example.org>",
		"List-Unsubscribe: <" + unsub + ">",
		"List-Unsubscribe-Post: List-Unsubscribe=One-Click",
		"ann challenged your bot Quiet with Pyro (challenge " + itoa(id) + ").",
		unsub,
	} {
		if !strings.Contains(data, want) {
			t.Errorf("the e-mail lacks %q:\n%s", want, m.data)
		}
	}
	select {
	case extra := <-mail.mail:
		t.Fatalf("another e-mail was sent:\n%s", extra.data)
	case <-time.After(2 * time.Second):
	}
}

// unfold joins header lines folded by the mailer and undoes the
// quoted-printable soft line breaks of the body.
func unfold(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "=\n", "")
	s = strings.ReplaceAll(s, "=3D", "=")
	return regexp.MustCompile(`\n[ \t]+`).ReplaceAllString(s, " ")
}

// waitDispatched waits until every event so far was dispatched.
func (b *testBundle) waitDispatched(t *testing.T) {
	t.Helper()
	for {
		var pending int
		if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM notify_events WHERE dispatched_at IS NULL`).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		if pending == 0 {
			return
		}
		select {
		case <-b.ctx.Done():
			t.Fatalf("gave up waiting for %d events to be dispatched", pending)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestOneDispatcher: of two workers, one looks for events at a time, the
// one holding the dispatcher's lock; when it stops, the other takes over
// and the events go on reaching their hooks.
func TestOneDispatcher(t *testing.T) {
	cfg := notify.Config{Egress: egress.Policy{AllowLoopback: true}, LeadEvery: 100 * time.Millisecond}
	b := setup(t, cfg)
	// The first worker (setup's) holds the lock before the second starts.
	holders := func() int {
		t.Helper()
		var n int
		if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid = x'6e6f'::int::oid AND objid = x'74696679'::int::oid`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for deadline := time.Now().Add(time.Minute); holders() != 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no worker became the dispatcher in a minute")
		}
	}
	cfg.Store = b.st
	second := startDeliverer(t, b.ctx, b.pool, cfg)
	defer second()
	rcv := newReceiver(t, http.StatusNoContent)
	ann, _, version := b.botVersion(t, "ann", "Pyro")
	if _, err := b.st.WebhookCreate(b.ctx, ann, rcv.srv.URL, "whsec_one", []string{"build.finished"}, 5); err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, version, store.BuildResult{OK: true, Log: "ok"}); err != nil {
		t.Fatal(err)
	}
	rcv.next(t, b.ctx)
	// Over many of the second worker's tries for the lock, one holder.
	for range 5 {
		if n := holders(); n != 1 {
			t.Fatalf("%d dispatchers at once", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.stopDeliverer()
	later, err := b.st.UploadRecord(b.ctx, store.UploadParams{OwnerID: ann, Name: "Blaze", Game: "entelect", Language: "python",
		BotType: "python3", Manifest: json.RawMessage(`{}`), SourceSHA256: "00", SourceSize: 1,
		SourceKey: func(botID int64, n int) string { return "src2" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, later.VersionID, store.BuildResult{OK: true, Log: "ok"}); err != nil {
		t.Fatal(err)
	}
	rcv.next(t, b.ctx)
	if n := holders(); n != 1 {
		t.Errorf("%d dispatchers after the first worker stopped, want the second", n)
	}
}
