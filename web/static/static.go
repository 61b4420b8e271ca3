// Package static embeds the portal's stylesheet and its small scripts.
package static

import "embed"

// FS holds the files served under /static/.
//
//go:embed *.css *.js
var FS embed.FS
