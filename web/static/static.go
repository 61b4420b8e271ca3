// Package static embeds the portal's stylesheet, its small scripts and its icon.
package static

import "embed"

// FS holds the files served under /static/.
//
//go:embed *.css *.js *.svg
var FS embed.FS
