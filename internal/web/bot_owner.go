package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/broadside/broadside/internal/blob"
	"github.com/broadside/broadside/internal/store"
	"github.com/broadside/broadside/web/page"
)

// ownedBot loads the bot of the route for a change only its owner may
// make; anyone else is refused.
func (h *Handler) ownedBot(r *http.Request) (*store.Bot, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	b, err := h.store.BotGetByID(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if b.OwnerID != sessionFrom(r).User.ID {
		return nil, refuse(http.StatusForbidden, "Only the owner of %s can change it.", b.Name)
	}
	return b, nil
}

// botControl answers one of the owner's controls on the bot page: act
// changes the bot and returns the notice shown after the redirect; a
// refusal is shown on the bot page.
func (h *Handler) botControl(act func(r *http.Request, b *store.Bot) (notice string, err error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := h.ownedBot(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		done, err := act(r, b)
		var ue *userError
		if errors.As(err, &ue) {
			v, verr := h.botView(r)
			if verr != nil {
				h.fail(w, r, verr)
				return
			}
			v.Error = ue.msg
			h.render(w, r, ue.status, page.Bot(*v))
			return
		} else if err != nil {
			h.fail(w, r, err)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/bots/%d?done=%s", b.ID, done), http.StatusSeeOther)
	}
}

// botDoneNotices are the notices the bot page shows after an owner's
// control worked, by the redirect's done= word.
var botDoneNotices = map[string]string{
	"paused":    "Paused: the matchmaker leaves this bot out of ladder games until you resume it. It keeps its rating.",
	"resumed":   "Back on the ladder: the matchmaker pairs it again at its next run.",
	"retired":   "Retired: the bot has left the ladder and the leaderboard; its matches stay. You can bring it back.",
	"unretired": "Back from retirement: it is on the ladder and the leaderboard again.",
	"renamed":   "Renamed.",
	"restarted": "Back on the ladder: its count of failed matches starts again, and the matchmaker pairs it at its next run.",
}

func (h *Handler) botPause(w http.ResponseWriter, r *http.Request) {
	h.botControl(func(r *http.Request, b *store.Bot) (string, error) {
		return "paused", h.store.BotSetPaused(r.Context(), b.ID, true)
	})(w, r)
}

func (h *Handler) botResume(w http.ResponseWriter, r *http.Request) {
	h.botControl(func(r *http.Request, b *store.Bot) (string, error) {
		return "resumed", h.store.BotSetPaused(r.Context(), b.ID, false)
	})(w, r)
}

// botLadderRestart puts a bot stopped for failing back on the ladder.
func (h *Handler) botLadderRestart(w http.ResponseWriter, r *http.Request) {
	h.botControl(func(r *http.Request, b *store.Bot) (string, error) {
		err := h.store.BotLadderRestart(r.Context(), b.ID)
		if errors.Is(err, store.ErrConflict) {
			return "", refuse(http.StatusConflict, "%s was not taken off the ladder for failing.", b.Name)
		}
		return "restarted", err
	})(w, r)
}

func (h *Handler) botRetire(w http.ResponseWriter, r *http.Request) {
	h.botControl(func(r *http.Request, b *store.Bot) (string, error) {
		err := h.store.BotRetire(r.Context(), b.ID)
		if errors.Is(err, store.ErrConflict) {
			return "", refuse(http.StatusConflict, "%s is already off the ladder: it was retired or disabled.", b.Name)
		}
		return "retired", err
	})(w, r)
}

func (h *Handler) botUnretire(w http.ResponseWriter, r *http.Request) {
	h.botControl(func(r *http.Request, b *store.Bot) (string, error) {
		err := h.store.BotUnretire(r.Context(), b.ID)
		if errors.Is(err, store.ErrConflict) {
			return "", refuse(http.StatusConflict, "%s is not retired; a bot an organiser disabled comes back only by an organiser.", b.Name)
		}
		return "unretired", err
	})(w, r)
}

func (h *Handler) botRename(w http.ResponseWriter, r *http.Request) {
	h.botControl(func(r *http.Request, b *store.Bot) (string, error) {
		// The rules an upload's name meets: not a name that reads as a
		// house bot's or another user's bot's.
		err := h.uploads.Rename(r.Context(), b, strings.TrimSpace(r.PostFormValue("name")))
		return "renamed", uploadRefusal(err)
	})(w, r)
}

// versionFor loads a bot's version for a download: its owner and
// organisers get every version; everyone gets the house bots', which
// are the starter kits.
func (h *Handler) versionFor(r *http.Request) (*store.Bot, *store.BotVersion, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, nil, err
	}
	n, err := strconv.Atoi(chi.URLParam(r, "n"))
	if err != nil || n < 1 {
		return nil, nil, fmt.Errorf("version %q: %w", chi.URLParam(r, "n"), store.ErrNotFound)
	}
	b, err := h.store.BotGetByID(r.Context(), id)
	if err != nil {
		return nil, nil, err
	}
	s := sessionFrom(r)
	if !b.House && (s == nil || (s.User.ID != b.OwnerID && s.User.Role != "organiser")) {
		// As a missing page: the versions of others' bots are theirs.
		return nil, nil, refuse(http.StatusNotFound, "Only the owner of a bot can download its versions.")
	}
	v, err := h.store.BotVersionGetByNumber(r.Context(), id, n)
	if err != nil {
		return nil, nil, err
	}
	return b, v, nil
}

// versionSource sends the zip a version was uploaded as.
func (h *Handler) versionSource(w http.ResponseWriter, r *http.Request) {
	b, v, err := h.versionFor(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rd, err := h.blobs.NewReader(r.Context(), v.SourceKey, nil)
	if err != nil {
		if blob.IsNotFound(err) {
			err = refuse(http.StatusNotFound, "The zip of this version is missing from storage.")
		}
		h.fail(w, r, fmt.Errorf("open zip of bot %d version %d: %w", b.ID, v.Number, err))
		return
	}
	defer rd.Close()
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.FormatInt(rd.Size(), 10))
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, versionZipName(b, v.Number)))
	if !b.House {
		w.Header().Set("Cache-Control", "private")
	}
	if _, err := rd.WriteTo(w); err != nil {
		h.logger.WarnContext(r.Context(), "send bot zip", "bot_id", b.ID, "number", v.Number, "err", err)
	}
}

// versionBuildLog sends a version's build log as text.
func (h *Handler) versionBuildLog(w http.ResponseWriter, r *http.Request) {
	b, v, err := h.versionFor(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	text := v.BuildLog
	if text == "" {
		text = "The build of version " + strconv.Itoa(v.Number) + " is " + v.BuildStatus + "; it has no log yet.\n"
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s-v%d-build.log"`, fileSafe(b.Name), v.Number))
	w.Header().Set("Cache-Control", "private, no-cache")
	_, _ = w.Write([]byte(text))
}

// fileSafe turns a bot name into a file name: letters, digits, dot,
// dash and underscore; anything else becomes a dash.
// versionZipName is the file a version's zip is saved as: the owner's
// "Pyro-v2.zip", or for a house bot, whose versions are the starter kits,
// "broadside-entelect-python3-starter.zip", which says where it came from
// and for which game.
func versionZipName(b *store.Bot, n int) string {
	name := fileSafe(b.Name)
	if !b.House {
		return fmt.Sprintf("%s-v%d.zip", name, n)
	}
	name = strings.TrimSuffix(strings.ToLower(name), "-starter")
	if !strings.HasPrefix(name, b.Game+"-") {
		name = b.Game + "-" + name
	}
	return "broadside-" + name + "-starter.zip"
}

func fileSafe(name string) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '-'
	}, name)
	if strings.Trim(out, "-.") == "" {
		return "bot"
	}
	return out
}
