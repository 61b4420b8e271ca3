package store

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable reports whether err, returned by a database call, means
// that the database could not be reached rather than that a query was
// wrong: a refused or dropped connection, a server shutting down or still
// starting. Such an error is worth trying again once the database is back.
// A network error of another service looks the same: where err may come
// from elsewhere too, confirm with Ping.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 is "connection exception"; 57P01 to 57P03 are the
		// server shutting down or not accepting connections yet.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// What pgx says of a connection that broke before the query was sent,
	// or of one it had already closed.
	return pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed")
}
