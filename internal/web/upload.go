package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	botblob "github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
)

// Upload is one bot zip to record as a new version.
type Upload struct {
	OwnerID int64
	// Name is the bot's name; empty takes the manifest's NickName.
	Name string
	Zip  io.Reader
	// Size is the zip's size as announced by the client, or -1.
	Size int64
	// House marks a starter bot of the house account.
	House bool
	// SkipUnchanged returns the bot's newest version instead of adding one
	// when the zip is byte for byte the same (for idempotent seeding).
	SkipUnchanged bool
}

// UploadResult is the version an upload made.
type UploadResult struct {
	BotID     int64
	VersionID int64
	Number    int
	// Unchanged is set when SkipUnchanged found the same zip already stored.
	Unchanged bool
}

func validBotName(name string) string {
	switch {
	case name == "":
		return "Give the bot a name (or set NickName in its bot.json)."
	case utf8.RuneCountInString(name) > 64:
		return "Bot names have at most 64 characters."
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return "Bot names cannot contain control characters."
	}
	return ""
}

// SaveUpload checks a bot zip and records it as a new immutable version:
// the rows, the zip in the blob store and the build job land together or
// not at all. Its refusals carry a message for the uploader.
func (h *Handler) SaveUpload(ctx context.Context, u Upload) (*UploadResult, error) {
	max := h.cfg.UploadMaxBytes
	if u.Size > max {
		return nil, refuse(http.StatusRequestEntityTooLarge, "The zip is %d bytes, larger than the limit of %s (%d bytes).", u.Size, mib(max), max)
	}
	data, err := io.ReadAll(io.LimitReader(u.Zip, max+1))
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	if int64(len(data)) > max {
		return nil, refuse(http.StatusRequestEntityTooLarge, "The zip is larger than the limit of %s (%d bytes).", mib(max), max)
	}
	if len(data) == 0 {
		return nil, refuse(http.StatusUnprocessableEntity, "Choose a zip file to upload: the file sent was empty.")
	}
	insp, err := h.inspect.Inspect(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, refuse(http.StatusUnprocessableEntity, "The zip was refused: %s", err)
	}
	name := strings.TrimSpace(u.Name)
	if name == "" {
		name = strings.TrimSpace(insp.Name)
	}
	if msg := validBotName(name); msg != "" {
		return nil, refuse(http.StatusUnprocessableEntity, "%s", msg)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	if u.SkipUnchanged {
		botID, last, err := h.store.BotLatestSource(ctx, u.OwnerID, name)
		if err == nil && last == digest {
			return &UploadResult{BotID: botID, Unchanged: true}, nil
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	var res *store.UploadResult
	var written string
	err = h.store.InTx(ctx, func(tx pgx.Tx, st *store.Store) error {
		var err error
		res, err = st.UploadRecord(ctx, store.UploadParams{
			OwnerID: u.OwnerID, Name: name, Game: insp.Game, Language: insp.Language, BotType: insp.BotType,
			Manifest: insp.Manifest, SourceSHA256: digest, SourceSize: int64(len(data)), House: u.House,
			SourceKey: botblob.SourceKey,
		})
		if err != nil {
			return err
		}
		if err := h.blobs.WriteAll(ctx, res.SourceKey, data, nil); err != nil {
			return fmt.Errorf("store zip of bot %d: %w", res.BotID, err)
		}
		written = res.SourceKey
		return h.queue.EnqueueBuildTx(ctx, tx, res.VersionID)
	})
	if err != nil {
		if written != "" {
			// The rows are gone with the transaction; the zip must go too.
			if derr := h.blobs.Delete(context.WithoutCancel(ctx), written); derr != nil {
				h.logger.ErrorContext(ctx, "remove zip of failed upload", "key", written, "err", derr)
			}
		}
		switch {
		case errors.Is(err, store.ErrGameMismatch):
			return nil, refuse(http.StatusConflict,
				"You already have a bot called %q for another game; this zip is for %s. Choose another name.", name, insp.Game)
		case errors.Is(err, store.ErrConflict):
			return nil, refuse(http.StatusConflict, "Another upload of %q is under way. Please try again.", name)
		}
		return nil, fmt.Errorf("save upload of %q: %w", name, err)
	}
	h.logger.InfoContext(ctx, "bot version uploaded", "bot_id", res.BotID, "version_id", res.VersionID,
		"number", res.Number, "user_id", u.OwnerID)
	return &UploadResult{BotID: res.BotID, VersionID: res.VersionID, Number: res.Number}, nil
}
