// Command pagecost counts the SQL statements each public page sends to
// PostgreSQL: the first request (caches cold) and a second one right after
// (caches warm), through the portal's handler on the database of
// DATABASE_URL. With -v it prints each statement. With -serve it serves
// the same handler and /debug/pprof/profile instead, to profile a page
// under scripts/loadgen.
//
//	DATABASE_URL=... go run ./scripts/pagecost /matches /bots/5000
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/internal/web"
)

// tracer counts statements and, verbose, keeps their text.
type tracer struct {
	store.StatementCounter
	mu    sync.Mutex
	texts []string
}

func (t *tracer) TraceQueryStart(ctx context.Context, c *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	t.mu.Lock()
	t.texts = append(t.texts, strings.Join(strings.Fields(d.SQL), " "))
	t.mu.Unlock()
	return t.StatementCounter.TraceQueryStart(ctx, c, d)
}

func main() {
	verbose := flag.Bool("v", false, "print each statement")
	serve := flag.String("serve", "", "serve the portal and /debug/pprof at this address instead")
	plans := flag.Bool("plans", false, "after the pages, list the statements Postgres plans afresh at each execution")
	flag.Parse()
	ctx := context.Background()
	cfg, err := store.PoolConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagecost:", err)
		os.Exit(1)
	}
	tr := &tracer{}
	cfg.ConnConfig.Tracer = tr
	if *plans {
		// One connection holds every prepared statement, to list them.
		cfg.MaxConns = 1
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagecost:", err)
		os.Exit(1)
	}
	defer pool.Close()
	h := web.New(store.New(pool), nil, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), web.DefaultConfig(rulesets.Registry())).Routes()
	if *serve != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.Handle("/", h)
		fmt.Fprintln(os.Stderr, http.ListenAndServe(*serve, mux))
		return
	}
	fmt.Println("| page | status | statements (cold) | statements (warm) |")
	fmt.Println("|---|---|---|---|")
	for _, p := range flag.Args() {
		var counts [2]int64
		var code int
		for i := range counts {
			tr.mu.Lock()
			tr.texts = nil
			tr.mu.Unlock()
			before := tr.Count()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
			counts[i], code = tr.Count()-before, rec.Code
			if *verbose {
				for _, s := range tr.texts {
					fmt.Fprintf(os.Stderr, "%s [%d]: %s\n", p, i, s)
				}
			}
		}
		fmt.Printf("| %s | %d | %d | %d |\n", p, code, counts[0], counts[1])
	}
	if *plans {
		if err := customPlans(ctx, pool, h, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "pagecost:", err)
			os.Exit(1)
		}
	}
}

// customPlans requests each page ten times more, then lists the prepared
// statements Postgres planned for their parameters at every execution
// instead of settling on a generic plan after the fifth: each such
// execution pays its planning again.
func customPlans(ctx context.Context, pool *pgxpool.Pool, h http.Handler, pages []string) error {
	for _, p := range pages {
		for range 10 {
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
		}
	}
	rows, err := pool.Query(ctx, `SELECT generic_plans, custom_plans, statement FROM pg_prepared_statements
		WHERE custom_plans > 5 ORDER BY custom_plans DESC`)
	if err != nil {
		return fmt.Errorf("list prepared statements: %w", err)
	}
	defer rows.Close()
	fmt.Println()
	fmt.Println("| generic plans | custom plans | statement |")
	fmt.Println("|---|---|---|")
	for rows.Next() {
		var generic, custom int64
		var stmt string
		if err := rows.Scan(&generic, &custom, &stmt); err != nil {
			return fmt.Errorf("list prepared statements: %w", err)
		}
		fmt.Printf("| %d | %d | %.160s |\n", generic, custom, strings.Join(strings.Fields(stmt), " "))
	}
	return rows.Err()
}
