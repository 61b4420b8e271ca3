// Package migrations embeds the SQL migrations applied by the portal and the
// worker at start-up (golang-migrate, numbered up/down pairs).
package migrations

import "embed"

// FS holds the numbered *.up.sql and *.down.sql files.
//
//go:embed *.sql
var FS embed.FS
