package botupload

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/broadside/broadside/internal/botzip"
)

// Inspection is what an upload learns from a checked bot zip.
type Inspection struct {
	// Name is the bot's display name from its manifest (NickName).
	Name     string
	Game     string
	BotType  string
	Language string
	// Manifest is the manifest as JSON, kept with the version.
	Manifest []byte
}

// Inspector checks an uploaded zip. Its errors are messages for the uploader.
type Inspector interface {
	Inspect(r io.ReaderAt, size int64) (Inspection, error)
}

// ZipInspector checks uploads with botzip under its limits.
type ZipInspector struct {
	Limits botzip.Limits
}

// Inspect implements Inspector. Refusals keep botzip's message; anything
// else becomes a plain "cannot read" so internals never reach the page.
func (z ZipInspector) Inspect(r io.ReaderAt, size int64) (Inspection, error) {
	m, lang, err := botzip.Describe(r, size, z.Limits)
	if err != nil {
		var refusal *botzip.Error
		if errors.As(err, &refusal) {
			return Inspection{}, refusal
		}
		return Inspection{}, &botzip.Error{Msg: "The file could not be read as a zip."}
	}
	manifest, err := json.Marshal(m)
	if err != nil {
		return Inspection{}, &botzip.Error{Msg: "The manifest could not be recorded."}
	}
	return Inspection{
		Name: m.DisplayName(), Game: m.Game, BotType: m.BotType.String(), Language: lang,
		Manifest: manifest,
	}, nil
}
