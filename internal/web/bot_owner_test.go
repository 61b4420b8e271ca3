package web_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/store"
)

// uploadFields posts a zip through the upload form with the given fields
// (game, bot_id, name).
func (br *browser) uploadFields(fields map[string]string, data []byte) response {
	br.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("csrf_token", br.token("/bots/new"))
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("zip", "bot.zip")
	_, _ = fw.Write(data)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, br.base+"/bots/new", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return br.do(req)
}

// TestOwnerControls: a bot's owner pauses and resumes it on the ladder,
// renames it, retires it and brings it back, uploads a new version to it
// under a new name, and downloads every version and build log; nobody
// else can, except that the house bots' versions are everyone's.
func TestOwnerControls(t *testing.T) {
	b := setup(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()})
	ann, bob, visitor := b.browser(t), b.browser(t), b.browser(t)
	ann.register("ann")
	bob.register("bob")
	zipData := goodZip(t)
	botID := ann.uploadBot("", zipData)
	v1, err := b.st.BotVersionGetByNumber(b.ctx, botID, 1)
	if err != nil {
		t.Fatal(err)
	}
	bot := fmt.Sprintf("/bots/%d", botID)
	// While the first build runs there is no version on the ladder to pause.
	if res := ann.get(bot); !strings.Contains(res.body, "No version has built yet") || strings.Contains(res.body, "Pause on the ladder") {
		t.Fatalf("before its first build, the bot page offers to pause it:\n%s", res.body)
	}
	if err := b.st.BotVersionFinishBuild(b.ctx, v1.ID, store.BuildResult{OK: true, Log: "built Pyro fine", ArtifactKey: "a"}); err != nil {
		t.Fatal(err)
	}
	if res := ann.get(bot); !strings.Contains(res.body, "Pause on the ladder") {
		t.Fatal("once built, the bot page does not offer to pause it")
	}
	control := func(br *browser, action string, form url.Values) response {
		t.Helper()
		if form == nil {
			form = url.Values{}
		}
		form.Set("csrf_token", br.token(bot))
		return br.post(bot+"/"+action, form)
	}
	state := func() *store.Bot {
		t.Helper()
		got, err := b.st.BotGetByID(b.ctx, botID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	onLadder := func() bool {
		t.Helper()
		cands, err := b.st.LadderCandidates(b.ctx, "entelect")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			if c.BotID == botID {
				return true
			}
		}
		return false
	}

	t.Run("downloads are the owner's", func(t *testing.T) {
		for _, tc := range []struct {
			who    *browser
			path   string
			status int
			want   string
		}{
			{ann, "/versions/1/source.zip", 200, string(zipData)},
			{ann, "/versions/1/build.log", 200, "built Pyro fine"},
			{bob, "/versions/1/source.zip", 404, "Only the owner"},
			{visitor, "/versions/1/build.log", 404, "Only the owner"},
			{ann, "/versions/2/source.zip", 404, ""},
			{ann, "/versions/x/source.zip", 404, ""},
		} {
			res := tc.who.get(bot + tc.path)
			if res.status != tc.status || !strings.Contains(res.body, tc.want) {
				t.Errorf("GET %s: status %d, want %d with %q", tc.path, res.status, tc.status, tc.want)
			}
		}
		if res := ann.get(bot + "/versions/1/source.zip"); !strings.Contains(res.header.Get("Content-Disposition"), `filename="Pyro-v1.zip"`) {
			t.Errorf("download named %q", res.header.Get("Content-Disposition"))
		}
		if res := ann.get(bot); !strings.Contains(res.body, bot+`/versions/1/source.zip`) || !strings.Contains(res.body, bot+`/versions/1/build.log`) {
			t.Errorf("the owner's bot page does not link the downloads")
		}
		if res := bob.get(bot); strings.Contains(res.body, "/source.zip") || strings.Contains(res.body, "Pause on the ladder") {
			t.Errorf("another contestant sees the owner's downloads or controls")
		}
	})

	t.Run("pause and resume", func(t *testing.T) {
		if !onLadder() {
			t.Fatal("a built bot is not a ladder candidate")
		}
		res := control(ann, "pause", nil)
		if res.status != http.StatusSeeOther || !state().Paused || onLadder() {
			t.Fatalf("pause: status %d, paused %v, on the ladder %v", res.status, state().Paused, onLadder())
		}
		if page := ann.get(res.header.Get("Location")); !strings.Contains(page.body, "Paused: the matchmaker leaves this bot out") ||
			!strings.Contains(page.body, "Resume on the ladder") || !strings.Contains(page.body, "Paused by its owner") {
			t.Errorf("the page after pausing:\n%s", page.body)
		}
		if res := ann.get("/leaderboard"); !strings.Contains(res.body, "Pyro") {
			t.Errorf("a paused bot left the leaderboard")
		}
		if res := control(bob, "resume", nil); res.status != http.StatusForbidden || !state().Paused {
			t.Errorf("another contestant resumed it: status %d", res.status)
		}
		if res := control(ann, "resume", nil); res.status != http.StatusSeeOther || state().Paused || !onLadder() {
			t.Errorf("resume: status %d", res.status)
		}
	})

	t.Run("back on the ladder after failing", func(t *testing.T) {
		if res := control(ann, "ladder", nil); res.status != http.StatusConflict {
			t.Errorf("restart of a bot that plays: status %d, want 409", res.status)
		}
		const why = "5 ranked matches in a row lost by a crash, a time-out or a forfeit; the last, match 77: crashed (exit code 1)"
		if _, err := b.st.DB().Exec(b.ctx, `UPDATE bots SET fault_stopped_at = now(), fault_streak = 5, fault_stop_reason = $2 WHERE id = $1`,
			botID, why); err != nil {
			t.Fatal(err)
		}
		if onLadder() {
			t.Fatal("a bot stopped for failing is still a ladder candidate")
		}
		page := ann.get(bot)
		if !strings.Contains(page.body, "Off the ladder: "+why) || !strings.Contains(page.body, "Back on the ladder") {
			t.Errorf("the owner's page of a stopped bot does not say why or offer the button:\n%s", page.body)
		}
		if res := bob.get(bot); !strings.Contains(res.body, "Off the ladder: "+why) || strings.Contains(res.body, ">Back on the ladder<") {
			t.Errorf("another contestant's view of a stopped bot: reason shown %v", strings.Contains(res.body, why))
		}
		if res := control(bob, "ladder", nil); res.status != http.StatusForbidden || state().FaultStoppedAt == nil {
			t.Errorf("another contestant put it back: status %d", res.status)
		}
		res := control(ann, "ladder", nil)
		if res.status != http.StatusSeeOther || state().FaultStoppedAt != nil || !onLadder() {
			t.Fatalf("owner's restart: status %d, stopped %v, on the ladder %v", res.status, state().FaultStoppedAt, onLadder())
		}
		if page := ann.get(res.header.Get("Location")); !strings.Contains(page.body, "Back on the ladder: its count of failed matches starts again") {
			t.Errorf("the page after the restart:\n%s", page.body)
		}
	})

	t.Run("rename", func(t *testing.T) {
		if _, err := b.st.UploadRecord(b.ctx, store.UploadParams{OwnerID: state().OwnerID, Name: "Kraken", Game: "entelect",
			Language: "Python3", BotType: "Python3", Manifest: []byte(`{}`), SourceSHA256: "00", SourceKey: func(int64, int) string { return "k" }}); err != nil {
			t.Fatal(err)
		}
		// A rename meets the rules of an upload's name: none that reads
		// as a house bot's.
		house, err := b.st.UserEnsure(b.ctx, "house")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.st.UploadRecord(b.ctx, store.UploadParams{OwnerID: house.ID, Name: "Python3 Starter", Game: "entelect", House: true,
			Language: "Python3", BotType: "Python3", Manifest: []byte(`{}`), SourceSHA256: "01", SourceKey: func(int64, int) string { return "h" }}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name   string
			status int
			want   string
		}{
			{"", 422, "Give the bot a name"},
			{"kraken", 409, "You already have a bot called &#34;kraken&#34;"},
			{"Pyth0n3 starter", 409, "a house bot of the platform"},
			{strings.Repeat("x", 65), 422, "at most 64 characters"},
		} {
			res := control(ann, "rename", url.Values{"name": {tc.name}})
			if res.status != tc.status || !strings.Contains(res.body, tc.want) {
				t.Errorf("rename to %q: status %d, want %d with %q", tc.name, res.status, tc.status, tc.want)
			}
		}
		if res := control(bob, "rename", url.Values{"name": {"Stolen"}}); res.status != http.StatusForbidden {
			t.Errorf("another contestant renamed it: status %d", res.status)
		}
		if res := control(ann, "rename", url.Values{"name": {" Leviathan "}}); res.status != http.StatusSeeOther || state().Name != "Leviathan" {
			t.Fatalf("rename: status %d, name %q", res.status, state().Name)
		}
	})

	t.Run("retire and bring back", func(t *testing.T) {
		if res := control(ann, "retire", nil); res.status != http.StatusSeeOther || !state().Retired || !state().Disabled || onLadder() {
			t.Fatalf("retire: status %d, %+v", res.status, state())
		}
		if res := ann.get("/leaderboard"); strings.Contains(res.body, "Leviathan") {
			t.Errorf("a retired bot is still on the leaderboard")
		}
		if res := control(ann, "retire", nil); res.status != http.StatusConflict {
			t.Errorf("retiring twice: status %d", res.status)
		}
		if res := control(ann, "unretire", nil); res.status != http.StatusSeeOther || state().Disabled || !onLadder() {
			t.Fatalf("bring back: status %d, %+v", res.status, state())
		}
		// An organiser's disabling is not the owner's to undo.
		if err := b.st.BotSetDisabled(b.ctx, botID, true); err != nil {
			t.Fatal(err)
		}
		if res := control(ann, "unretire", nil); res.status != http.StatusConflict || !state().Disabled {
			t.Errorf("the owner brought back a bot an organiser disabled: status %d", res.status)
		}
		if res := ann.get(bot); !strings.Contains(res.body, "disabled by an organiser") || strings.Contains(res.body, "Bring it back") {
			t.Errorf("the bot page of a disabled bot:\n%s", res.body)
		}
		if err := b.st.BotSetDisabled(b.ctx, botID, false); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a new version, and a new name, on upload", func(t *testing.T) {
		if res := ann.get("/bots/new?bot=" + fmt.Sprint(botID)); !strings.Contains(res.body, fmt.Sprintf(`<option value="%d" selected>Leviathan`, botID)) {
			t.Errorf("the upload form does not preselect the bot:\n%s", res.body)
		}
		res := ann.uploadFields(map[string]string{"bot_id": fmt.Sprint(botID), "name": "Nautilus", "game": "entelect"}, zipData)
		if res.status != http.StatusSeeOther || res.header.Get("Location") != bot+"?uploaded=2" || state().Name != "Nautilus" {
			t.Fatalf("upload with a new name: status %d to %q, name %q\n%s", res.status, res.header.Get("Location"), state().Name, res.body)
		}
		res = ann.uploadFields(map[string]string{"bot_id": fmt.Sprint(botID), "name": "Kraken"}, zipData)
		if res.status != http.StatusConflict || !strings.Contains(res.body, "You already have a bot called") || state().Name != "Nautilus" {
			t.Errorf("upload renaming to a taken name: status %d, name %q", res.status, state().Name)
		}
		res = bob.uploadFields(map[string]string{"bot_id": fmt.Sprint(botID)}, zipData)
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "Choose one of your bots") {
			t.Errorf("bob uploading to ann's bot: status %d", res.status)
		}
		res = ann.uploadFields(map[string]string{"game": "deepship"}, zipData)
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "says it plays Entelect, and you chose In Deep Ship") {
			t.Errorf("an Entelect zip uploaded as In Deep Ship: status %d\n%s", res.status, res.body)
		}
	})

	t.Run("the house bots' versions are the starter kits", func(t *testing.T) {
		if err := b.st.BotSetHouse(b.ctx, botID, true); err != nil {
			t.Fatal(err)
		}
		res := visitor.get(bot + "/versions/2/source.zip")
		if res.status != http.StatusOK || res.body != string(zipData) {
			t.Errorf("a visitor downloading a house bot's version: status %d", res.status)
		}
		// A starter kit is saved under a name that says what it is.
		if got, want := res.header.Get("Content-Disposition"), `attachment; filename="broadside-entelect-`; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, `-starter.zip"`) {
			t.Errorf("the starter kit downloads as %q", got)
		}
		if res := visitor.get("/play/entelect"); !strings.Contains(res.body, bot+"/versions/1/source.zip") {
			t.Errorf("getting started does not offer the house bot's current version:\n%s", res.body)
		}
	})
}
