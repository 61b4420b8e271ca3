package web_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/botupload"
	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/store"
)

type zipFile struct {
	name string
	body []byte
	mode fs.FileMode
}

func makeZip(t *testing.T, files ...zipFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		if f.mode != 0 {
			h.SetMode(f.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const pythonBotJSON = `{"Author":"Ann","Email":"ann@example.com","NickName":"Pyro","BotType":"Python3","ProjectLocation":"","RunFile":"bot.py","RunArgs":""}`

func goodZip(t *testing.T) []byte {
	return makeZip(t, zipFile{name: "bot.json", body: []byte(pythonBotJSON)}, zipFile{name: "bot.py", body: []byte("print('hi')\n")})
}

// uploadForm posts a zip through the browser form.
func (br *browser) upload(name string, data []byte) response {
	br.t.Helper()
	return br.uploadFields(map[string]string{"name": name}, data)
}

// uploadBot uploads a new bot through the form and returns its id.
func (br *browser) uploadBot(name string, data []byte) int64 {
	br.t.Helper()
	res := br.upload(name, data)
	if res.status != http.StatusSeeOther {
		br.t.Fatalf("upload: status %d: %s", res.status, res.body)
	}
	var botID int64
	if _, err := fmt.Sscanf(res.header.Get("Location"), "/bots/%d", &botID); err != nil {
		br.t.Fatalf("upload went to %q", res.header.Get("Location"))
	}
	return botID
}

func (b *testBundle) blobCount(t *testing.T) int {
	t.Helper()
	n := 0
	it := b.blobs.List(nil)
	for {
		_, err := it.Next(b.ctx)
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

func TestUpload(t *testing.T) {
	b := setup(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()}) // portal limit: 1 MiB
	br := b.browser(t)
	br.register("ann")

	t.Run("a good zip becomes version 1 with its build queued", func(t *testing.T) {
		res := br.upload("", goodZip(t))
		if res.status != http.StatusSeeOther {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		var botID int64
		if _, err := fmt.Sscanf(res.header.Get("Location"), "/bots/%d?uploaded=1", &botID); err != nil {
			t.Fatalf("redirect to %q", res.header.Get("Location"))
		}
		page := br.get(res.header.Get("Location"))
		for _, want := range []string{"Pyro", "Version 1 was uploaded", "queued", "Python3", `http-equiv="refresh"`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("bot page lacks %q", want)
			}
		}
		vs, err := b.st.BotVersionRows(b.ctx, botID)
		if err != nil || len(vs) != 1 {
			t.Fatalf("versions %v, %v", vs, err)
		}
		if got := b.queue.buildIDs(); len(got) != 1 || got[0] != vs[0].ID {
			t.Fatalf("builds enqueued %v, want [%d]", got, vs[0].ID)
		}
		if ok, err := b.blobs.Exists(b.ctx, blob.SourceKey(botID, 1)); err != nil || !ok {
			t.Fatalf("zip not in the blob store: %v", err)
		}
		if !regexp.MustCompile(` · \d+(\.\d)? (bytes|KiB)</td>`).MatchString(page.body) || strings.Contains(page.body, "0.0 MiB") {
			t.Errorf("a small zip's size is not in bytes or KiB:\n%s", page.body)
		}
		// Once the build is over the banner says how it ended, not "queued".
		if err := b.st.BotVersionFinishBuild(b.ctx, vs[0].ID, store.BuildResult{OK: true, Log: "built", ArtifactKey: "a"}); err != nil {
			t.Fatal(err)
		}
		page = br.get(res.header.Get("Location"))
		if !strings.Contains(page.body, "Version 1 was uploaded; its build succeeded.") || strings.Contains(page.body, "its build is queued") {
			t.Errorf("banner after the build does not follow its status:\n%s", page.body)
		}
		res = br.upload("pyro", goodZip(t))
		if res.status != http.StatusSeeOther || !strings.HasSuffix(res.header.Get("Location"), "?uploaded=2") {
			t.Fatalf("second upload under the same name (other case): %d to %q", res.status, res.header.Get("Location"))
		}
	})

	bomb := makeZip(t, zipFile{name: "bot.json", body: []byte(pythonBotJSON)}, zipFile{name: "bot.py", body: make([]byte, 50<<20)})
	cases := []struct {
		name   string
		zip    []byte
		status int
		want   string
	}{
		{"not a zip", []byte("this is plain text, not a zip"), 422, "The file is not a zip archive."},
		{"a zip cut short", goodZip(t)[:len(goodZip(t))-30], 422, "The file is not a zip archive."},
		{"empty file", nil, 422, "empty"},
		{"no bot.json at the root", makeZip(t, zipFile{name: "bot.py", body: []byte("x")}), 422, "bot.json"},
		{"bot.json is not JSON", makeZip(t, zipFile{name: "bot.json", body: []byte("{nope")}), 422, "bot.json"},
		{"unknown BotType", makeZip(t, zipFile{name: "bot.json", body: []byte(`{"BotType":"Cobol","RunFile":"a"}`)}, zipFile{name: "a", body: []byte("x")}), 422, "Cobol"},
		{"path leaving the folder", makeZip(t, zipFile{name: "bot.json", body: []byte(pythonBotJSON)}, zipFile{name: "bot.py", body: []byte("x")}, zipFile{name: "../evil.py", body: []byte("x")}), 422, "evil.py"},
		{"symbolic link", makeZip(t, zipFile{name: "bot.json", body: []byte(pythonBotJSON)}, zipFile{name: "bot.py", body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}), 422, "link"},
		{"zip bomb", bomb, 422, "zip bomb"},
		{"a 60,000-character NickName", makeZip(t, zipFile{name: "bot.json", body: []byte(strings.Replace(pythonBotJSON, `"Pyro"`, `"`+strings.Repeat("N", 60000)+`"`, 1))},
			zipFile{name: "bot.py", body: []byte("x")}), 422, "NickName is 60000 characters long; at most 100 are allowed"},
		{"a long RunArgs", makeZip(t, zipFile{name: "bot.json", body: []byte(strings.Replace(pythonBotJSON, `"RunArgs":""`, `"RunArgs":"`+strings.Repeat("-v ", 400)+`"`, 1))},
			zipFile{name: "bot.py", body: []byte("x")}), 422, "RunArgs is 1200 characters long"},
		{"over the size limit", makeZip(t, zipFile{name: "bot.json", body: []byte(pythonBotJSON)}, zipFile{name: "noise", body: randomBytes(1<<20 + 1000)}), 413, "limit of 1 MiB"},
		{"far over the size limit", makeZip(t, zipFile{name: "bot.json", body: []byte(pythonBotJSON)}, zipFile{name: "noise", body: randomBytes(3 << 20)}), 413, "limit of 1 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bots, versions, blobs, builds := b.count(t, "bots"), b.count(t, "bot_versions"), b.blobCount(t), len(b.queue.buildIDs())
			res := br.upload("", c.zip)
			if res.status != c.status || !strings.Contains(pageError(res.body), c.want) || !strings.Contains(res.body, `name="zip"`) {
				t.Fatalf("status %d, want %d with %q in:\n%s", res.status, c.status, c.want, pageError(res.body))
			}
			t.Logf("message: %s", pageError(res.body))
			// Said once: one alert, no refusal wrapped in another, no
			// "not a zip" explained by "not a valid zip file".
			if msg := pageError(res.body); strings.Count(res.body, `role="alert"`) != 1 || strings.Contains(msg, "refused: ") || strings.Count(msg, "zip") > 3 || strings.Contains(msg, "not a valid zip") {
				t.Errorf("the refusal says itself twice: %s", msg)
			}
			if b.count(t, "bots") != bots || b.count(t, "bot_versions") != versions || b.blobCount(t) != blobs || len(b.queue.buildIDs()) != builds {
				t.Fatal("a refused upload stored something")
			}
		})
	}
}

// pageError extracts the alert of a page, for failure messages.
func pageError(body string) string {
	i := strings.Index(body, `role="alert">`)
	if i < 0 {
		return "(no alert on the page)"
	}
	rest := body[i+len(`role="alert">`):]
	if j := strings.Index(rest, "<"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestUploadNameReadsAsAnother: a new bot may not take a name that reads
// as a house bot's (of any game) or another user's bot's of its game:
// letter case, fullwidth forms, look-alike letters of other scripts,
// spaces and invisible characters do not make a name new. A user's own
// bot keeps its versions coming, and another game's bot of another user
// may share a name.
func TestUploadNameReadsAsAnother(t *testing.T) {
	b := setup(t, botupload.ZipInspector{Limits: botzip.DefaultLimits()})
	ann, ben := b.browser(t), b.browser(t)
	ann.register("ann")
	ben.register("ben")
	house, err := b.st.UserCreate(b.ctx, store.UserCreateParams{Username: "house", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.UploadRecord(b.ctx, store.UploadParams{OwnerID: house.ID, Name: "Python Starter", Game: "brainjar",
		Language: "Python3", BotType: "Python3", Manifest: []byte(`{}`), SourceSHA256: "00", SourceSize: 1, House: true,
		SourceKey: blob.SourceKey}); err != nil {
		t.Fatal(err)
	}
	if res := ben.upload("Sinker", goodZip(t)); res.status != http.StatusSeeOther {
		t.Fatalf("ben's upload: %d", res.status)
	}
	for _, c := range []struct{ name, want string }{
		{"Pyth\u043en Starter", "a house bot of the platform"},
		{"python starter", "a house bot"},
		{"\uff30\uff59\uff54\uff48\uff4f\uff4e Starter", "a house bot"},
		{"Python.Starter", "a house bot"},
		{"\u0405INKER", `another user's entelect bot`},
		{"S i n k e r", "another user's entelect bot"},
		{"S1nker", ""},
	} {
		bots := b.count(t, "bots")
		res := ann.upload(c.name, goodZip(t))
		if c.want == "" {
			if res.status != http.StatusSeeOther {
				t.Errorf("%q: %d %s, want it accepted", c.name, res.status, pageError(res.body))
			}
			continue
		}
		if res.status != http.StatusConflict || !strings.Contains(html.UnescapeString(pageError(res.body)), c.want) {
			t.Errorf("%q: %d %q, want 409 saying it reads as %s", c.name, res.status, pageError(res.body), c.want)
		}
		if b.count(t, "bots") != bots {
			t.Errorf("%q: a refused name made a bot", c.name)
		}
	}
	// Ben's own bot takes new versions, under its name in any case.
	if res := ben.upload("SINKER", goodZip(t)); res.status != http.StatusSeeOther || !strings.HasSuffix(res.header.Get("Location"), "?uploaded=2") {
		t.Errorf("ben's second version: %d to %q", res.status, res.header.Get("Location"))
	}
	// Another game: the name is free.
	hit := makeZip(t, zipFile{name: "bot.json", body: []byte(strings.Replace(pythonBotJSON, `"RunArgs":""`, `"RunArgs":"","Game":"hitandsunk"`, 1))},
		zipFile{name: "bot.py", body: []byte("x")})
	if res := ann.upload("Sinker", hit); res.status != http.StatusSeeOther {
		t.Errorf("a Hit and Sunk bot named as ben's Entelect bot: %d %s", res.status, pageError(res.body))
	}
}
