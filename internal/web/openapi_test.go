package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/game/rulesets"
)

// apiDoc is the OpenAPI document as the portal serves it, with its
// schemas compiled (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
type apiDoc struct {
	raw      map[string]any
	compiler *jsonschema.Compiler
}

const docURL = "file:///openapi.json"

func loadAPIDoc(t *testing.T, b *testBundle) *apiDoc {
	t.Helper()
	res, err := http.Get(b.srv.URL + "/api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /api/openapi.json: status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	d := &apiDoc{compiler: jsonschema.NewCompiler()}
	if err := json.Unmarshal(body, &d.raw); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	d.compiler.DefaultDraft(jsonschema.Draft2020)
	d.compiler.AssertFormat()
	if err := d.compiler.AddResource(docURL, inst); err != nil {
		t.Fatal(err)
	}
	return d
}

// at follows a JSON pointer into the document.
func (d *apiDoc) at(ptr string) (any, bool) {
	var v any = d.raw
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

func escape(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1") }

// responsePtr is the pointer to the response an operation documents for
// status, through a $ref to the shared responses.
func (d *apiDoc) responsePtr(method, path string, status int) (string, bool) {
	ptr := fmt.Sprintf("/paths/%s/%s/responses/%d", escape(path), strings.ToLower(method), status)
	v, ok := d.at(ptr)
	if !ok {
		return "", false
	}
	if ref, ok := v.(map[string]any)["$ref"].(string); ok {
		ptr = strings.TrimPrefix(ref, "#")
		if _, ok := d.at(ptr); !ok {
			return "", false
		}
	}
	return ptr, true
}

// TestOpenAPIDocument checks the served document: OpenAPI 3.1 with bearer
// auth, every $ref resolves, every operation has an id and described
// responses, every path parameter is declared, and every schema compiles
// against the JSON Schema 2020-12 meta-schema.
func TestOpenAPIDocument(t *testing.T) {
	b := setup(t, nil)
	d := loadAPIDoc(t, b)
	if v, _ := d.at("/openapi"); v != "3.1.0" {
		t.Errorf("openapi is %v, want 3.1.0", v)
	}
	for _, p := range []string{"/info/title", "/info/version"} {
		if v, _ := d.at(p); v == "" || v == nil {
			t.Errorf("%s is empty", p)
		}
	}
	if v, _ := d.at("/components/securitySchemes/bearer/scheme"); v != "bearer" {
		t.Errorf("no bearer security scheme: %v", v)
	}
	// Every $ref resolves, and every schema compiles.
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if _, ok := d.at(strings.TrimPrefix(ref, "#")); !strings.HasPrefix(ref, "#/") || !ok {
					t.Errorf("%s: $ref %q does not resolve", ptr, ref)
				}
			}
			if _, ok := v["schema"]; ok {
				if _, err := d.compiler.Compile(docURL + "#" + ptr + "/schema"); err != nil {
					t.Errorf("%s/schema: %v", ptr, err)
				}
			}
			for k, x := range v {
				walk(ptr+"/"+escape(k), x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s/%d", ptr, i), x)
			}
		}
	}
	walk("", d.raw)
	schemas, _ := d.at("/components/schemas")
	for name := range schemas.(map[string]any) {
		if _, err := d.compiler.Compile(docURL + "#/components/schemas/" + name); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
	// Operations: ids unique, responses described, path parameters declared.
	ids := map[string]bool{}
	paths, _ := d.at("/paths")
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for path, item := range paths.(map[string]any) {
		if !strings.HasPrefix(path, "/api/") {
			t.Errorf("path %s is outside /api/", path)
		}
		var want []string
		for _, m := range param.FindAllStringSubmatch(path, -1) {
			want = append(want, m[1])
		}
		for method, op := range item.(map[string]any) {
			op := op.(map[string]any)
			name := strings.ToUpper(method) + " " + path
			id, _ := op["operationId"].(string)
			if id == "" || ids[id] {
				t.Errorf("%s: operationId %q missing or used twice", name, id)
			}
			ids[id] = true
			responses, _ := op["responses"].(map[string]any)
			if len(responses) == 0 {
				t.Errorf("%s: no responses", name)
			}
			for status := range responses {
				code, err := strconv.Atoi(status)
				if err != nil {
					t.Errorf("%s: response %q is not a status code", name, status)
					continue
				}
				ptr, ok := d.responsePtr(method, path, code)
				if !ok {
					t.Errorf("%s: response %s does not resolve", name, status)
					continue
				}
				if desc, _ := d.at(ptr + "/description"); desc == nil || desc == "" {
					t.Errorf("%s: response %s has no description", name, status)
				}
			}
			var got []string
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				p := p.(map[string]any)
				if ref, ok := p["$ref"].(string); ok {
					v, _ := d.at(strings.TrimPrefix(ref, "#"))
					p, _ = v.(map[string]any)
				}
				if p["in"] == "path" {
					if p["required"] != true {
						t.Errorf("%s: path parameter %v is not required", name, p["name"])
					}
					got = append(got, p["name"].(string))
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: path parameters declared %v, in the path %v", name, got, want)
			}
		}
	}
}

// TestOpenAPIAnswers calls every GET operation of the document over a
// portal with a little data (bots, a played match, a finished battle, a
// challenge), and the writes that make that data, and checks each answer
// against the schema the document gives for its status: an answer with a
// field the document does not list, or without one it requires, fails.
func TestOpenAPIAnswers(t *testing.T) {
	b := setupNotify(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()})
	d := loadAPIDoc(t, b)
	org, ann, battle, annBot, olgaBot := b.hiddenBattle(t)
	annTok, orgTok := ann.apiToken("laptop"), org.apiToken("desk")
	for _, res := range []response{battleAct(ann, battle, "enter", annBot), battleAct(org, battle, "enter", olgaBot), battleAct(org, battle, "start", 0)} {
		if res.status != http.StatusSeeOther {
			t.Fatalf("enter or start: status %d", res.status)
		}
	}
	b.finishDuel(t, b.queue.matchIDs()[0], annBot)
	svc := competition.New(b.st, b.queue, slog.New(slog.NewTextHandler(io.Discard, nil)), rulesets.Registry())
	if err := svc.AdvanceBattle(b.ctx, battle); err != nil {
		t.Fatal(err)
	}
	annVersion, _ := b.st.BotGetByID(b.ctx, annBot)
	olgaVersion, _ := b.st.BotGetByID(b.ctx, olgaBot)
	match := b.playedMatch(t, [2][2]int64{{annBot, *annVersion.CurrentVersionID}, {olgaBot, *olgaVersion.CurrentVersionID}})
	rate(t, b, match, map[int64][2]float64{annBot: {1500, 1540}, olgaBot: {1500, 1460}}, map[int64]string{annBot: "win", olgaBot: "loss"})

	checked := map[string]bool{}
	call := func(t *testing.T, method, path, route, token, contentType string, body []byte) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, b.srv.URL+path, bytes.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		ptr, ok := d.responsePtr(method, route, res.StatusCode)
		if !ok {
			t.Fatalf("%s %s: status %d is not documented for %s: %s", method, path, res.StatusCode, route, raw)
		}
		mediaType, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
		media := "application/json"
		if mediaType == "text/csv" || mediaType == "application/x-ndjson" {
			media = mediaType
		}
		if _, ok := d.at(ptr + "/content/" + escape(media)); !ok {
			t.Fatalf("%s %s: %s is not documented for %d", method, path, media, res.StatusCode)
		}
		sch, err := d.compiler.Compile(docURL + "#" + ptr + "/content/" + escape(media) + "/schema")
		if err != nil {
			t.Fatalf("%s %s: schema of %d: %v", method, path, res.StatusCode, err)
		}
		switch media {
		case "text/csv":
			// A CSV answer is a string; its columns are checked against
			// the JSON lines of the same export.
		case "application/x-ndjson":
			// Each line is one object of the schema.
			lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
			if len(lines) == 0 || lines[0] == "" {
				t.Fatalf("%s %s: no lines to check", method, path)
			}
			for _, line := range lines {
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
				if err != nil {
					t.Fatalf("%s %s: line is not JSON: %v: %s", method, path, err, line)
				}
				if err := sch.Validate(inst); err != nil {
					t.Errorf("%s %s: line does not match its schema: %v\n%s", method, path, err, line)
				}
			}
		default:
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%s %s: answer is not JSON: %v", method, path, err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s %s: answer %d does not match its schema: %v\n%s", method, path, res.StatusCode, err, raw)
			}
		}
		if res.StatusCode < 300 {
			checked[method+" "+route] = true
		}
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return res.StatusCode, out
	}

	// Writes: an upload, a challenge declined, one accepted.
	if status, _ := call(t, "POST", "/api/bots?name=Pyro2", "/api/bots", annTok, "application/zip", goodZip(t)); status != http.StatusCreated {
		t.Fatalf("upload: status %d", status)
	}
	challenge := func() int64 {
		t.Helper()
		status, out := call(t, "POST", fmt.Sprintf("/api/bots/%d/challenge", olgaBot), "/api/bots/{id}/challenge", annTok,
			"application/json", fmt.Appendf(nil, `{"bot_id": %d}`, annBot))
		if status != http.StatusAccepted && status != http.StatusCreated {
			t.Fatalf("challenge: status %d: %v", status, out)
		}
		return int64(out["challenge_id"].(float64))
	}
	first, second := challenge(), challenge()
	call(t, "POST", fmt.Sprintf("/api/challenges/%d/decline", first), "/api/challenges/{id}/decline", orgTok, "", nil)
	call(t, "POST", fmt.Sprintf("/api/challenges/%d/accept", second), "/api/challenges/{id}/accept", orgTok, "", nil)
	// A duel of ann's bot against another of hers.
	annMk2, _ := b.builtBot(t, b.userID(t, "ann"), "Pyro Mk2")
	status, out := call(t, "POST", fmt.Sprintf("/api/bots/%d/duel", annBot), "/api/bots/{id}/duel", annTok,
		"application/json", fmt.Appendf(nil, `{"opponent_bot_id": %d, "max_games": 4}`, annMk2))
	if status != http.StatusCreated {
		t.Fatalf("duel: status %d: %v", status, out)
	}
	duelID := int64(out["id"].(float64))

	// Notification settings: a webhook added, changed and deleted, an
	// address set.
	status, hook := call(t, "POST", "/api/me/webhooks", "/api/me/webhooks", annTok, "application/json",
		[]byte(`{"url": "https://hooks.example.org/broadside", "events": ["build.finished"]}`))
	if status != http.StatusCreated {
		t.Fatalf("create webhook: status %d: %v", status, hook)
	}
	hookPath := fmt.Sprintf("/api/me/webhooks/%d", int64(hook["id"].(float64)))
	call(t, "PATCH", hookPath, "/api/me/webhooks/{id}", annTok, "application/json", []byte(`{"events": ["bot.paused"], "enabled": false}`))
	call(t, "PUT", "/api/me/notifications/email", "/api/me/notifications/email", annTok, "application/json",
		[]byte(`{"address": "ann@example.org", "events": ["challenge.received"]}`))
	call(t, "GET", "/api/me/notifications", "/api/me/notifications", annTok, "", nil)
	call(t, "DELETE", hookPath, "/api/me/webhooks/{id}", annTok, "", nil)
	call(t, "PATCH", hookPath, "/api/me/webhooks/{id}", annTok, "application/json", []byte(`{"enabled": true}`))
	call(t, "PUT", "/api/me/notifications/email", "/api/me/notifications/email", annTok, "application/json", []byte(`{"events": ["nope"]}`))

	gets := []struct{ path, route, token string }{
		{"/api/openapi.json", "/api/openapi.json", ""},
		{"/api/me", "/api/me", annTok},
		{"/api/me/bots", "/api/me/bots", annTok},
		{fmt.Sprintf("/api/bots/%d", annBot), "/api/bots/{id}", annTok},
		{fmt.Sprintf("/api/bots/%d", olgaBot), "/api/bots/{id}", ""},
		{"/api/challenges", "/api/challenges", annTok},
		{"/api/challenges?status=declined", "/api/challenges", orgTok},
		{fmt.Sprintf("/api/challenges/%d", second), "/api/challenges/{id}", annTok},
		{"/api/matches", "/api/matches", ""},
		{fmt.Sprintf("/api/matches?bot=%d&kind=challenge", annBot), "/api/matches", annTok},
		{fmt.Sprintf("/api/matches/%d", match), "/api/matches/{id}", annTok},
		{fmt.Sprintf("/api/matches/%d", match), "/api/matches/{id}", ""},
		{"/api/leaderboard", "/api/leaderboard", ""},
		{"/api/battles", "/api/battles", ""},
		{fmt.Sprintf("/api/battles/%d", battle), "/api/battles/{id}", ""},
		{fmt.Sprintf("/api/battles/%d", battle), "/api/battles/{id}", orgTok},
		{fmt.Sprintf("/api/duels/%d", duelID), "/api/duels/{id}", ""},
		{"/api/matches?kind=duel&mine=true", "/api/matches", annTok},
		{"/api/exports/matches?format=jsonl", "/api/exports/matches", ""},
		{"/api/exports/matches?format=csv", "/api/exports/matches", annTok},
		{"/api/exports/rating-events?format=jsonl", "/api/exports/rating-events", ""},
		{"/api/exports/leaderboard?format=jsonl", "/api/exports/leaderboard", ""},
		{fmt.Sprintf("/api/battles/%d/exports/matches?format=jsonl", battle), "/api/battles/{id}/exports/matches", orgTok},
		{fmt.Sprintf("/api/battles/%d/exports/standings?format=jsonl", battle), "/api/battles/{id}/exports/standings", orgTok},
	}
	for _, g := range gets {
		if status, out := call(t, "GET", g.path, g.route, g.token, "", nil); status != http.StatusOK {
			t.Errorf("GET %s: status %d: %v", g.path, status, out)
		}
	}
	// Refusals answer with the documented error.
	for _, g := range []struct{ path, route, token string }{
		{"/api/bots/999999", "/api/bots/{id}", ""},
		{"/api/me", "/api/me", ""},
		{"/api/matches?result=won", "/api/matches", ""},
		{"/api/duels/999999", "/api/duels/{id}", ""},
		{"/api/leaderboard", "/api/leaderboard", "bs_nope"},
		{"/api/exports/matches?format=xml", "/api/exports/matches", ""},
		{fmt.Sprintf("/api/battles/%d/exports/matches", battle), "/api/battles/{id}/exports/matches", annTok},
		{fmt.Sprintf("/api/battles/%d/exports/standings", battle), "/api/battles/{id}/exports/standings", annTok},
	} {
		if status, _ := call(t, "GET", g.path, g.route, g.token, "", nil); status < 400 {
			t.Errorf("GET %s: status %d, want a refusal", g.path, status)
		}
	}

	// Every GET operation of the document was answered and checked.
	paths, _ := d.at("/paths")
	for path, item := range paths.(map[string]any) {
		for method := range item.(map[string]any) {
			if key := strings.ToUpper(method) + " " + path; !checked[key] {
				t.Errorf("%s was not called with a successful answer", key)
			}
		}
	}
}
