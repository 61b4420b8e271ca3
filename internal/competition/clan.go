package competition

import (
	"context"
	crand "crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/broadside/broadside/internal/store"
)

// Limits of what a clan's creator types in.
const (
	clanNameMin = 2
	clanNameMax = 40
	clanDescMax = 500
)

// ClanCreate creates a clan with userID as its owner. A user is in at most
// one clan, and clan names are unique regardless of letter case.
func (s *Service) ClanCreate(ctx context.Context, userID int64, name, description string) (*store.Clan, error) {
	name, description = strings.TrimSpace(name), strings.TrimSpace(description)
	switch n := utf8.RuneCountInString(name); {
	case n < clanNameMin || n > clanNameMax:
		return nil, refuse("A clan's name has %d to %d characters.", clanNameMin, clanNameMax)
	case utf8.RuneCountInString(description) > clanDescMax:
		return nil, refuse("A clan's description has at most %d characters.", clanDescMax)
	}
	if err := s.notInClan(ctx, userID); err != nil {
		return nil, err
	}
	key, err := newJoinKey()
	if err != nil {
		return nil, err
	}
	c, err := s.store.ClanCreate(ctx, name, description, key, userID)
	if errors.Is(err, store.ErrConflict) {
		// The user's own membership was checked above, so this is the name
		// (or a second clan created at the same moment).
		return nil, refuseAs(Conflict, "There is already a clan called %q, or you joined one meanwhile.", name)
	} else if err != nil {
		return nil, err
	}
	s.logger.InfoContext(ctx, "clan created", "clan_id", c.ID, "user_id", userID)
	return c, nil
}

// ClanJoin adds userID to a clan when key is the clan's current join key.
func (s *Service) ClanJoin(ctx context.Context, userID, clanID int64, key string) error {
	c, err := s.clan(ctx, clanID)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(key)), []byte(c.JoinKey)) != 1 {
		return refuseAs(Forbidden, "That join key is not %s's: ask a member for the current key or invite link.", c.Name)
	}
	if err := s.notInClan(ctx, userID); err != nil {
		return err
	}
	if err := s.store.ClanJoin(ctx, clanID, userID); errors.Is(err, store.ErrConflict) {
		return refuseAs(Conflict, "You are already in a clan; leave it before joining another.")
	} else if err != nil {
		return err
	}
	s.logger.InfoContext(ctx, "clan joined", "clan_id", clanID, "user_id", userID)
	return nil
}

// ClanLeave takes userID out of a clan. The store hands ownership on when
// the last owner leaves and removes a clan left empty.
func (s *Service) ClanLeave(ctx context.Context, userID, clanID int64) error {
	if _, err := s.clanRole(ctx, clanID, userID); err != nil {
		return err
	}
	if err := s.store.ClanLeave(ctx, clanID, userID); errors.Is(err, store.ErrNotFound) {
		return refuseAs(Conflict, "You are not a member of this clan.")
	} else if err != nil {
		return err
	}
	s.logger.InfoContext(ctx, "clan left", "clan_id", clanID, "user_id", userID)
	return nil
}

// ClanNewKey replaces a clan's join key, so old invite links stop working.
// Only owners may.
func (s *Service) ClanNewKey(ctx context.Context, userID, clanID int64) error {
	if err := s.requireOwner(ctx, clanID, userID, "replace the join key"); err != nil {
		return err
	}
	key, err := newJoinKey()
	if err != nil {
		return err
	}
	return s.store.ClanSetJoinKey(ctx, clanID, key)
}

// ClanPromote makes a member an owner. Only owners may.
func (s *Service) ClanPromote(ctx context.Context, userID, clanID, memberID int64) error {
	if err := s.requireOwner(ctx, clanID, userID, "promote members"); err != nil {
		return err
	}
	if err := s.store.ClanSetRole(ctx, clanID, memberID, "owner"); errors.Is(err, store.ErrNotFound) {
		return refuseAs(NotFound, "That user is not a member of this clan.")
	} else if err != nil {
		return err
	}
	s.logger.InfoContext(ctx, "clan member promoted", "clan_id", clanID, "user_id", userID, "member_id", memberID)
	return nil
}

func (s *Service) clan(ctx context.Context, clanID int64) (*store.Clan, error) {
	c, err := s.store.ClanGetByID(ctx, clanID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, refuseAs(NotFound, "There is no such clan: it may have been removed when its last member left.")
	}
	return c, err
}

// clanRole is userID's role in the clan; it refuses non-members.
func (s *Service) clanRole(ctx context.Context, clanID, userID int64) (string, error) {
	if _, err := s.clan(ctx, clanID); err != nil {
		return "", err
	}
	role, err := s.store.ClanMemberRole(ctx, clanID, userID)
	if errors.Is(err, store.ErrNotFound) {
		return "", refuseAs(Forbidden, "You are not a member of this clan.")
	}
	return role, err
}

func (s *Service) requireOwner(ctx context.Context, clanID, userID int64, what string) error {
	role, err := s.clanRole(ctx, clanID, userID)
	if err != nil {
		return err
	}
	if role != "owner" {
		return refuseAs(Forbidden, "Only the clan's owners can %s.", what)
	}
	return nil
}

func (s *Service) notInClan(ctx context.Context, userID int64) error {
	c, err := s.store.ClanGetByUser(ctx, userID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	return refuseAs(Conflict, "You are already in the clan %s; leave it first.", c.Name)
}

// newJoinKey is 16 random bytes, URL-safe: it goes into invite links.
func newJoinKey() (string, error) {
	var b [16]byte
	if _, err := crand.Read(b[:]); err != nil {
		return "", fmt.Errorf("clan join key: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
