package store

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// StatementCounter counts the statements a pool sends to PostgreSQL:
// every query and exec, each query of a batch, each COPY. Set it as the
// pool's ConnConfig.Tracer; the worker exports the count, so the
// database's cost of a match can be measured on a stock server, without
// pg_stat_statements.
type StatementCounter struct {
	n atomic.Int64
}

// Count is the number of statements sent so far.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

// TraceQueryStart counts a query or exec (pgx.QueryTracer).
func (c *StatementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

// TraceQueryEnd is part of pgx.QueryTracer.
func (c *StatementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart is part of pgx.BatchTracer.
func (c *StatementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

// TraceBatchQuery counts one query of a batch (pgx.BatchTracer).
func (c *StatementCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.n.Add(1)
}

// TraceBatchEnd is part of pgx.BatchTracer.
func (c *StatementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TraceCopyFromStart counts a COPY (pgx.CopyFromTracer).
func (c *StatementCounter) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	c.n.Add(1)
	return ctx
}

// TraceCopyFromEnd is part of pgx.CopyFromTracer.
func (c *StatementCounter) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
