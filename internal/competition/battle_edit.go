package competition

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/store"
)

// EditBattle changes the settings of a battle that has not started, with
// the checks of creation. Its game cannot change while bots are entered:
// they play the old game, and dropping them would silently undo their
// owners' entries, so the owners withdraw them first. The organiser and
// seed stay. The edit is audited with what changed.
func (s *Service) EditBattle(ctx context.Context, actorID, battleID int64, p BattleParams, games []string) error {
	return s.organiserAction(ctx, actorID, battleID, "battle.edit", func(st *store.Store, _ pgx.Tx, b *store.Battle) error {
		if b.Status != "open" {
			return refuse("%s is %s; a battle can only be edited before it starts.", b.Name, b.Status)
		}
		if err := p.validate(s.now(), games, s.Rules, b); err != nil {
			return err
		}
		if p.Game != b.Game && b.Entries > 0 {
			return refuse("%s has %d bot(s) entered to play %s; its game can only change once their owners have withdrawn them.",
				b.Name, b.Entries, b.Game)
		}
		if err := st.BattleUpdate(ctx, battleID, p.storeParams(0)); err != nil {
			return err
		}
		// organiserAction audits b.Name: name the battle as it now is.
		b.Name = fmt.Sprintf("%s (changed: %s)", p.Name, strings.Join(changedSettings(b, &p), ", "))
		return nil
	})
}

// changedSettings names the settings p changes in b.
func changedSettings(b *store.Battle, p *BattleParams) []string {
	var out []string
	for _, c := range []struct {
		name    string
		changed bool
	}{
		{"name", p.Name != b.Name},
		{"format", p.Format != b.Format},
		{"game", p.Game != b.Game},
		{"map size", p.MapSize != b.MapSize},
		{"games per pairing", p.GamesPerPairing != b.GamesPerPairing},
		{"Swiss rounds", p.SwissRounds != b.SwissRounds},
		{"start", !p.StartAt.Equal(b.StartAt)},
		{"entry deadline", !p.EntryDeadline.Equal(b.EntryDeadline)},
		{"hidden results", p.ResultsHidden != b.ResultsHidden},
	} {
		if c.changed {
			out = append(out, c.name)
		}
	}
	if len(out) == 0 {
		out = append(out, "nothing")
	}
	return out
}
