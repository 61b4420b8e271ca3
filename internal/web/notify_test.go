package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/jobs"
	"github.com/broadside/broadside/internal/notify"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
	"github.com/broadside/broadside/internal/web"
)

// setupNotify is setup with the notification settings the portal runs
// with (e-mail on, production URL rules) on the platform's River queue:
// a verification is a job in the queue, sent by a worker the test does not
// run.
func setupNotify(t *testing.T, inspect botupload.Inspector) *testBundle {
	t.Helper()
	t.Parallel()
	pool := testdb.NewPool(t)
	client, err := jobs.NewClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	settings := notify.NewSettings(store.New(pool), client.River(), false, true)
	q := &recordingQueue{}
	b := startPortalOn(t, pool, inspect, "mem://", func(c *web.Config) { c.Notifier = settings },
		func(*pgxpool.Pool) web.Queue { return q })
	b.queue = q
	return b
}

var secretPattern = regexp.MustCompile(`id="new-webhook-secret">(whsec_[A-Za-z0-9_-]+)<`)

// TestNotificationSettingsPages: the account page offers the settings and
// each form works: a webhook is added (its secret shown once), refused
// for a loopback or plain-http URL, changed, switched off and deleted; an
// address is set (a verification queued), confirmed through its link, its
// events chosen, and unsubscribed with one click.
func TestNotificationSettingsPages(t *testing.T) {
	b := setupNotify(t, nil)
	ann := b.browser(t)
	ann.register("ann")
	res := ann.get("/account")
	for _, want := range []string{`id="notifications"`, `action="/account/webhooks"`, `action="/account/notifications/email"`} {
		if res.status != http.StatusOK || !strings.Contains(res.body, want) {
			t.Fatalf("account page: status %d, lacks %s", res.status, want)
		}
	}

	for _, bad := range []string{"http://127.0.0.1:9000/hook", "http://hooks.example.org/x", "https://10.0.0.1/x"} {
		res := ann.post("/account/webhooks", url.Values{"url": {bad}, "event": {"build.finished"}, "csrf_token": {"-"}})
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "That webhook URL cannot be used") {
			t.Errorf("webhook %s: status %d", bad, res.status)
		}
	}
	res = ann.post("/account/webhooks", url.Values{"url": {"https://hooks.example.org/broadside"},
		"event": {"build.finished", "challenge.received"}, "csrf_token": {"-"}})
	m := secretPattern.FindStringSubmatch(res.body)
	if res.status != http.StatusOK || m == nil || res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("add webhook: status %d, secret shown %v, %s", res.status, m != nil, res.header.Get("Cache-Control"))
	}
	hooks, err := b.st.WebhookList(b.ctx, b.userID(t, "ann"))
	if err != nil || len(hooks) != 1 || hooks[0].Secret != m[1] || strings.Join(hooks[0].Events, ",") != "build.finished,challenge.received" {
		t.Fatalf("hooks %+v, %v", hooks, err)
	}
	if again := ann.get("/account"); strings.Contains(again.body, m[1]) {
		t.Error("the secret is shown again")
	}
	id := hooks[0].ID
	res = ann.post(fmt.Sprintf("/account/webhooks/%d", id), url.Values{"event": {"bot.paused"}, "csrf_token": {"-"}})
	if h, _ := b.st.WebhookGetByID(b.ctx, id); res.status != http.StatusOK || h.DisabledAt == nil || strings.Join(h.Events, ",") != "bot.paused" {
		t.Errorf("change webhook: status %d, %+v", res.status, h)
	}
	if !strings.Contains(res.body, "Switched off by you.") {
		t.Error("the page does not say the hook is off")
	}
	// Another user cannot touch ann's hook.
	ben := b.browser(t)
	ben.register("ben")
	if res := ben.post(fmt.Sprintf("/account/webhooks/%d", id), url.Values{"on": {"1"}, "csrf_token": {"-"}}); res.status != http.StatusNotFound {
		t.Errorf("ben changes ann's hook: status %d", res.status)
	}
	if res := ben.post(fmt.Sprintf("/account/webhooks/%d/delete", id), url.Values{"csrf_token": {"-"}}); res.status != http.StatusSeeOther {
		t.Errorf("ben deletes ann's hook: status %d", res.status)
	}
	if _, err := b.st.WebhookGetByID(b.ctx, id); err != nil {
		t.Fatalf("ann's hook after ben's delete: %v", err)
	}
	if res := ann.post(fmt.Sprintf("/account/webhooks/%d/delete", id), url.Values{"csrf_token": {"-"}}); res.status != http.StatusSeeOther {
		t.Errorf("delete: status %d", res.status)
	}
	if hooks, _ := b.st.WebhookList(b.ctx, b.userID(t, "ann")); len(hooks) != 0 {
		t.Errorf("after delete: %+v", hooks)
	}

	if res := ann.post("/account/notifications/email", url.Values{"address": {"not an address"}, "csrf_token": {"-"}}); res.status != http.StatusUnprocessableEntity {
		t.Errorf("bad address: status %d", res.status)
	}
	res = ann.post("/account/notifications/email", url.Values{"address": {"ann@example.org"}, "csrf_token": {"-"}})
	if res.status != http.StatusOK || !strings.Contains(res.body, "We sent a confirmation link to ann@example.org") {
		t.Fatalf("set address: status %d", res.status)
	}
	if res := ann.post("/account/notifications/email", url.Values{"address": {"someone.else@example.org"}, "csrf_token": {"-"}}); res.status != http.StatusTooManyRequests {
		t.Errorf("a second address within a minute: status %d", res.status)
	}
	var verifications int
	if err := b.st.DB().QueryRow(b.ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_verify' AND args->>'address' = 'ann@example.org'`).Scan(&verifications); err != nil || verifications != 1 {
		t.Fatalf("verification jobs: %d, %v", verifications, err)
	}
	if res := ann.post("/account/notifications/email/events", url.Values{"event": {"build.failed", "bot.paused"}, "csrf_token": {"-"}}); res.status != http.StatusOK {
		t.Errorf("choose events: status %d", res.status)
	}
	if res := ann.post("/account/notifications/email/events", url.Values{"event": {"build.exploded"}, "csrf_token": {"-"}}); res.status != http.StatusUnprocessableEntity {
		t.Errorf("unknown event: status %d", res.status)
	}
	// The link a worker would send (its token made as the worker makes it).
	const token = "test-verification-token"
	if ok, err := b.st.NotifyEmailSetVerifyToken(b.ctx, b.userID(t, "ann"), "ann@example.org", notify.TokenHash(token)); err != nil || !ok {
		t.Fatalf("verification token: %v %v", ok, err)
	}
	visitor := b.browser(t)
	if res := visitor.get("/notifications/verify?token=wrong"); res.status != http.StatusNotFound {
		t.Errorf("wrong token: status %d", res.status)
	}
	if res := visitor.get("/notifications/verify?token=" + token); res.status != http.StatusOK || !strings.Contains(res.body, "Address confirmed") {
		t.Fatalf("verify: status %d", res.status)
	}
	if res := visitor.get("/notifications/verify?token=" + token); res.status != http.StatusNotFound {
		t.Errorf("a used link: status %d", res.status)
	}
	em, err := b.st.NotifyEmailGet(b.ctx, b.userID(t, "ann"))
	if err != nil || em.VerifiedAt == nil || strings.Join(em.Events, ",") != "build.failed,bot.paused" {
		t.Fatalf("address after verification: %+v, %v", em, err)
	}
	if res := ann.get("/account"); !strings.Contains(res.body, "(confirmed)") {
		t.Error("the account page does not show the address confirmed")
	}
	unsub := "/notifications/unsubscribe/" + em.UnsubscribeToken
	if res := visitor.get(unsub); res.status != http.StatusOK || !strings.Contains(res.body, "ann@example.org") {
		t.Errorf("unsubscribe page: status %d", res.status)
	}
	// A mail program's one-click POST (RFC 8058): no session, no form token.
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+unsub, strings.NewReader("List-Unsubscribe=One-Click"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if res := visitor.do(req); res.status != http.StatusOK || !strings.Contains(res.body, "Unsubscribed") {
		t.Fatalf("one-click unsubscribe: status %d: %s", res.status, res.body)
	}
	if em, _ := b.st.NotifyEmailGet(b.ctx, b.userID(t, "ann")); len(em.Events) != 0 {
		t.Errorf("events after unsubscribe: %v", em.Events)
	}
	if res := visitor.get("/notifications/unsubscribe/nonsense"); res.status != http.StatusNotFound {
		t.Errorf("unknown unsubscribe token: status %d", res.status)
	}
}

// TestNotificationSettingsAPI: the JSON API sets the same settings; a hook
// of another user is out of reach.
func TestNotificationSettingsAPI(t *testing.T) {
	b := setupNotify(t, nil)
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	annTok, benTok := ann.apiToken("script"), ben.apiToken("script")

	status, out := b.api(t, "POST", "/api/me/webhooks", annTok, "application/json",
		[]byte(`{"url": "https://hooks.example.org/b", "events": ["build.finished", "bot.faulted"]}`))
	secret, _ := out["secret"].(string)
	if status != http.StatusCreated || !strings.HasPrefix(secret, "whsec_") || out["enabled"] != true {
		t.Fatalf("create: %d %v", status, out)
	}
	id := int64(out["id"].(float64))
	for _, body := range []string{`{"url": "http://127.0.0.1/b", "events": []}`, `{"url": "https://hooks.example.org/b", "events": ["nope"]}`} {
		if status, out := b.api(t, "POST", "/api/me/webhooks", annTok, "application/json", []byte(body)); status != http.StatusUnprocessableEntity {
			t.Errorf("create %s: %d %v", body, status, out)
		}
	}
	if status, _ := b.api(t, "PATCH", fmt.Sprintf("/api/me/webhooks/%d", id), benTok, "application/json", []byte(`{"enabled": false}`)); status != http.StatusNotFound {
		t.Errorf("ben patches ann's hook: %d", status)
	}
	status, out = b.api(t, "PATCH", fmt.Sprintf("/api/me/webhooks/%d", id), annTok, "application/json", []byte(`{"enabled": false}`))
	if status != http.StatusOK || out["enabled"] != false || out["secret"] != nil {
		t.Errorf("switch off: %d %v", status, out)
	}
	status, out = b.api(t, "PUT", "/api/me/notifications/email", annTok, "application/json",
		[]byte(`{"address": "ann@example.org", "events": ["challenge.received"]}`))
	if status != http.StatusOK || out["verified"] != false || out["address"] != "ann@example.org" {
		t.Errorf("set e-mail: %d %v", status, out)
	}
	status, out = b.api(t, "GET", "/api/me/notifications", annTok, "", nil)
	raw, _ := json.Marshal(out)
	if status != http.StatusOK || !strings.Contains(string(raw), `"events":["challenge.received"]`) ||
		!strings.Contains(string(raw), `"url":"https://hooks.example.org/b"`) || strings.Contains(string(raw), secret) {
		t.Errorf("get: %d %s", status, raw)
	}
	if status, out := b.api(t, "GET", "/api/me/notifications", benTok, "", nil); status != http.StatusOK || len(out["webhooks"].([]any)) != 0 {
		t.Errorf("ben sees: %d %v", status, out)
	}
	if status, _ := b.api(t, "DELETE", fmt.Sprintf("/api/me/webhooks/%d", id), benTok, "", nil); status != http.StatusNotFound {
		t.Errorf("ben deletes ann's hook: %d", status)
	}
	if status, out := b.api(t, "DELETE", fmt.Sprintf("/api/me/webhooks/%d", id), annTok, "", nil); status != http.StatusOK {
		t.Errorf("delete: %d %v", status, out)
	}
}
