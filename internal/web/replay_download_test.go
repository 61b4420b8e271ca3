package web_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testblob"
	"github.com/broadside/broadside/internal/web"
)

// heldBound is what 20 downloads of a maximal replay at once may add to
// the heap the portal holds (docs/operations.md): its heap in use right
// after a collection, sampled throughout. A download holds a 256 KiB read
// window, a copy buffer and the zip's directory (read, and written again):
// about 1.5 MiB. One download holding a whole replay would take 45 to 90
// MiB by itself.
const heldBound = 64 << 20

// maximalReplay is an Entelect replay zip of the size a bot can force:
// 210 rounds of incompressible boards, states and logs (about 44 MiB in
// 1,890 entries), laid out as the engine writes its folder.
func maximalReplay(t *testing.T) []byte {
	t.Helper()
	rng := rand.New(rand.NewChaCha8([32]byte{7}))
	noise := func(n int) []byte {
		p := make([]byte, n)
		for i := 0; i+8 <= n; i += 8 {
			v := rng.Uint64()
			for k := range 8 {
				p[i+k] = byte(v >> (8 * k))
			}
		}
		return p
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for r := range 210 {
		dir := fmt.Sprintf("Phase 2 - Round %d", r)
		if r == 0 {
			dir = "Phase 1 - Round 0"
		}
		for _, f := range []struct {
			name string
			size int
		}{
			{"A - map.txt", 4 << 10}, {"B - map.txt", 4 << 10}, {"roundInfo.json", 512},
			{"A/state.json", 60 << 10}, {"B/state.json", 60 << 10},
			{"A/command.txt", 16}, {"B/command.txt", 16},
			{"A/log.txt", 40 << 10}, {"B/log.txt", 40 << 10},
		} {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(noise(f.size)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// expectedReplay is the download of replay for a viewer owning the seats
// in own: every entry unchanged but the other seats' log.txt. It returns
// the zip's SHA-256 and size, after checking which logs it holds.
func expectedReplay(t *testing.T, replay []byte, own ...string) (sum [32]byte, size int) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(replay), int64(len(replay)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	logs := map[string]int{}
	for _, f := range zr.File {
		seat, isLog := strings.CutSuffix(f.Name, "/log.txt")
		if isLog {
			seat = seat[strings.LastIndex(seat, "/")+1:]
			if !strings.Contains(strings.Join(own, ","), seat) {
				continue
			}
			logs[seat]++
		}
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, seat := range own {
		if logs[seat] != 210 {
			t.Fatalf("the copy for the owner of %v holds %d of seat %s's logs, want 210", own, logs[seat], seat)
		}
	}
	if len(logs) != len(own) {
		t.Fatalf("the copy for the owner of %v holds the logs of %v", own, logs)
	}
	return sha256.Sum256(out.Bytes()), out.Len()
}

// heldHeap is the heap in use right after a full collection: what the
// process holds, whatever garbage the collector would let pile up before
// it runs on its own.
func heldHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// heldPeak collects and samples the held heap until stop closes and
// reports the highest figure seen.
func heldPeak(stop <-chan struct{}) (done func() uint64) {
	var peak uint64
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			peak = max(peak, heldHeap())
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	return func() uint64 {
		<-finished
		return peak
	}
}

// TestReplayDownloadsStream: twenty clients download a maximal replay at
// once from a portal on a file bucket and on a real S3 server; each gets
// its own copy byte for byte (each seat's logs for its owner alone), and
// the heap they hold stays within heldBound. The test runs alone (not in
// parallel) so the heap it measures is the portal's.
func TestReplayDownloadsStream(t *testing.T) {
	type view struct {
		sum  [32]byte
		size int
	}
	var public, ownsA, ownsB view
	{
		// The replay is made again for each store rather than kept: the
		// heap measured should hold none of it.
		replay := maximalReplay(t)
		public.sum, public.size = expectedReplay(t, replay)
		ownsA.sum, ownsA.size = expectedReplay(t, replay, "A")
		ownsB.sum, ownsB.size = expectedReplay(t, replay, "B")
		t.Logf("replay: %d bytes stored; downloads of %d (anyone), %d and %d (an owner) bytes",
			len(replay), public.size, ownsA.size, ownsB.size)
	}

	for _, store := range []string{"file", "s3"} {
		t.Run(store, func(t *testing.T) {
			url := t.TempDir()
			if store == "s3" {
				url = testblob.URL(t)
			}
			b := startPortal(t, nil, url, func(c *web.Config) {
				c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
			}, func(*pgxpool.Pool) web.Queue { return &recordingQueue{} })
			alice, bob := b.browser(t), b.browser(t)
			alice.register("alice")
			bob.register("bob")
			matchID := b.storedReplay(t, maximalReplay(t), b.userID(t, "alice"), b.userID(t, "bob"))
			path := fmt.Sprintf("/matches/%d/replay.zip", matchID)

			// Seat A's owner and seat B's owner download twice each, from
			// two addresses; sixteen visitors from addresses of their own.
			type client struct {
				c    *http.Client
				addr string
				want view
			}
			var clients []client
			for i := range 2 {
				clients = append(clients, client{alice.c, fmt.Sprintf("198.51.100.%d", 1+i), ownsA})
				clients = append(clients, client{bob.c, fmt.Sprintf("198.51.100.%d", 11+i), ownsB})
			}
			for i := range 16 {
				clients = append(clients, client{&http.Client{}, fmt.Sprintf("203.0.113.%d", 1+i), public})
			}
			base := heldHeap()

			start, stop := make(chan struct{}), make(chan struct{})
			peak := heldPeak(stop)
			var wg sync.WaitGroup
			errs := make(chan error, len(clients))
			for _, c := range clients {
				wg.Go(func() {
					req, _ := http.NewRequestWithContext(b.ctx, http.MethodGet, b.srv.URL+path, nil)
					req.Header.Set("X-Forwarded-For", c.addr)
					<-start
					res, err := c.c.Do(req)
					if err != nil {
						errs <- fmt.Errorf("%s: %v", c.addr, err)
						return
					}
					defer res.Body.Close()
					h := sha256.New()
					n, err := io.Copy(h, res.Body)
					switch {
					case err != nil:
						errs <- fmt.Errorf("%s: read after %d bytes: %v", c.addr, n, err)
					case res.StatusCode != http.StatusOK:
						errs <- fmt.Errorf("%s: status %d", c.addr, res.StatusCode)
					case res.Header.Get("Content-Type") != "application/zip" ||
						res.Header.Get("Content-Disposition") != fmt.Sprintf(`attachment; filename="match-%d-replay.zip"`, matchID):
						errs <- fmt.Errorf("%s: type %q, disposition %q", c.addr, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"))
					case n != int64(c.want.size) || [32]byte(h.Sum(nil)) != c.want.sum:
						errs <- fmt.Errorf("%s: %d bytes, not the %d of the copy it should get", c.addr, n, c.want.size)
					case res.ContentLength >= 0 && res.ContentLength != n:
						errs <- fmt.Errorf("%s: Content-Length %d for %d bytes", c.addr, res.ContentLength, n)
					}
				})
			}
			close(start)
			wg.Wait()
			close(stop)
			held := peak()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			t.Logf("heap held: %.1f MiB before, peak %.1f MiB (%+.1f MiB)", mib(base), mib(held), mib(held)-mib(base))
			if grew := int64(held) - int64(base); grew > heldBound {
				t.Errorf("20 downloads at once grew the heap held by %.1f MiB, more than the %d MiB allowed", float64(grew)/(1<<20), heldBound>>20)
			}
		})
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// storedReplay records a finished match between a bot of ownerA (seat A)
// and one of ownerB with replay as its stored zip.
func (b *testBundle) storedReplay(t *testing.T, replay []byte, ownerA, ownerB int64) int64 {
	t.Helper()
	aBot, aVer := b.builtBot(t, ownerA, "Ahab")
	bBot, bVer := b.builtBot(t, ownerB, "Nemo")
	m, err := b.st.MatchCreate(b.ctx, store.MatchCreateParams{
		Game: "entelect", MapSize: 1, Seed: 7, Kind: "challenge",
		Players: []store.MatchPlayerParams{{BotID: aBot, BotVersionID: aVer}, {BotID: bBot, BotVersionID: bVer}},
	})
	if err != nil {
		t.Fatal(err)
	}
	key := "replays/" + strconv.FormatInt(m.ID, 10) + ".zip"
	if err := b.blobs.WriteAll(b.ctx, key, replay, nil); err != nil {
		t.Fatal(err)
	}
	err = b.st.MatchFinish(b.ctx, store.MatchFinishParams{
		ID: m.ID, Rounds: 209, ReplayKey: key, Summary: json.RawMessage(`{"game":"entelect"}`),
		Players: []store.MatchPlayerResult{
			{Seat: 0, Key: "A", Points: 120, Outcome: "win", Rank: 1},
			{Seat: 1, Key: "B", Points: 40, Outcome: "loss", Rank: 2},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// TestReplayDownloadsPerClient: a client has at most two replay downloads
// under way; a third is answered 429 with Retry-After. A client is an
// account when logged in, else an address (an IPv6 /64); others are not
// affected, and a download that ends frees its place.
func TestReplayDownloadsPerClient(t *testing.T) {
	b := setupWith(t, nil, func(c *web.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	})
	alice := b.browser(t)
	alice.register("alice")
	owner := b.userID(t, "alice")
	// Large enough that a download a client does not read stays under
	// way: the socket's buffers hold a few MiB of it.
	path := fmt.Sprintf("%s/matches/%d/replay.zip", b.srv.URL, b.storedReplay(t, maximalReplay(t), owner, owner))

	// get starts a download from addr; a refused one is read whole.
	type download struct {
		status int
		header http.Header
		body   string
		close  func()
	}
	get := func(c *http.Client, addr string) download {
		t.Helper()
		ctx, cancel := context.WithCancel(b.ctx)
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		req.Header.Set("X-Forwarded-For", addr)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		d := download{status: res.StatusCode, header: res.Header, close: func() { cancel(); res.Body.Close() }}
		t.Cleanup(d.close)
		if res.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(res.Body)
			d.body = string(body)
			d.close()
		}
		return d
	}
	refused := func(d download) bool {
		return d.status == http.StatusTooManyRequests && d.header.Get("Retry-After") != "" &&
			strings.Contains(d.body, "2 replay downloads under way")
	}
	anon := &http.Client{}

	held := []download{get(anon, "2001:db8:7::1"), get(anon, "2001:db8:7::2")}
	for i, d := range held {
		if d.status != http.StatusOK {
			t.Fatalf("download %d: %d %s", i+1, d.status, d.body)
		}
	}
	// Another address of the same /64 is the same client.
	if d := get(anon, "2001:db8:7::ffff"); !refused(d) {
		t.Errorf("a third download: %d, Retry-After %q: %s", d.status, d.header.Get("Retry-After"), d.body)
	}
	for _, addr := range []string{"2001:db8:7:1::1", "198.51.100.7"} {
		if d := get(anon, addr); d.status != http.StatusOK {
			t.Errorf("a download from %s, another client: %d", addr, d.status)
		} else {
			d.close()
		}
	}

	// Logged in, the account is the client, from wherever it asks.
	aliceHeld := []download{get(alice.c, "198.51.100.1"), get(alice.c, "198.51.100.2")}
	for i, d := range aliceHeld {
		if d.status != http.StatusOK {
			t.Fatalf("alice's download %d: %d %s", i+1, d.status, d.body)
		}
	}
	if d := get(alice.c, "198.51.100.3"); !refused(d) {
		t.Errorf("alice's third download: %d, Retry-After %q: %s", d.status, d.header.Get("Retry-After"), d.body)
	}
	if d := get(anon, "198.51.100.3"); d.status != http.StatusOK {
		t.Errorf("a visitor at the address of alice's third download: %d", d.status)
	} else {
		d.close()
	}

	// A download that ends frees its place once the portal sees it gone.
	held[0].close()
	deadline := time.Now().Add(time.Minute)
	for {
		d := get(anon, "2001:db8:7::1")
		if d.status == http.StatusOK {
			d.close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an ended download's place was not freed: %d", d.status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
