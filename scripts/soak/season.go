package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/broadside/broadside/internal/botzip"
	"github.com/broadside/broadside/internal/game/brainjar"
	entelectrules "github.com/broadside/broadside/internal/game/entelect"
)

// starters are the bots each contestant enters, by game: the Python
// starters, renamed per contestant. Two Entelect bots each fill the battle.
var starters = []struct{ game, dir string }{
	{"entelect", "bots/entelect-python3"},
	{"entelect", "bots/entelect-python3"},
	{"brainjar", "bots/brainjar-python3"},
	{"deepship", "bots/deepship-python3"},
	{"hitandsunk", "bots/hitandsunk-python3"},
}

// battleSize is how many Entelect bots the soak's battle takes.
const battleSize = 8

// season is what the soak set up and follows.
type season struct {
	p           *platform
	log         *slog.Logger
	contestants []*contestant
	bots        []seasonBot
	battleID    int64
	battleStart time.Time
	challenges  int
}

// seasonBot is one contestant's bot and when it was uploaded.
type seasonBot struct {
	id       int64
	game     string
	owner    string
	uploaded time.Time
}

var battleLink = regexp.MustCompile(`/battles/(\d+)`)

// openSeason registers the organiser and contestants, uploads their bots,
// opens a clan with challenges and schedules a battle that starts by
// itself during the run.
func openSeason(ctx context.Context, p *platform, s settings, log *slog.Logger) (*season, error) {
	se := &season{p: p, log: log}
	password := randomPassword()
	org := newContestant(p.base, "organiser")
	if err := org.register(ctx, password); err != nil {
		return nil, err
	}
	if err := p.runPortal(ctx, "make-organiser", "organiser"); err != nil {
		return nil, err
	}
	for i := 1; i <= s.contestants; i++ {
		c := newContestant(p.base, fmt.Sprintf("captain%d", i))
		if err := c.register(ctx, password); err != nil {
			return nil, err
		}
		se.contestants = append(se.contestants, c)
	}
	log.Info("soak: contestants registered", "count", len(se.contestants))

	for _, c := range se.contestants {
		for i, st := range starters {
			data, err := botzip.Pack(st.dir)
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("%s-%s-%d", c.name, st.game, i)
			id, status, err := c.upload(ctx, name, data)
			if err != nil || status != http.StatusCreated {
				return nil, fmt.Errorf("upload %s: status %d: %v", name, status, err)
			}
			se.bots = append(se.bots, seasonBot{id: id, game: st.game, owner: c.name, uploaded: time.Now()})
		}
	}
	log.Info("soak: bots uploaded", "count", len(se.bots))

	if err := se.openClan(ctx); err != nil {
		return nil, err
	}
	if err := se.scheduleBattle(ctx, org); err != nil {
		return nil, err
	}
	return se, nil
}

// openClan has the first contestant found a clan the others join, then
// challenges within it: one accepted by hand, one auto-accepted.
func (se *season) openClan(ctx context.Context) error {
	founder := se.contestants[0]
	body, status, err := founder.submit(ctx, "/clans", "/clans", url.Values{"name": {"Soakers"}, "description": {"the soak's clan"}})
	if err != nil || status != http.StatusOK {
		return fmt.Errorf("create clan: status %d: %v", status, err)
	}
	key := regexp.MustCompile(`id="join-key">([^<]+)<`).FindStringSubmatch(body)
	clan := regexp.MustCompile(`/clans/(\d+)/key`).FindStringSubmatch(body)
	if key == nil || clan == nil {
		return fmt.Errorf("create clan: no join key on the clan page")
	}
	for _, c := range se.contestants[1:] {
		if _, status, err := c.submit(ctx, "/clans/"+clan[1], "/clans/"+clan[1]+"/join", url.Values{"key": {key[1]}}); err != nil || status != http.StatusOK {
			return fmt.Errorf("%s joins the clan: status %d: %v", c.name, status, err)
		}
	}
	// Challenges need built bots: wait for the BrainJar ones.
	var bj []seasonBot
	for _, b := range se.bots {
		if b.game == brainjar.Name {
			bj = append(bj, b)
		}
	}
	if err := se.waitBuilt(ctx, bj, 5*time.Minute); err != nil {
		return err
	}
	a, b := se.contestants[0], se.contestants[1]
	var ch struct {
		ChallengeID int64 `json:"challenge_id"`
	}
	status, err = a.api(ctx, http.MethodPost, fmt.Sprintf("/api/bots/%d/challenge", bj[1].id), "application/json",
		[]byte(fmt.Sprintf(`{"bot_id": %d}`, bj[0].id)), &ch)
	if err != nil || status >= 300 {
		return fmt.Errorf("challenge: status %d: %v", status, err)
	}
	if status, err := b.api(ctx, http.MethodPost, fmt.Sprintf("/api/challenges/%d/accept", ch.ChallengeID), "", nil, nil); err != nil || status >= 300 {
		return fmt.Errorf("accept challenge: status %d: %v", status, err)
	}
	se.challenges++
	if len(bj) > 2 {
		status, err = b.api(ctx, http.MethodPost, fmt.Sprintf("/api/bots/%d/challenge", bj[2].id), "application/json",
			[]byte(fmt.Sprintf(`{"bot_id": %d}`, bj[1].id)), &ch)
		if err != nil || status >= 300 {
			return fmt.Errorf("second challenge: status %d: %v", status, err)
		}
		c := se.contestants[2]
		if status, err := c.api(ctx, http.MethodPost, fmt.Sprintf("/api/challenges/%d/accept", ch.ChallengeID), "", nil, nil); err != nil || status >= 300 {
			return fmt.Errorf("accept second challenge: status %d: %v", status, err)
		}
		se.challenges++
	}
	return nil
}

// scheduleBattle creates a double-elimination battle of eight Entelect
// bots on the small map, starting at the next whole minute at least a
// minute away; nobody starts it by hand.
func (se *season) scheduleBattle(ctx context.Context, org *contestant) error {
	var entelect []seasonBot
	for _, b := range se.bots {
		if b.game == entelectrules.Name && len(entelect) < battleSize {
			entelect = append(entelect, b)
		}
	}
	if err := se.waitBuilt(ctx, entelect, 5*time.Minute); err != nil {
		return err
	}
	start := time.Now().UTC().Add(time.Minute).Truncate(time.Minute).Add(time.Minute)
	body, status, err := org.submit(ctx, "/battles/new", "/battles/new", url.Values{
		"name": {"Soak Cup"}, "game": {"entelect"}, "format": {"double_elimination"},
		"map_size": {"1"}, "games_per_pairing": {"1"}, "swiss_rounds": {"0"},
		"entry_deadline": {start.Format("2006-01-02T15:04")}, "start_at": {start.Format("2006-01-02T15:04")},
	})
	m := battleLink.FindStringSubmatch(body)
	if err != nil || status != http.StatusOK || m == nil {
		return fmt.Errorf("create battle: status %d: %v", status, err)
	}
	fmt.Sscan(m[1], &se.battleID)
	se.battleStart = start
	owners := map[string]*contestant{}
	for _, c := range se.contestants {
		owners[c.name] = c
	}
	for _, b := range entelect {
		page := fmt.Sprintf("/battles/%d", se.battleID)
		body, status, err := owners[b.owner].submit(ctx, page, page+"/enter", url.Values{"bot_id": {fmt.Sprint(b.id)}})
		if err != nil || status != http.StatusOK || strings.Contains(body, `role="alert"`) {
			return fmt.Errorf("enter bot %d in the battle: status %d: %v", b.id, status, err)
		}
	}
	se.log.Info("soak: battle scheduled", "battle", se.battleID, "entrants", len(entelect), "starts", start.Format(time.TimeOnly))
	return nil
}

// waitBuilt waits until the bots' builds have all succeeded.
func (se *season) waitBuilt(ctx context.Context, bots []seasonBot, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		var pending int
		for _, b := range bots {
			var status, log string
			err := se.p.pool.QueryRow(ctx, `SELECT build_status, build_log FROM bot_versions
				WHERE bot_id = $1 ORDER BY number DESC LIMIT 1`, b.id).Scan(&status, &log)
			if status == "failed" {
				return fmt.Errorf("bot %d failed to build:\n%s", b.id, log)
			}
			if err != nil || status != "ok" {
				pending++
			}
		}
		if pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d bots not built after %s", pending, len(bots), within)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// badUpload sends the portal a malformed zip and reports whether it was
// refused with a clear message.
func (se *season) badUpload(ctx context.Context) bool {
	c := se.contestants[len(se.contestants)-1]
	bad := [][]byte{
		[]byte("this is not a zip"),
		mustZip(map[string]string{"readme.txt": "no bot.json here"}),
		mustZip(map[string]string{"bot.json": "{not json"}),
		mustZip(map[string]string{"bot.json": `{"BotType": 3, "RunFile": "../escape.py"}`, "../escape.py": "x"}),
	}
	data := bad[se.p.badUploads%len(bad)]
	_, status, err := c.upload(ctx, fmt.Sprintf("bad-%d", se.p.badUploads), data)
	return err == nil && status >= 400 && status < 500
}

// waitSettled waits until the battle has finished, every match created
// before from has ended and every contestant bot has a rated game.
func (se *season) waitSettled(ctx context.Context, from time.Time, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		var open, unrated int
		var battle string
		_ = se.p.pool.QueryRow(ctx, `SELECT count(*) FROM matches WHERE created_at < $1 AND status IN ('queued', 'running')`, from).Scan(&open)
		_ = se.p.pool.QueryRow(ctx, `SELECT status FROM battles WHERE id = $1`, se.battleID).Scan(&battle)
		_ = se.p.pool.QueryRow(ctx, unratedBotsQuery, se.botIDs()).Scan(&unrated)
		if open == 0 && battle == "finished" && unrated == 0 {
			return true
		}
		if time.Now().After(deadline) {
			se.log.Warn("soak: season did not settle", "open matches", open, "battle", battle, "bots without a ranked game", unrated)
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Second):
		}
	}
}

// unratedBotsQuery counts the given bots without a finished ranked match.
const unratedBotsQuery = `
	SELECT count(*) FROM unnest($1::bigint[]) b(id)
	WHERE NOT EXISTS (SELECT 1 FROM match_players p JOIN matches m ON m.id = p.match_id
	                  WHERE p.bot_id = b.id AND m.ranked AND m.status = 'finished')`

func (se *season) botIDs() []int64 {
	ids := make([]int64, len(se.bots))
	for i, b := range se.bots {
		ids[i] = b.id
	}
	return ids
}

func randomPassword() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "soak-" + hex.EncodeToString(b[:])
}

func mustZip(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(body))
	}
	_ = zw.Close()
	return buf.Bytes()
}
