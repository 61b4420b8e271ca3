package competition

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
)

// ChallengeResult says what became of a new challenge.
type ChallengeResult struct {
	ChallengeID int64
	// MatchID is set when the challenge was accepted at once: the challenged
	// owner accepts automatically, or the bot is a house bot.
	MatchID *int64
}

// Challenge sends a challenge from one of userID's bots to another bot.
// It is refused with a clear message when either bot has no built version
// or is disabled, when the two bots belong to the same user, when the
// challenged bot's owner is in no clan with the challenger and open
// challenges are off, or when the user is over the hourly limit. When the
// challenged owner accepts automatically, the match is created at once.
func (s *Service) Challenge(ctx context.Context, userID, botID, opponentBotID int64) (*ChallengeResult, error) {
	mine, err := s.store.BotGetByID(ctx, botID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, refuse("Choose one of your bots to challenge with.")
	} else if err != nil {
		return nil, err
	}
	if mine.OwnerID != userID {
		return nil, refuseAs(Forbidden, "You can only challenge with your own bots.")
	}
	theirs, err := s.store.BotGetByID(ctx, opponentBotID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, refuseAs(NotFound, "The bot you challenged does not exist.")
	} else if err != nil {
		return nil, err
	}
	switch {
	case theirs.OwnerID == userID:
		return nil, refuse("You cannot challenge your own bot.")
	case mine.Game != theirs.Game:
		return nil, refuse("%s plays %s and %s plays %s: a challenge needs two bots of the same game.", mine.Name, mine.Game, theirs.Name, theirs.Game)
	}
	if err := canPlay(mine, theirs); err != nil {
		return nil, err
	}
	open, err := s.OpenChallenges(ctx)
	if err != nil {
		return nil, err
	}
	if !open && !theirs.House {
		same, err := s.store.SameClan(ctx, userID, theirs.OwnerID)
		if err != nil {
			return nil, err
		}
		if !same {
			return nil, refuseAs(Forbidden, "The organisers allow challenges within a clan only, and %s's owner is not in yours.", theirs.Name)
		}
	}
	sent, err := s.store.ChallengeCountSince(ctx, userID, s.now().Add(-time.Hour))
	if err != nil {
		return nil, err
	}
	if sent >= s.ChallengesPerHour {
		return nil, refuseAs(TooMany, "You have sent %d challenges in the last hour; please wait before sending more.", sent)
	}
	auto := theirs.House
	if !auto {
		if auto, err = s.store.UserAutoAccept(ctx, theirs.OwnerID); err != nil {
			return nil, err
		}
	}
	res := &ChallengeResult{}
	err = s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		id, err := st.ChallengeCreate(ctx, store.ChallengeCreateParams{
			ChallengerID: userID, ChallengerBotID: botID, ChallengedBotID: opponentBotID,
		})
		if err != nil {
			return err
		}
		res.ChallengeID = id
		if !auto {
			return nil
		}
		matchID, err := s.acceptTx(ctx, st, tx, id)
		res.MatchID = &matchID
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("challenge bot %d with bot %d: %w", opponentBotID, botID, err)
	}
	s.logger.InfoContext(ctx, "challenge sent", "challenge_id", res.ChallengeID, "user_id", userID,
		"bot_id", botID, "opponent_bot_id", opponentBotID, "accepted", res.MatchID != nil)
	return res, nil
}

// canPlay refuses bots that cannot play a match now.
func canPlay(bots ...*store.Bot) error {
	for _, b := range bots {
		switch {
		case b.CurrentVersionID == nil:
			return refuseAs(Conflict, "%s cannot play: it has no successfully built version yet.", b.Name)
		case b.Disabled:
			return refuseAs(Conflict, "%s cannot play: it is disabled.", b.Name)
		}
	}
	return nil
}

// ChallengeAccept accepts a pending challenge for the challenged bot's
// owner and creates the match between the two bots' current versions.
func (s *Service) ChallengeAccept(ctx context.Context, userID, challengeID int64) (int64, error) {
	c, err := s.pendingChallenge(ctx, challengeID, userID)
	if err != nil {
		return 0, err
	}
	if userID != c.ChallengedOwnerID {
		return 0, refuseAs(Forbidden, "Only the owner of %s can accept this challenge.", c.ChallengedBotName)
	}
	var matchID int64
	err = s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		var err error
		matchID, err = s.acceptTx(ctx, st, tx, challengeID)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("accept challenge %d: %w", challengeID, err)
	}
	s.logger.InfoContext(ctx, "challenge accepted", "challenge_id", challengeID, "match_id", matchID, "user_id", userID)
	return matchID, nil
}

// ChallengeDecline declines a pending challenge (the challenged bot's
// owner) or withdraws it (the challenger).
func (s *Service) ChallengeDecline(ctx context.Context, userID, challengeID int64) error {
	c, err := s.pendingChallenge(ctx, challengeID, userID)
	if err != nil {
		return err
	}
	status := "declined"
	switch userID {
	case c.ChallengedOwnerID:
	case c.ChallengerID:
		status = "canceled"
	}
	if err := s.store.ChallengeRespond(ctx, challengeID, status, nil); errors.Is(err, store.ErrNotFound) {
		return refuseAs(Conflict, "This challenge was already answered.")
	} else if err != nil {
		return err
	}
	s.logger.InfoContext(ctx, "challenge "+status, "challenge_id", challengeID, "user_id", userID)
	return nil
}

// pendingChallenge loads a pending challenge for one of its two parties.
// To anyone else it does not exist, so a stranger trying ids learns
// neither that it exists nor its status nor its bots.
func (s *Service) pendingChallenge(ctx context.Context, id, userID int64) (*store.Challenge, error) {
	c, err := s.store.ChallengeGetByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && userID != c.ChallengerID && userID != c.ChallengedOwnerID) {
		return nil, refuseAs(NotFound, "There is no challenge of yours with that number.")
	} else if err != nil {
		return nil, err
	}
	if c.Status != "pending" {
		return nil, refuseAs(Conflict, "This challenge was already %s.", c.Status)
	}
	return c, nil
}

// acceptTx creates the challenge's match between the bots' current
// versions and marks the challenge accepted. The challenger sits in the
// first seat.
func (s *Service) acceptTx(ctx context.Context, st *store.Store, tx pgx.Tx, challengeID int64) (int64, error) {
	c, err := st.ChallengeGetByID(ctx, challengeID)
	if err != nil {
		return 0, err
	}
	a, err := st.BotGetByID(ctx, c.ChallengerBotID)
	if err != nil {
		return 0, err
	}
	b, err := st.BotGetByID(ctx, c.ChallengedBotID)
	if err != nil {
		return 0, err
	}
	if err := canPlay(a, b); err != nil {
		return 0, err
	}
	seed, err := randomSeed()
	if err != nil {
		return 0, err
	}
	requester := c.ChallengerID
	matchID, err := s.createMatch(ctx, st, tx, store.MatchCreateParams{
		Game:        a.Game,
		MapSize:     s.mapSize(a.Game),
		Seed:        seed,
		Kind:        "challenge",
		Ranked:      c.Ranked,
		RequestedBy: &requester,
		Players: []store.MatchPlayerParams{
			{BotID: a.ID, BotVersionID: *a.CurrentVersionID},
			{BotID: b.ID, BotVersionID: *b.CurrentVersionID},
		},
	})
	if err != nil {
		return 0, err
	}
	if err := st.ChallengeRespond(ctx, challengeID, "accepted", &matchID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return 0, refuseAs(Conflict, "This challenge was already answered.")
		}
		return 0, err
	}
	return matchID, nil
}

// randomSeed draws a match seed; the match records it, so the match stays
// reproducible.
func randomSeed() (int64, error) {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("match seed: %w", err)
	}
	return int64(binary.BigEndian.Uint64(b[:]) >> 1), nil
}
