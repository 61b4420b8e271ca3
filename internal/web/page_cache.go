package web

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/broadside/broadside/internal/store"
)

// The public lists below are read by every visitor alike and are as good
// a second or two old as the leaderboard: they share its cache and its
// interval (Config.LeaderboardTTL), so a burst of readers costs one query
// per list per interval. A bot's page and its history are cached so for
// every visitor but the bot's owner, who acts on them and reads the
// database every time (bot.go, history.go).

// cached returns the value under key from c, fetching it when it is
// missing or older than the cache's interval.
func cached[T any](ctx context.Context, c *leaderboardCache, key string, fetch func(context.Context) (T, error)) (T, error) {
	v, err := c.load(ctx, key, func(ctx context.Context) (any, error) { return fetch(ctx) })
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}

// matchRows lists matches as store.MatchRows does, from the cache when
// fresh. The rows are shared between requests: callers must not change
// them.
func (h *Handler) matchRows(ctx context.Context, p store.MatchListParams) ([]store.MatchRow, error) {
	ranked := ""
	if p.Ranked != nil {
		ranked = strconv.FormatBool(*p.Ranked)
	}
	key := fmt.Sprintf("matches/%d/%s/%d/%s/%s/%s/%s/%t/%d/%d/%d/%d", p.BotID, p.Game, p.OwnerID, p.Outcome, p.Kind,
		ranked, p.Since.Format(time.RFC3339Nano), p.WithHidden, p.Limit, p.Offset, p.Before, p.After)
	return cached(ctx, h.board, key, func(ctx context.Context) ([]store.MatchRow, error) {
		return h.store.MatchRows(ctx, p)
	})
}

// headToHeadData is what the head-to-head page reads about two bots.
type headToHeadData struct {
	a, b    *store.BotDetail
	sum     *store.HeadToHead
	matches []store.MatchRow
}

// headToHeadData reads two bots and the matches they played each other, from
// the cache when fresh.
func (h *Handler) headToHeadData(ctx context.Context, aID, bID int64, withHidden bool) (headToHeadData, error) {
	key := fmt.Sprintf("vs/%d/%d/%t", aID, bID, withHidden)
	return cached(ctx, h.board, key, func(ctx context.Context) (headToHeadData, error) {
		var d headToHeadData
		var err error
		if d.a, err = h.store.BotDetailGet(ctx, aID); err != nil {
			return d, err
		}
		if d.b, err = h.store.BotDetailGet(ctx, bID); err != nil {
			return d, err
		}
		d.sum, d.matches, err = h.store.HeadToHeadGet(ctx, aID, bID, headToHeadMatches, withHidden)
		return d, err
	})
}
