package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Clan is a group of contestants.
type Clan struct {
	ID          int64
	Name        string
	Description string
	JoinKey     string
	CreatedBy   *int64
	CreatedAt   time.Time
	Members     int
}

// ClanMember is a user's membership of a clan.
type ClanMember struct {
	ClanID   int64
	UserID   int64
	Username string
	Role     string
	JoinedAt time.Time
}

// ClanCreate creates a clan with its creator as owner.
func (s *Store) ClanCreate(ctx context.Context, name, description, joinKey string, ownerID int64) (*Clan, error) {
	var c Clan
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		err := st.db.QueryRow(ctx, `
			INSERT INTO clans (name, description, join_key, created_by)
			VALUES ($1, $2, $3, $4)
			RETURNING id, name, description, join_key, created_by, created_at`,
			name, description, joinKey, ownerID,
		).Scan(&c.ID, &c.Name, &c.Description, &c.JoinKey, &c.CreatedBy, &c.CreatedAt)
		if err != nil {
			return interpretError(err)
		}
		_, err = st.db.Exec(ctx, `INSERT INTO clan_members (clan_id, user_id, role) VALUES ($1, $2, 'owner')`, c.ID, ownerID)
		return interpretError(err)
	})
	if err != nil {
		return nil, fmt.Errorf("store: create clan %q: %w", name, err)
	}
	c.Members = 1
	return &c, nil
}

const clanColumns = `c.id, c.name, c.description, c.join_key, c.created_by, c.created_at,
	(SELECT count(*) FROM clan_members m WHERE m.clan_id = c.id)`

func scanClan(row interface{ Scan(...any) error }) (*Clan, error) {
	var c Clan
	if err := row.Scan(&c.ID, &c.Name, &c.Description, &c.JoinKey, &c.CreatedBy, &c.CreatedAt, &c.Members); err != nil {
		return nil, interpretError(err)
	}
	return &c, nil
}

// ClanGetByID returns a clan.
func (s *Store) ClanGetByID(ctx context.Context, id int64) (*Clan, error) {
	c, err := scanClan(s.db.QueryRow(ctx, `SELECT `+clanColumns+` FROM clans c WHERE c.id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get clan %d: %w", id, err)
	}
	return c, nil
}

// ClanGetByUser returns the clan a user belongs to, or ErrNotFound.
func (s *Store) ClanGetByUser(ctx context.Context, userID int64) (*Clan, error) {
	c, err := scanClan(s.db.QueryRow(ctx, `
		SELECT `+clanColumns+` FROM clans c JOIN clan_members m ON m.clan_id = c.id WHERE m.user_id = $1`, userID))
	if err != nil {
		return nil, fmt.Errorf("store: get clan of user %d: %w", userID, err)
	}
	return c, nil
}

// ClanList lists clans by name.
func (s *Store) ClanList(ctx context.Context) ([]Clan, error) {
	rows, err := s.db.Query(ctx, `SELECT `+clanColumns+` FROM clans c ORDER BY lower(c.name)`)
	if err != nil {
		return nil, fmt.Errorf("store: list clans: %w", err)
	}
	defer rows.Close()
	var out []Clan
	for rows.Next() {
		c, err := scanClan(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list clans: %w", err)
		}
		out = append(out, *c)
	}
	return out, rows.Err()
}

// ClanMembers lists a clan's members, owners first.
func (s *Store) ClanMembers(ctx context.Context, clanID int64) ([]ClanMember, error) {
	rows, err := s.db.Query(ctx, `
		SELECT m.clan_id, m.user_id, u.username, m.role, m.joined_at
		FROM clan_members m JOIN users u ON u.id = m.user_id
		WHERE m.clan_id = $1
		ORDER BY m.role = 'owner' DESC, lower(u.username)`, clanID)
	if err != nil {
		return nil, fmt.Errorf("store: list members of clan %d: %w", clanID, err)
	}
	defer rows.Close()
	var out []ClanMember
	for rows.Next() {
		var m ClanMember
		if err := rows.Scan(&m.ClanID, &m.UserID, &m.Username, &m.Role, &m.JoinedAt); err != nil {
			return nil, fmt.Errorf("store: list members of clan %d: %w", clanID, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ClanMemberRole returns a user's role in a clan, or ErrNotFound.
func (s *Store) ClanMemberRole(ctx context.Context, clanID, userID int64) (string, error) {
	var role string
	err := s.db.QueryRow(ctx, `SELECT role FROM clan_members WHERE clan_id = $1 AND user_id = $2`, clanID, userID).Scan(&role)
	if err != nil {
		return "", fmt.Errorf("store: role of user %d in clan %d: %w", userID, clanID, interpretError(err))
	}
	return role, nil
}

// ClanJoin adds a member; ErrConflict if the user is already in a clan.
func (s *Store) ClanJoin(ctx context.Context, clanID, userID int64) error {
	_, err := s.db.Exec(ctx, `INSERT INTO clan_members (clan_id, user_id, role) VALUES ($1, $2, 'member')`, clanID, userID)
	if err != nil {
		return fmt.Errorf("store: user %d joins clan %d: %w", userID, clanID, interpretError(err))
	}
	return nil
}

// ClanLeave removes a member. When the last owner leaves, the longest-standing
// member becomes owner; when the last member leaves, the clan is deleted.
func (s *Store) ClanLeave(ctx context.Context, clanID, userID int64) error {
	err := s.InTx(ctx, func(_ pgx.Tx, st *Store) error {
		tag, err := st.db.Exec(ctx, `DELETE FROM clan_members WHERE clan_id = $1 AND user_id = $2`, clanID, userID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		var members, owners int
		if err := st.db.QueryRow(ctx, `
			SELECT count(*), count(*) FILTER (WHERE role = 'owner') FROM clan_members WHERE clan_id = $1`,
			clanID).Scan(&members, &owners); err != nil {
			return err
		}
		switch {
		case members == 0:
			_, err = st.db.Exec(ctx, `DELETE FROM clans WHERE id = $1`, clanID)
		case owners == 0:
			_, err = st.db.Exec(ctx, `
				UPDATE clan_members SET role = 'owner'
				WHERE clan_id = $1 AND user_id = (
					SELECT user_id FROM clan_members WHERE clan_id = $1 ORDER BY joined_at, user_id LIMIT 1)`, clanID)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: user %d leaves clan %d: %w", userID, clanID, err)
	}
	return nil
}

// ClanSetJoinKey replaces a clan's join key.
func (s *Store) ClanSetJoinKey(ctx context.Context, clanID int64, key string) error {
	if _, err := s.db.Exec(ctx, `UPDATE clans SET join_key = $2 WHERE id = $1`, clanID, key); err != nil {
		return fmt.Errorf("store: set join key of clan %d: %w", clanID, err)
	}
	return nil
}

// ClanSetRole changes a member's role.
func (s *Store) ClanSetRole(ctx context.Context, clanID, userID int64, role string) error {
	tag, err := s.db.Exec(ctx, `UPDATE clan_members SET role = $3 WHERE clan_id = $1 AND user_id = $2`, clanID, userID, role)
	if err != nil {
		return fmt.Errorf("store: set role of user %d in clan %d: %w", userID, clanID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: set role of user %d in clan %d: %w", userID, clanID, ErrNotFound)
	}
	return nil
}

// SameClan reports whether two users are members of the same clan.
func (s *Store) SameClan(ctx context.Context, userA, userB int64) (bool, error) {
	var same bool
	err := s.db.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM clan_members a JOIN clan_members b ON a.clan_id = b.clan_id
		               WHERE a.user_id = $1 AND b.user_id = $2)`, userA, userB).Scan(&same)
	if err != nil {
		return false, fmt.Errorf("store: same clan %d %d: %w", userA, userB, err)
	}
	return same, nil
}
