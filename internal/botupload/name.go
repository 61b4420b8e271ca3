package botupload

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/broadside/broadside/internal/store"
)

// nameKeys are what bot names are compared by: two names read alike when
// they share a key, so that a name cannot pass for another. Each key is
// the name with its compatibility forms folded (NFKC: fullwidth and styled
// letters, ligatures), each character mapped to the one it can be taken
// for (the skeleton of Unicode TR39: Cyrillic "о" and Greek "ο" become
// Latin "o", "0" becomes "O", "1" and "I" become "l"), letter case folded,
// and only letters, marks and digits kept (spaces, dashes, dots and
// invisible characters do not count; a name of nothing else keeps them).
// One key maps before folding the case, where "I" passes for "l", the
// other after, where "I" is "i": so "Ill" reads as "1ll" and as "ill".
func nameKeys(name string) [2]string {
	fold := cases.Fold()
	s := norm.NFKC.String(name)
	return [2]string{
		keep(fold.String(norm.NFKC.String(confusables.Skeleton(s)))),
		keep(fold.String(norm.NFKC.String(confusables.Skeleton(fold.String(s))))),
	}
}

// keep keeps the letters, marks and digits of s, or all of s when it has
// none.
func keep(s string) string {
	kept := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) {
			return r
		}
		return -1
	}, s)
	if kept == "" {
		return s
	}
	return kept
}

// readAlike reports whether two names share a key.
func readAlike(a, b [2]string) bool {
	return a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]
}

// nameTaken refuses a new bot's name that reads as the name of a house
// bot (of any game) or of another user's bot of the same game; st runs in
// the upload's transaction. A new version of one of the owner's own bots
// keeps its name whatever it is.
func nameTaken(ctx context.Context, st *store.Store, ownerID int64, name, game string) error {
	if err := st.BotNamesLock(ctx); err != nil {
		return err
	}
	own, err := st.BotExistsNamed(ctx, ownerID, name)
	if err != nil || own {
		return err
	}
	rivals, err := st.BotNamesAgainst(ctx, ownerID, game)
	if err != nil {
		return err
	}
	keys := nameKeys(name)
	for _, b := range rivals {
		if !readAlike(keys, nameKeys(b.Name)) {
			continue
		}
		if b.House {
			return refuse(Conflict, "%q reads as %q, a house bot of the platform. Choose another name.", name, b.Name)
		}
		return refuse(Conflict, "%q reads as %q, another user's %s bot. Choose another name.", name, b.Name, game)
	}
	return nil
}

// Rename gives one of the owner's bots a new name, under the rules an
// upload's name meets: a valid name, none that reads as a house bot's or
// another user's bot's of its game, none of the owner's other bots.
func (s *Service) Rename(ctx context.Context, b *store.Bot, name string) error {
	if msg := ValidName(name); msg != "" {
		return refuse(Invalid, "%s", msg)
	}
	err := s.store.InTx(ctx, func(_ pgx.Tx, st *store.Store) error {
		if err := nameTaken(ctx, st, b.OwnerID, name, b.Game); err != nil {
			return err
		}
		return st.BotRename(ctx, b.ID, name)
	})
	if errors.Is(err, store.ErrConflict) {
		return refuse(Conflict, "You already have a bot called %q; choose another name.", name)
	}
	return err
}
