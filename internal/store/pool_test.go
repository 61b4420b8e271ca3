package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/testdb"
)

// TestPoolConfigPageCost checks that the platform's connections plan with
// its random_page_cost, and that DATABASE_URL may name another.
func TestPoolConfigPageCost(t *testing.T) {
	url := testdb.URL(t)
	for _, c := range []struct {
		name, url, want string
	}{
		{"the platform's", url, "1.1"},
		{"the URL's", withParam(url, "random_page_cost=4"), "4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := store.PoolConfig(c.url)
			if err != nil {
				t.Fatal(err)
			}
			pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			var got string
			if err := pool.QueryRow(context.Background(), "SHOW random_page_cost").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("random_page_cost %s, want %s", got, c.want)
			}
		})
	}
}

func withParam(url, param string) string {
	if strings.Contains(url, "?") {
		return url + "&" + param
	}
	return url + "?" + param
}
