package page

import (
	"fmt"

	"github.com/broadside/broadside/internal/competition"
	"github.com/broadside/broadside/internal/duel"
	"github.com/broadside/broadside/internal/store"
)

// DuelView is a duel's page.
type DuelView struct {
	Base
	Status DuelStatus
	// IsOwner is set for the duel's owner.
	IsOwner bool
}

// DuelStatus is how a duel stands: what its page shows and its event
// stream sends again after each counted game.
type DuelStatus struct {
	Duel  *store.Duel
	Games []competition.DuelGameView
}

// DuelsView lists a user's duels.
type DuelsView struct {
	Base
	Duels []store.Duel
}

// DuelForm is the duel form of a bot's page: the bot's built versions (A)
// and what they may duel (B).
type DuelForm struct {
	Versions []store.BotVersionRow
	Sides    []store.DuelSide
	// Default is the side chosen at first (a DuelSideValue): the first that is
	// not the bot's playing version.
	Default string
	// Duels are the owner's latest duels of the bot.
	Duels []store.Duel
}

func duelURL(id int64) string { return "/duels/" + itoa(id) }

// DuelSideValue is a duel side as the form posts it: the bot's id and the
// version number, 0 for a house bot's playing version.
func DuelSideValue(s store.DuelSide) string {
	if s.House {
		return fmt.Sprintf("%d:0", s.BotID)
	}
	return fmt.Sprintf("%d:%d", s.BotID, s.Version)
}

func sideLabel(s store.DuelSide) string {
	if s.House {
		return s.BotName + " (house bot)"
	}
	l := fmt.Sprintf("%s version %d", s.BotName, s.Version)
	if s.Current {
		l += " (playing)"
	}
	return l
}

// sideA and sideB name a duel's two sides.
func sideA(d *store.Duel) string { return fmt.Sprintf("%s version %d", d.ABotName, d.AVersion) }

func sideB(d *store.Duel) string {
	if d.BHouse {
		return fmt.Sprintf("%s (house bot, version %d)", d.BBotName, d.BVersion)
	}
	return fmt.Sprintf("%s version %d", d.BBotName, d.BVersion)
}

// duelPlayed is the games counted.
func duelPlayed(d *store.Duel) int { return d.WinsA + d.WinsB + d.Draws }

// duelRate is A's win rate, draws as half, with its 95% Wilson interval,
// in percent.
func duelRate(d *store.Duel) string {
	s := competition.DuelScore(d)
	lo, hi := duel.Wilson95(s)
	return fmt.Sprintf("%.1f%% (95%% interval %.1f%% to %.1f%%)", 100*s.Rate(), 100*lo, 100*hi)
}

// duelOutcome is a duel's short state for lists.
func duelOutcome(d *store.Duel) string {
	switch d.Status {
	case store.DuelFinished:
		return d.Verdict
	case store.DuelFailed:
		return "failed"
	}
	return "running"
}

// duelGameResult says how one game went for the page.
func duelGameResult(g competition.DuelGameView) string {
	switch g.Result {
	case "A":
		return "A won"
	case "B":
		return "B won"
	case "draw":
		return "draw"
	}
	return g.Status
}
