package store

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// pageCost is the random_page_cost the platform's connections plan with,
// unless DATABASE_URL names one. Postgres's default (4) prices a page read
// out of index order as a spinning disk's seek; the platform's tables are
// read from memory or an SSD, where the usual advice is 1.1. At the
// default, a page listing 50 matches joined their 100 seats to all 10,000
// bots and versions by hashing them whole; at 1.1 it looks up the 100 it
// needs, and its cost follows the page, not the tables.
const pageCost = "1.1"

// PoolConfig parses a DATABASE_URL for a connection pool, with the
// platform's planner settings where the URL leaves them out.
func PoolConfig(databaseURL string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["random_page_cost"]; !ok {
		cfg.ConnConfig.RuntimeParams["random_page_cost"] = pageCost
	}
	return cfg, nil
}
