// Package ladder is the ranked ladder's matchmaking: which bots play next
// and against whom. It is pure; the scheduler job feeds it the candidates
// from the database and enqueues the pairs it returns.
package ladder

import (
	"math"
	"math/rand/v2"
	"sort"
)

// PlacementGames is how many matches a new bot version plays first, against
// opponents spread over the ladder, before ordinary matchmaking.
const PlacementGames = 5

// Candidate is a bot that may play on the ladder.
type Candidate struct {
	BotID     int64
	VersionID int64
	OwnerID   int64
	Rating    float64 // Glicko-2 rating
	RD        float64 // rating deviation
	// GamesToday counts the bot's ladder matches of the current UTC day.
	GamesToday int
	// PlacementLeft counts the placement matches its current version still owes.
	PlacementLeft int
	// Busy is set when the bot already has a queued or running match.
	Busy bool
	// House bots are the platform's yardsticks: they play whenever chosen as
	// opponents, but never ask for games themselves.
	House bool
}

// Pair is one ladder pairing to enqueue: two matches with the same seed,
// A in the first seat of the first and B in the first seat of the second.
type Pair struct {
	A, B      Candidate
	Placement bool
}

// Config tunes matchmaking.
type Config struct {
	// MaxGamesPerDay stops a bot from asking for more games; it may still
	// be chosen as an opponent while under twice this number.
	MaxGamesPerDay int
	// Window is how many of the nearest-rated opponents are considered; one
	// of them is drawn at random, nearer ones more likely.
	Window int
}

// DefaultConfig is the platform's ladder configuration.
func DefaultConfig() Config { return Config{MaxGamesPerDay: 48, Window: 5} }

// Plan picks up to slots pairs. Bots owing placement games go first, then
// the bots with the fewest games today (so games per day stay balanced),
// with ties broken at random. Each is matched to an opponent near in
// rating, never one of its owner's other bots, never a busy bot.
func Plan(cands []Candidate, slots int, cfg Config, rng *rand.Rand) []Pair {
	queue := Queue(cands, cfg, rng)
	taken := make(map[int64]bool)
	for _, c := range cands {
		if c.Busy {
			taken[c.BotID] = true
		}
	}
	var pairs []Pair
	for _, c := range queue {
		if len(pairs) >= slots {
			break
		}
		if taken[c.BotID] {
			continue
		}
		placement := c.PlacementLeft > 0
		opp, ok := pickOpponent(c, cands, taken, map[int64]bool{c.OwnerID: true}, placement, cfg, rng)
		if !ok {
			continue
		}
		taken[c.BotID], taken[opp.BotID] = true, true
		p := Pair{A: c, B: opp, Placement: placement}
		// Alternate seats with a coin flip; the rules favour seat A in a
		// complete tie.
		if rng.IntN(2) == 1 {
			p.A, p.B = p.B, p.A
		}
		pairs = append(pairs, p)
	}
	return pairs
}

// Group is one free-for-all ladder match to enqueue, its seats in order.
type Group struct {
	Bots      []Candidate
	Placement bool
}

// PlanGroups picks up to slots free-for-all matches of up to size bots
// (never fewer than two). Each is built around the next bot of the queue
// (as Plan serves them): its opponents are drawn one by one near its
// rating, with the same randomness as Plan's (from the whole ladder while
// it owes placement games), never two bots of one owner, never a busy
// bot. Seats are drawn at random.
func PlanGroups(cands []Candidate, slots, size int, cfg Config, rng *rand.Rand) []Group {
	if size < 2 {
		return nil
	}
	queue := Queue(cands, cfg, rng)
	taken := make(map[int64]bool)
	for _, c := range cands {
		if c.Busy {
			taken[c.BotID] = true
		}
	}
	var groups []Group
	for _, c := range queue {
		if len(groups) >= slots {
			break
		}
		if taken[c.BotID] {
			continue
		}
		placement := c.PlacementLeft > 0
		g := Group{Bots: []Candidate{c}, Placement: placement}
		owners := map[int64]bool{c.OwnerID: true}
		taken[c.BotID] = true
		for len(g.Bots) < size {
			opp, ok := pickOpponent(c, cands, taken, owners, placement, cfg, rng)
			if !ok {
				break
			}
			g.Bots = append(g.Bots, opp)
			taken[opp.BotID], owners[opp.OwnerID] = true, true
		}
		if len(g.Bots) < 2 {
			delete(taken, c.BotID)
			continue
		}
		rng.Shuffle(len(g.Bots), func(i, j int) { g.Bots[i], g.Bots[j] = g.Bots[j], g.Bots[i] })
		groups = append(groups, g)
	}
	return groups
}

// Queue orders the bots waiting for a game: the order Plan serves them in.
// Its length is the ladder's queue depth; a bot's index in it tells when
// its next game is expected.
func Queue(cands []Candidate, cfg Config, rng *rand.Rand) []Candidate {
	var q []Candidate
	for _, c := range cands {
		if c.House || c.Busy || c.GamesToday >= cfg.MaxGamesPerDay {
			continue
		}
		q = append(q, c)
	}
	rng.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
	sort.SliceStable(q, func(i, j int) bool {
		pi, pj := q[i].PlacementLeft > 0, q[j].PlacementLeft > 0
		if pi != pj {
			return pi
		}
		return q[i].GamesToday < q[j].GamesToday
	})
	return q
}

// pickOpponent draws an opponent for c among the candidates not taken,
// busy or owned by one of owners.
func pickOpponent(c Candidate, cands []Candidate, taken, owners map[int64]bool, placement bool, cfg Config, rng *rand.Rand) (Candidate, bool) {
	var pool []Candidate
	for _, o := range cands {
		if o.BotID == c.BotID || owners[o.OwnerID] || taken[o.BotID] || o.Busy {
			continue
		}
		if o.GamesToday >= 2*cfg.MaxGamesPerDay {
			continue
		}
		pool = append(pool, o)
	}
	if len(pool) == 0 {
		return Candidate{}, false
	}
	if placement {
		// Placement games sample the whole ladder so a new version's
		// rating settles quickly whatever its strength.
		return pool[rng.IntN(len(pool))], true
	}
	sort.SliceStable(pool, func(i, j int) bool {
		return math.Abs(pool[i].Rating-c.Rating) < math.Abs(pool[j].Rating-c.Rating)
	})
	w := min(cfg.Window, len(pool))
	// Weight the i-th nearest by w-i: the nearest is w times as likely as
	// the w-th.
	total := w * (w + 1) / 2
	r := rng.IntN(total)
	for i := 0; i < w; i++ {
		r -= w - i
		if r < 0 {
			return pool[i], true
		}
	}
	return pool[0], true
}
