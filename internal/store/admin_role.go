package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// UserSetRole gives a user a role ("user" or "organiser") and records it
// in the audit log as done by the operator (no acting user).
func (s *Store) UserSetRole(ctx context.Context, username, role string) (*User, error) {
	var u *User
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		var err error
		u, err = scanUser(st.db.QueryRow(ctx, `
			UPDATE users SET role = $2 WHERE lower(username) = lower($1) RETURNING `+userColumns, username, role))
		if err != nil {
			return err
		}
		_, err = st.db.Exec(ctx, `
			INSERT INTO audit_log (action, target_type, target_id, detail) VALUES ('user.role', 'user', $1, $2)`,
			u.ID, "role set to "+role+" from the command line")
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: set role of %q: %w", username, err)
	}
	return u, nil
}
