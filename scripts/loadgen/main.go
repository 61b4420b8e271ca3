// Command loadgen measures pages under load from a few keep-alive
// connections, one page after the other: requests per second and latency
// percentiles, as one Markdown table. Like a browser, it asks for gzip.
//
//	go run ./scripts/loadgen -c 16 -d 20s http://127.0.0.1:8080/leaderboard http://127.0.0.1:8080/matches
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	single := flag.String("url", "", "page to request (or give pages as arguments)")
	conc := flag.Int("c", 16, "concurrent connections")
	dur := flag.Duration("d", 20*time.Second, "how long to measure each page")
	warm := flag.Duration("warmup", 3*time.Second, "how long to run before measuring each page")
	flag.Parse()
	pages := flag.Args()
	if *single != "" {
		pages = append([]string{*single}, pages...)
	}
	if len(pages) == 0 {
		fmt.Fprintln(os.Stderr, "loadgen: no page given")
		os.Exit(2)
	}
	fmt.Printf("%d connections, %s measured per page after %s of warm-up\n\n", *conc, *dur, *warm)
	fmt.Println("| page | req/s | p50 | p90 | p99 | max | failed |")
	fmt.Println("|---|---|---|---|---|---|---|")
	failed := false
	for _, p := range pages {
		r, err := measure(p, *conc, *dur, *warm)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			failed = true
			continue
		}
		fmt.Printf("| %s | %.0f | %s | %s | %s | %s | %d |\n", pathOf(p), r.rate, ms(r.p50), ms(r.p90), ms(r.p99), ms(r.max), r.failed)
	}
	if failed {
		os.Exit(1)
	}
}

// pathOf is the page's path and query, for the table.
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.RequestURI()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

type result struct {
	rate               float64
	p50, p90, p99, max time.Duration
	failed             int
}

func measure(url string, conc int, dur, warm time.Duration) (result, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}
	defer client.CloseIdleConnections()
	res, err := client.Get(url)
	if err != nil {
		return result{}, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return result{}, fmt.Errorf("GET %s: %s", url, res.Status)
	}

	ctx, cancel := context.WithTimeout(context.Background(), warm+dur)
	defer cancel()
	measureFrom := time.Now().Add(warm)
	var mu sync.Mutex
	var lat []time.Duration
	var failures int
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			var mine []time.Duration
			bad := 0
			for ctx.Err() == nil {
				start := time.Now()
				res, err := client.Get(url)
				if err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s", res.Status)
					}
				}
				if start.Before(measureFrom) || ctx.Err() != nil {
					continue
				}
				if err != nil {
					bad++
					continue
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			failures += bad
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(lat) == 0 {
		return result{}, fmt.Errorf("%s: no successful requests (%d failed)", url, failures)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }
	return result{
		rate: float64(len(lat)) / dur.Seconds(),
		p50:  pct(0.50), p90: pct(0.90), p99: pct(0.99), max: lat[len(lat)-1],
		failed: failures,
	}, nil
}
