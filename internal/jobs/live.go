package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/broadside/broadside/internal/game"
	"github.com/broadside/broadside/internal/store"
)

// publishTimeout bounds one round's publication: a slow database must not
// slow the match down, and a lost round only leaves the live view behind.
const publishTimeout = 5 * time.Second

// publishRounds is the Progress hook of a match: it stores each round's
// public files and announces them on match_events, so every portal can
// show the match as it is played. A failure is logged and the match goes
// on; the replay stored at the end is complete regardless.
func publishRounds(st *store.Store, matchID int64, log *slog.Logger) func(context.Context, game.RoundProgress) {
	return func(ctx context.Context, r game.RoundProgress) {
		ctx, cancel := context.WithTimeout(ctx, publishTimeout)
		defer cancel()
		err := st.MatchLiveRoundAdd(ctx, matchID, store.LiveRound{Seq: r.Seq, Name: r.Name, Files: r.Files})
		if err != nil {
			log.Warn("match: publish round", "round", r.Name, "err", err)
		}
	}
}

// publishBuildLog is the progress hook of a build: it stores each chunk of
// the log as it is written and announces it on build_events, so the bot's
// page shows the build as it runs. A failure is logged and the build goes
// on; its whole log is recorded at the end regardless.
func publishBuildLog(st *store.Store, versionID int64, log *slog.Logger) func(context.Context, string) {
	seq := 0
	return func(ctx context.Context, chunk string) {
		ctx, cancel := context.WithTimeout(ctx, publishTimeout)
		defer cancel()
		if err := st.BuildLogAppend(ctx, versionID, store.BuildLogChunk{Seq: seq, Text: chunk}); err != nil {
			log.Warn("build: publish log", "version_id", versionID, "err", err)
		}
		seq++
	}
}
