package web

import (
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/klauspost/compress/gzip"

	"github.com/broadside/broadside/web/static"
)

// Routes returns the portal's HTTP handler with every route.
func (h *Handler) Routes() http.Handler {
	// Browsers say where a request comes from; refuse cross-site writes even
	// before the form token is checked.
	return http.NewCrossOriginProtection().Handler(h.router())
}

// router is every route of the portal; the API's must match the OpenAPI
// document (openapi.json), which a test checks by walking it.
func (h *Handler) router() *chi.Mux {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer, h.accessLog, securityHeaders, compress)

	r.Handle("/static/*", http.StripPrefix("/static/", cacheFor(http.FileServerFS(static.FS))))
	r.Get("/healthz", h.health)
	// Browsers ask for /favicon.ico whatever the page links; send them to the one icon.
	r.Get("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently)
	})

	r.Route("/api", func(r chi.Router) {
		r.Use(noStore, h.apiAuth)
		r.Get("/openapi.json", apiDescription)
		r.Get("/leaderboard", h.apiLeaderboard)
		r.Get("/bots/{id}", h.apiBot)
		r.Get("/matches", h.apiMatches)
		r.Get("/matches/{id}", h.apiMatch)
		r.Get("/battles", h.apiBattles)
		r.Get("/battles/{id}", h.apiBattleGet)
		r.Get("/duels/{id}", h.apiDuelGet)
		r.Get("/battles/{id}/exports/matches", h.exportBattleMatches)
		r.Get("/battles/{id}/exports/standings", h.exportBattleStandings)
		r.Get("/exports/matches", h.exportMatches)
		r.Get("/exports/rating-events", h.exportRatingEvents)
		r.Get("/exports/leaderboard", h.exportLeaderboard)
		r.Group(func(r chi.Router) {
			r.Use(h.apiRequireUser)
			r.Get("/me", h.apiMe)
			r.Get("/me/bots", h.apiMyBots)
			r.Post("/bots", h.apiUpload)
			r.Post("/bots/{id}/challenge", h.apiChallenge)
			r.Post("/bots/{id}/duel", h.apiDuelStart)
			r.Get("/challenges", h.apiChallenges)
			r.Get("/challenges/{id}", h.apiChallengeGet)
			r.Post("/challenges/{id}/accept", h.apiChallengeAccept)
			r.Post("/challenges/{id}/decline", h.apiChallengeDecline)
			r.Get("/me/notifications", h.apiNotifications)
			r.Put("/me/notifications/email", h.apiNotifyEmail)
			r.Post("/me/webhooks", h.apiWebhookCreate)
			r.Patch("/me/webhooks/{id}", h.apiWebhookUpdate)
			r.Delete("/me/webhooks/{id}", h.apiWebhookDelete)
		})
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			h.apiFail(w, r, refuse(http.StatusNotFound, "There is no such API endpoint; see /api/openapi.json or docs/api.md."))
		})
	})

	// Links from e-mail: the token in them is the proof, and a mail
	// program's one-click unsubscribe posts without a form token.
	r.Group(func(r chi.Router) {
		r.Use(noStore, h.withSession)
		r.Get("/notifications/verify", h.notifyVerify)
		r.Get("/notifications/unsubscribe/{token}", h.notifyUnsubscribePage)
		r.Post("/notifications/unsubscribe/{token}", h.notifyUnsubscribe)
	})

	r.Group(func(r chi.Router) {
		r.Use(noStore, h.withSession, h.checkCSRF)
		r.Get("/", h.home)
		r.Get("/register", h.registerForm)
		r.Post("/register", h.register)
		r.Get("/login", h.loginForm)
		r.Post("/login", h.login)
		r.Post("/logout", h.logout)
		r.Get("/leaderboard", h.leaderboard)
		r.Get("/docs", h.docsIndex)
		r.Get("/docs/{name}", h.docPage)
		r.Get("/play", h.playIndex)
		r.Get("/play/{game}", h.playPage)
		r.Get("/ratings/events", h.ratingEvents)
		r.Get("/ratings/events.csv", h.ratingEventsCSV)
		r.Get("/exports/matches", h.exportMatches)
		r.Get("/exports/rating-events", h.exportRatingEvents)
		r.Get("/exports/leaderboard", h.exportLeaderboard)
		r.Get("/battles/{id}/exports/matches", h.exportBattleMatches)
		r.Get("/battles/{id}/exports/standings", h.exportBattleStandings)
		r.Get("/bots/{id}", h.botPage)
		r.Get("/bots/{id}/history", h.botHistory)
		r.With(h.tokenSession).Get("/bots/{id}/versions/{n}/events", h.buildEvents)
		r.Get("/bots/{id}/vs/{other}", h.headToHead)
		r.With(h.tokenSession).Get("/bots/{id}/versions/{n}/source.zip", h.versionSource)
		r.With(h.tokenSession).Get("/bots/{id}/versions/{n}/build.log", h.versionBuildLog)
		r.Get("/clans", h.clans)
		r.Get("/clans/{id}", h.clanPage)
		r.Get("/matches", h.matches)
		r.Get("/matches/{id}", h.matchPage)
		r.With(h.tokenSession).Get("/matches/{id}/replay.zip", h.replayDownload)
		r.Get("/matches/{id}/rounds/{round}", h.matchRound)
		r.Get("/matches/{id}/events", h.matchEvents)
		r.Get("/battles", h.battles)
		r.With(h.requireUser).Get("/battles/new", h.battleNewForm)
		r.With(h.requireUser).Get("/battles/{id}/edit", h.battleEditForm)
		r.Get("/battles/{id}", h.battlePage)
		r.Get("/duels/{id}", h.duelPage)
		r.Get("/duels/{id}/events", h.duelEvents)
		r.Group(func(r chi.Router) {
			r.Use(h.requireUser)
			r.Get("/bots/new", h.uploadForm)
			r.Post("/bots/new", h.upload)
			r.Post("/bots/{id}/challenge", h.challengeForm)
			r.Post("/bots/{id}/duel", h.duelForm)
			r.Get("/duels", h.duels)
			r.Post("/bots/{id}/pause", h.botPause)
			r.Post("/bots/{id}/resume", h.botResume)
			r.Post("/bots/{id}/ladder", h.botLadderRestart)
			r.Post("/bots/{id}/retire", h.botRetire)
			r.Post("/bots/{id}/unretire", h.botUnretire)
			r.Post("/bots/{id}/rename", h.botRename)
			r.Get("/challenges", h.challenges)
			r.Post("/challenges/auto-accept", h.challengeAutoAccept)
			r.Post("/challenges/policy", h.challengePolicy)
			r.Get("/challenges/{id}", h.challengePage)
			r.Post("/challenges/{id}/accept", h.challengeAnswer(true))
			r.Post("/challenges/{id}/decline", h.challengeAnswer(false))
			r.Post("/clans", h.clanCreate)
			r.Post("/clans/{id}/join", h.clanAction(h.clanJoin))
			r.Post("/clans/{id}/leave", h.clanAction(h.clanLeave))
			r.Post("/clans/{id}/key", h.clanAction(h.clanNewKey))
			r.Post("/clans/{id}/promote", h.clanAction(h.clanPromote))
			r.Post("/battles/new", h.battleCreate)
			r.Post("/battles/{id}/edit", h.battleEdit)
			r.Post("/battles/{id}/enter", h.battleEnter)
			r.Post("/battles/{id}/withdraw", h.battleWithdraw)
			r.Post("/battles/{id}/start", h.battleStart)
			r.Post("/battles/{id}/release", h.battleRelease)
			r.Post("/battles/{id}/cancel", h.battleCancel)
			r.Route("/admin", func(r chi.Router) {
				r.Use(h.requireOrganiser)
				r.Get("/", h.adminPage)
				r.Post("/matches", h.adminMatchForm)
				r.Post("/matches/{id}/requeue", h.adminMatchRequeue)
				r.Post("/matches/{id}/cancel", h.adminMatchCancel)
				r.Post("/matches/{id}/rerun", h.adminMatchRerun)
				r.Post("/bots", h.adminBot)
				r.Post("/ratings/recompute", h.adminRecompute)
			})
			r.Get("/account", h.account)
			r.Post("/account/tokens", h.tokenCreate)
			r.Post("/account/tokens/{id}/revoke", h.tokenRevoke)
			r.Post("/account/notifications/email", h.notifyEmailForm)
			r.Post("/account/notifications/email/events", h.notifyEmailEventsForm)
			r.Post("/account/webhooks", h.webhookCreateForm)
			r.Post("/account/webhooks/{id}", h.webhookUpdateForm)
			r.Post("/account/webhooks/{id}/delete", h.webhookDeleteForm)
		})
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			h.fail(w, r, refuse(http.StatusNotFound, "There is no page at this address."))
		})
	})
	return r
}

// compress gzips the responses that gain from it, when the client accepts
// it. Event streams (text/event-stream) are left alone, so each event is
// flushed as it is written, and so are zips and other compressed
// downloads, which would only grow. Gzip is klauspost/compress's, at the
// fastest level: the pages come from caches, and compressing them with
// the standard library's was most of what a cached page cost.
var compress = newCompressor()

func newCompressor() func(http.Handler) http.Handler {
	c := middleware.NewCompressor(1,
		"text/html", "text/css", "text/plain", "text/javascript", "application/javascript",
		"application/json", "image/svg+xml")
	c.SetEncoder("gzip", func(w io.Writer, level int) io.Writer {
		gw, err := gzip.NewWriterLevel(w, level)
		if err != nil {
			panic(err) // only for a level out of range: a programming error
		}
		return gw
	})
	return c.Handler
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request) {
	if err := h.store.Ping(r.Context()); err != nil {
		h.logger.ErrorContext(r.Context(), "health check", "err", err)
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// accessLog logs every request at debug level (LOG_LEVEL=debug), and
// server errors at warn.
func (h *Handler) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		level := slog.LevelDebug
		if ww.Status() >= 500 {
			level = slog.LevelWarn
		}
		h.logger.Log(r.Context(), level, "http request", "method", r.Method, "path", r.URL.Path,
			"status", ww.Status(), "bytes", ww.BytesWritten(), "duration", time.Since(start))
	})
}

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		next.ServeHTTP(w, r)
	})
}

// noStore keeps pages and API answers out of every cache, the browser's
// included: each page carries the visitor's form token, many show a
// logged-in user's own bots, logs, tokens or challenges, and an API answer
// depends on the token sent. A handler that knows better (a finished
// round's boards) sets its own Cache-Control over it.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func cacheFor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}
