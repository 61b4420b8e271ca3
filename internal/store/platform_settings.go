package store

import (
	"context"
	"fmt"
)

// SettingGet returns a platform setting, or def when unset.
func (s *Store) SettingGet(ctx context.Context, key, def string) (string, error) {
	var v string
	err := s.db.QueryRow(ctx, `SELECT value FROM platform_settings WHERE key = $1`, key).Scan(&v)
	if err != nil {
		if err = interpretError(err); err == ErrNotFound {
			return def, nil
		}
		return "", fmt.Errorf("store: get setting %s: %w", key, err)
	}
	return v, nil
}

// SettingSet stores a platform setting.
func (s *Store) SettingSet(ctx context.Context, key, value string) error {
	_, err := s.db.Exec(ctx, `
		INSERT INTO platform_settings (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, key, value)
	if err != nil {
		return fmt.Errorf("store: set setting %s: %w", key, err)
	}
	return nil
}
