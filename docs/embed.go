// Package docs embeds the documentation for bot authors and operators, so
// the portal serves it as pages (/docs/…) and contestants never need the
// repository to read the rules.
package docs

import "embed"

// FS holds the *.md files of this folder.
//
//go:embed *.md
var FS embed.FS
