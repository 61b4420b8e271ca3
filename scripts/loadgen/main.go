// Command loadgen measures a page under load from a few keep-alive
// connections: requests per second and latency percentiles.
//
//	go run ./scripts/loadgen -url http://127.0.0.1:8080/leaderboard -c 16 -d 20s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/leaderboard", "page to request")
	conc := flag.Int("c", 16, "concurrent connections")
	dur := flag.Duration("d", 20*time.Second, "how long to measure")
	warm := flag.Duration("warmup", 3*time.Second, "how long to run before measuring")
	flag.Parse()
	if err := run(*url, *conc, *dur, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(url string, conc int, dur, warm time.Duration) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}
	res, err := client.Get(url)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, res.Status)
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
		return fmt.Errorf("no successful requests (%d failed)", failures)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }
	fmt.Printf("url %s, %d connections, %s measured\n", url, conc, dur)
	fmt.Printf("requests %d, failed %d, %.0f req/s\n", len(lat), failures, float64(len(lat))/dur.Seconds())
	fmt.Printf("latency p50 %s, p90 %s, p99 %s, max %s\n",
		pct(0.50).Round(10*time.Microsecond), pct(0.90).Round(10*time.Microsecond),
		pct(0.99).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	return nil
}
