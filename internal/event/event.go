// Package event names what the platform tells a user of (a build that
// finished, a challenge received, a bot taken off the ladder) and the data
// each carries. Every event is addressed to one user and carries only what
// that user may see; docs/api.md documents the schema, which stays stable:
// fields may be added, never renamed or removed.
//
// An event is published in the transaction of the change it tells of
// (store.EventPublish), so it exists exactly when the change does.
package event

import "slices"

// Type is an event's stable name, as webhooks and settings spell it.
type Type string

// The event types.
const (
	BuildFinished     Type = "build.finished"
	BuildFailed       Type = "build.failed"
	ChallengeReceived Type = "challenge.received"
	ChallengeAnswered Type = "challenge.answered"
	BattleFinished    Type = "battle.finished"
	DuelFinished      Type = "duel.finished"
	BotPaused         Type = "bot.paused"
	BotFaulted        Type = "bot.faulted"
)

// Types lists every type, in the order the settings show them.
func Types() []Type {
	return []Type{BuildFinished, BuildFailed, ChallengeReceived, ChallengeAnswered,
		BattleFinished, DuelFinished, BotPaused, BotFaulted}
}

// Valid reports whether t is a known type.
func (t Type) Valid() bool { return slices.Contains(Types(), t) }

// Title describes t for people, in settings and e-mail subjects.
func (t Type) Title() string {
	switch t {
	case BuildFinished:
		return "A build finished"
	case BuildFailed:
		return "A build failed"
	case ChallengeReceived:
		return "A challenge was received"
	case ChallengeAnswered:
		return "A challenge was answered"
	case BattleFinished:
		return "A battle finished"
	case DuelFinished:
		return "A duel finished"
	case BotPaused:
		return "A bot was taken off the ladder"
	case BotFaulted:
		return "A bot crashed or timed out in a ranked match"
	}
	return string(t)
}

// Event is one thing to tell one user of. Data is one of this package's
// data types, marshalled to JSON as the payload's data.
type Event struct {
	UserID int64
	Type   Type
	Data   any
}

// Bot names a bot in event data.
type Bot struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Game string `json:"game,omitempty"`
}

// Build is the data of build.finished and build.failed.
type Build struct {
	Bot     Bot `json:"bot"`
	Version int `json:"version"`
}

// NewBuild is the event of a finished build of the owner's bot.
func NewBuild(ownerID int64, ok bool, b Build) Event {
	t := BuildFailed
	if ok {
		t = BuildFinished
	}
	return Event{UserID: ownerID, Type: t, Data: b}
}

// Challenge is the data of challenge.received and challenge.answered. Bot
// is the receiving user's own bot, Opponent the other one.
type Challenge struct {
	ChallengeID int64  `json:"challenge_id"`
	Ranked      bool   `json:"ranked"`
	Bot         Bot    `json:"bot"`
	Opponent    Bot    `json:"opponent"`
	OpponentBy  string `json:"opponent_owner"`
	// Answer is accepted or declined (challenge.answered only).
	Answer string `json:"answer,omitempty"`
	// MatchID is the accepted challenge's match.
	MatchID *int64 `json:"match_id,omitempty"`
}

// BattleEntry is one of the user's bots in a finished battle; Position is
// absent while the organisers hold the results back.
type BattleEntry struct {
	Bot      Bot  `json:"bot"`
	Position *int `json:"position,omitempty"`
}

// Battle is the data of battle.finished.
type Battle struct {
	BattleID      int64         `json:"battle_id"`
	Name          string        `json:"name"`
	ResultsHidden bool          `json:"results_hidden"`
	Entries       []BattleEntry `json:"entries"`
}

// Duel is the data of duel.finished: a duel the user started ended, with
// a verdict, or failed because a game could not be played.
type Duel struct {
	DuelID int64 `json:"duel_id"`
	// Bot is side A, the version the duel tests; Opponent is side B.
	Bot             Bot `json:"bot"`
	BotVersion      int `json:"bot_version"`
	Opponent        Bot `json:"opponent"`
	OpponentVersion int `json:"opponent_version"`
	// Status is finished or failed; Verdict ("A better", "B better",
	// "undecided") is set when finished, Error when failed.
	Status  string `json:"status"`
	Verdict string `json:"verdict,omitempty"`
	Error   string `json:"error,omitempty"`
	// Games, WinsA, WinsB and Draws are the games counted; WinRateA
	// counts draws as half, CI95 is its 95 % Wilson interval.
	Games    int        `json:"games"`
	WinsA    int        `json:"wins_a"`
	WinsB    int        `json:"wins_b"`
	Draws    int        `json:"draws"`
	WinRateA float64    `json:"win_rate_a"`
	CI95     [2]float64 `json:"ci95"`
}

// NewDuelFinished is the event of an ended duel for its owner; publish it
// with store.EventPublish in the transaction that records the end.
func NewDuelFinished(ownerID int64, d Duel) Event {
	return Event{UserID: ownerID, Type: DuelFinished, Data: d}
}

// Paused is the data of bot.paused: the ladder stopped pairing the bot.
type Paused struct {
	Bot    Bot    `json:"bot"`
	Reason string `json:"reason"`
}

// Faulted is the data of bot.faulted: the bot's first crash or time-out
// after a ranked match it did not lose by a fault.
type Faulted struct {
	Bot     Bot    `json:"bot"`
	MatchID int64  `json:"match_id"`
	Fault   string `json:"fault"`
	Reason  string `json:"reason"`
}
