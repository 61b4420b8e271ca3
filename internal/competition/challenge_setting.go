package competition

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
)

// openChallengesKey is the platform setting that lets anyone challenge any
// bot ("true", the default) or only bots of their clan's members ("false").
const openChallengesKey = "open_challenges"

// OpenChallenges reports whether any bot may be challenged, rather than
// only the bots of the challenger's clan.
func (s *Service) OpenChallenges(ctx context.Context) (bool, error) {
	v, err := s.store.SettingGet(ctx, openChallengesKey, "true")
	return v == "true", err
}

// SetOpenChallenges lets an organiser open challenges to every bot or
// limit them to clans. The change and who made it go to the audit log.
func (s *Service) SetOpenChallenges(ctx context.Context, actorID int64, open bool) error {
	if err := requireOrganiser(ctx, s.store, actorID); errors.Is(err, ErrNotOrganiser) {
		return refuseAs(Forbidden, "Only organisers can change who may be challenged.")
	} else if err != nil {
		return err
	}
	action := "challenges.clan_only"
	if open {
		action = "challenges.open"
	}
	err := s.store.InTx(ctx, func(_ pgx.Tx, st *store.Store) error {
		if err := st.SettingSet(ctx, openChallengesKey, strconv.FormatBool(open)); err != nil {
			return err
		}
		return st.AuditAdd(ctx, actorID, action, "setting", 0, openChallengesKey+"="+strconv.FormatBool(open))
	})
	if err != nil {
		return err
	}
	s.logger.InfoContext(ctx, "challenge policy changed", "user_id", actorID, "open", open)
	return nil
}
