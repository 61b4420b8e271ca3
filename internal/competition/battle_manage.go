package competition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/tournament"
)

// ErrNotOrganiser refuses battle management to users without the
// organiser role.
var ErrNotOrganiser = errors.New("only organisers can create or change battles")

// freeForAllTitles names the games among games whose battles are
// free-for-alls.
func freeForAllTitles(rules *game.Registry, games []string) []string {
	var out []string
	for _, g := range games {
		if rs, err := rules.Get(g); err == nil && rs.Traits().FreeForAll {
			out = append(out, rs.Traits().Title)
		}
	}
	return out
}

// mapSizeWords lists map sizes as people say them: "1 (small), 2
// (medium) or 3 (large)".
func mapSizeWords(sizes []game.MapSize) string {
	words := make([]string, len(sizes))
	for i, m := range sizes {
		words[i] = fmt.Sprintf("%d (%s)", m.Size, m.Name)
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// BattleParams is what an organiser fills in to create a battle.
type BattleParams struct {
	Name            string
	Format          string
	Game            string
	MapSize         int
	GamesPerPairing int
	// SwissRounds is the number of Swiss rounds; zero means ⌈log₂ n⌉.
	SwissRounds   int
	StartAt       time.Time
	EntryDeadline time.Time
	ResultsHidden bool
	Seed          int64
}

// Validate checks the fields against the platform's rules; games lists
// the games that may host battles, and rules answers what each game
// allows. Its error is a refusal to show.
func (p *BattleParams) Validate(now time.Time, games []string, rules *game.Registry) error {
	return p.validate(now, games, rules, nil)
}

// validate checks p as new settings of battle was, or of a new battle when
// was is nil. An edited battle may keep an entry deadline that has passed
// while it waits for its start time, but times it moves must be to come.
func (p *BattleParams) validate(now time.Time, games []string, rules *game.Registry, was *store.Battle) error {
	p.Name = strings.TrimSpace(p.Name)
	var msgs []string
	if p.Name == "" || utf8.RuneCountInString(p.Name) > 80 {
		msgs = append(msgs, "Give the battle a name of 1 to 80 characters.")
	}
	if !contains(games, p.Game) {
		msgs = append(msgs, fmt.Sprintf("Choose one of the games %s.", strings.Join(games, ", ")))
	}
	var traits game.Traits
	if rs, err := rules.Get(p.Game); err == nil {
		traits = rs.Traits()
	}
	switch {
	case traits.FreeForAll && p.Format != freeForAll:
		msgs = append(msgs, fmt.Sprintf("%s battles are free-for-alls of all entrants: choose the free-for-all format.", traits.Title))
	case !traits.FreeForAll && p.Format == freeForAll:
		msgs = append(msgs, fmt.Sprintf("Only %s battles can be free-for-alls; choose round robin, double elimination or Swiss.",
			strings.Join(freeForAllTitles(rules, games), " or ")))
	case !contains([]string{string(tournament.RoundRobin), string(tournament.DoubleElimination), string(tournament.Swiss), freeForAll}, p.Format):
		msgs = append(msgs, "Choose a format: round robin, double elimination, Swiss or free-for-all.")
	}
	if len(traits.MapSizes) > 0 && !slices.ContainsFunc(traits.MapSizes, func(m game.MapSize) bool { return m.Size == p.MapSize }) {
		msgs = append(msgs, fmt.Sprintf("The %s map size is %s.", traits.Title, mapSizeWords(traits.MapSizes)))
	}
	if p.MapSize < 0 || p.MapSize > 3 {
		msgs = append(msgs, "The map size is 0 (the game's default) to 3.")
	}
	if p.GamesPerPairing < 1 || p.GamesPerPairing > 99 {
		msgs = append(msgs, "Games per pairing must be between 1 and 99.")
	}
	if p.SwissRounds < 0 || p.SwissRounds > 30 {
		msgs = append(msgs, "Swiss rounds must be between 0 (automatic) and 30.")
	}
	switch {
	case p.StartAt.IsZero() || p.EntryDeadline.IsZero():
		msgs = append(msgs, "Give both a start time and an entry deadline.")
	case !p.EntryDeadline.After(now) && (was == nil || !sameMinute(p.EntryDeadline, was.EntryDeadline)):
		msgs = append(msgs, "The entry deadline is in the past; choose a time to come.")
	case p.StartAt.Before(p.EntryDeadline):
		msgs = append(msgs, "The battle cannot start before its entry deadline.")
	case was != nil && !p.StartAt.After(now) && !sameMinute(p.StartAt, was.StartAt):
		msgs = append(msgs, "The start time is in the past; choose a time to come, or start the battle now.")
	}
	if len(msgs) > 0 {
		return refuse("%s", strings.Join(msgs, " "))
	}
	return nil
}

// sameMinute reports whether a form's time (whole minutes) is the stored
// time t as the form shows it.
func sameMinute(form, t time.Time) bool { return form.Equal(t.Truncate(time.Minute)) }

// storeParams are the settings as the store records them.
func (p *BattleParams) storeParams(organiserID int64) store.BattleCreateParams {
	return store.BattleCreateParams{
		Name: p.Name, OrganiserID: organiserID, Format: p.Format, Game: p.Game, MapSize: p.MapSize,
		GamesPerPairing: p.GamesPerPairing, SwissRounds: p.SwissRounds, StartAt: p.StartAt,
		EntryDeadline: p.EntryDeadline, ResultsHidden: p.ResultsHidden, Seed: p.Seed,
	}
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// requireOrganiser returns ErrNotOrganiser unless the user is an organiser.
func requireOrganiser(ctx context.Context, st *store.Store, userID int64) error {
	u, err := st.UserGetByID(ctx, userID)
	if err != nil {
		return fmt.Errorf("load user %d: %w", userID, err)
	}
	if u.Role != "organiser" {
		return ErrNotOrganiser
	}
	return nil
}

// CreateBattle records a new battle, open for entries, and audits it.
func (s *Service) CreateBattle(ctx context.Context, actorID int64, p BattleParams, games []string) (int64, error) {
	if err := requireOrganiser(ctx, s.store, actorID); err != nil {
		return 0, err
	}
	if err := p.Validate(s.now(), games, s.Rules); err != nil {
		return 0, err
	}
	var id int64
	err := s.store.InTx(ctx, func(_ pgx.Tx, st *store.Store) error {
		var err error
		id, err = st.BattleCreate(ctx, p.storeParams(actorID))
		if err != nil {
			return err
		}
		return st.AuditAdd(ctx, actorID, "battle.create", "battle", id, p.Name)
	})
	return id, err
}

// EnterBattle enters one of the user's bots in an open battle before its
// entry deadline; an organiser may also enter the house bots, as
// yardsticks among the contestants.
func (s *Service) EnterBattle(ctx context.Context, userID, battleID, botID int64) error {
	b, err := s.store.BattleGetByID(ctx, battleID)
	if err != nil {
		return err
	}
	bot, err := s.store.BotGetByID(ctx, botID)
	if errors.Is(err, store.ErrNotFound) {
		return refuse("Choose one of your bots to enter.")
	} else if err != nil {
		return err
	}
	var seats int
	traits := s.traits(b.Game)
	if rs, err := s.Rules.Get(b.Game); err == nil {
		_, seats = rs.Seats()
	}
	owner := userID
	if bot.House && bot.OwnerID != userID {
		if err := requireOrganiser(ctx, s.store, userID); err != nil {
			return refuse("Only organisers can enter house bots.")
		}
		owner = bot.OwnerID // the entry is the house's, entered by an organiser
	}
	switch {
	case b.Status != "open" || !s.now().Before(b.EntryDeadline):
		return refuse("Entries to %s are closed.", b.Name)
	case bot.OwnerID != owner:
		return refuse("You can only enter your own bots.")
	case bot.Game != b.Game:
		return refuse("%s plays %s, and %s is a %s battle.", bot.Name, bot.Game, b.Name, b.Game)
	case bot.Disabled:
		return refuse("%s is disabled and cannot be entered.", bot.Name)
	case bot.CurrentVersionID == nil:
		return refuse("%s has no successfully built version yet; enter it once a build succeeds.", bot.Name)
	case b.Format == freeForAll && b.Entries >= seats:
		// Every entrant plays in the one game, which seats at most this many.
		return refuse("%s is full: a %s game seats at most %d bots.", b.Name, traits.Title, seats)
	}
	err = s.store.BattleEnter(ctx, battleID, botID, owner)
	if errors.Is(err, store.ErrConflict) {
		return refuse("%s is already entered.", bot.Name)
	}
	return err
}

// WithdrawBattle takes the user's bot out of a battle before it starts.
func (s *Service) WithdrawBattle(ctx context.Context, userID, battleID, botID int64) error {
	b, err := s.store.BattleGetByID(ctx, battleID)
	if err != nil {
		return err
	}
	bot, err := s.store.BotGetByID(ctx, botID)
	if err != nil {
		return err
	}
	if bot.OwnerID != userID {
		if !bot.House || requireOrganiser(ctx, s.store, userID) != nil {
			return refuse("You can only withdraw your own bots.")
		}
	}
	if b.Status != "open" {
		return refuse("%s has started; entries can no longer be withdrawn.", b.Name)
	}
	return s.store.BattleWithdraw(ctx, battleID, botID)
}

// organiserAction runs fn on a locked battle after checking the actor is
// an organiser, and audits it in the same transaction.
func (s *Service) organiserAction(ctx context.Context, actorID, battleID int64, action string,
	fn func(st *store.Store, tx pgx.Tx, b *store.Battle) error) error {
	if err := requireOrganiser(ctx, s.store, actorID); err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		b, err := st.BattleGetForUpdate(ctx, battleID)
		if err != nil {
			return err
		}
		if err := fn(st, tx, b); err != nil {
			return err
		}
		return st.AuditAdd(ctx, actorID, action, "battle", battleID, b.Name)
	})
}

// ReleaseBattle makes a battle's hidden results visible to everyone.
func (s *Service) ReleaseBattle(ctx context.Context, actorID, battleID int64) error {
	return s.organiserAction(ctx, actorID, battleID, "battle.release", func(st *store.Store, _ pgx.Tx, b *store.Battle) error {
		if b.ResultsVisible() {
			return refuse("The results of %s are already visible.", b.Name)
		}
		return st.BattleRelease(ctx, battleID)
	})
}

// CancelBattle cancels a battle that has not finished; its queued games
// are canceled too.
func (s *Service) CancelBattle(ctx context.Context, actorID, battleID int64) error {
	return s.organiserAction(ctx, actorID, battleID, "battle.cancel", func(st *store.Store, _ pgx.Tx, b *store.Battle) error {
		if b.Status == "finished" || b.Status == "canceled" {
			return refuse("%s has already %s.", b.Name, b.Status)
		}
		if err := st.BattleCancelQueuedGames(ctx, battleID); err != nil {
			return err
		}
		return st.BattleSetStatus(ctx, battleID, "canceled")
	})
}

// StartBattleNow starts an open battle at once, closing its entries. A
// battle with fewer than two entrants able to play is refused and left as
// it was.
func (s *Service) StartBattleNow(ctx context.Context, actorID, battleID int64) error {
	return s.organiserAction(ctx, actorID, battleID, "battle.start", func(st *store.Store, tx pgx.Tx, b *store.Battle) error {
		if b.Status != "open" {
			return refuse("%s is %s; only an open battle can be started.", b.Name, b.Status)
		}
		n, err := st.BattlePlayableEntries(ctx, battleID)
		if err != nil {
			return err
		}
		if n < 2 {
			return refuse("%s has %d entrant(s) with a built, enabled bot; a battle needs at least 2.", b.Name, n)
		}
		return s.startLocked(ctx, st, tx, b)
	})
}
