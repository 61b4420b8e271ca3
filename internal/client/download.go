package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// ReplayFile is the name a match's replay is saved under.
func ReplayFile(matchID int64) string { return fmt.Sprintf("match-%d.zip", matchID) }

// DownloadReplay saves the replay of a match, with the token's owner's
// bot logs, as dir/match-ID.zip. It writes to a .part file and renames it
// when complete, so a file of that name is always whole: when one is
// already there, it is kept and skipped is true. It returns the bytes
// written.
func (c *Client) DownloadReplay(ctx context.Context, matchID int64, dir string) (size int64, skipped bool, err error) {
	path := filepath.Join(dir, ReplayFile(matchID))
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return st.Size(), true, nil
	}
	for try := 1; ; try++ {
		size, err = c.downloadOnce(ctx, matchID, path)
		var refusal *Error
		// The portal limits downloads at once per client: past it, wait
		// as it says and try again.
		if !errors.As(err, &refusal) || refusal.Status != http.StatusTooManyRequests || try == 5 {
			return size, false, err
		}
		wait := min(max(refusal.RetryAfter, time.Second), time.Minute)
		select {
		case <-ctx.Done():
			return 0, false, ctx.Err()
		case <-time.After(wait):
		}
	}
}

func (c *Client) downloadOnce(ctx context.Context, matchID int64, path string) (int64, error) {
	res, err := c.request(ctx, http.MethodGet, fmt.Sprintf("/matches/%d/replay.zip", matchID), nil, nil)
	if err != nil {
		return 0, fmt.Errorf("replay of match %d: %w", matchID, err)
	}
	defer res.Body.Close()
	part := path + ".part"
	f, err := os.Create(part)
	if err != nil {
		return 0, fmt.Errorf("replay of match %d: %w", matchID, err)
	}
	n, err := io.Copy(f, res.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && res.ContentLength >= 0 && n != res.ContentLength {
		err = fmt.Errorf("got %d of %d bytes", n, res.ContentLength)
	}
	if err != nil {
		// The .part stays for a look; the next run starts it again.
		return n, fmt.Errorf("replay of match %d: %w", matchID, err)
	}
	if err := os.Rename(part, path); err != nil {
		return n, fmt.Errorf("replay of match %d: %w", matchID, err)
	}
	return n, nil
}
