package duel

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"testing"
)

// bySeed is a fake game whose outcome follows from its seed and seat, as a
// deterministic match's does.
func bySeed(winA, draw int64) PlayFunc {
	return func(ctx context.Context, g Game) (Outcome, error) {
		runtime.Gosched() // let games end out of order
		switch r := (g.Seed>>7 + int64(g.SeatA)) % 100; {
		case r < winA:
			return WinA, nil
		case r < winA+draw:
			return Draw, nil
		}
		return WinB, nil
	}
}

func TestRun(t *testing.T) {
	always := func(o Outcome) PlayFunc {
		return func(context.Context, Game) (Outcome, error) { return o, nil }
	}
	tests := []struct {
		name     string
		cfg      Config
		play     PlayFunc
		decision Decision
		games    int
	}{
		{"A always wins", Config{Games: 100, Jobs: 4, Seed: 1, Test: delta05}, always(WinA), ABetter, 31},
		{"B always wins", Config{Games: 100, Jobs: 4, Seed: 1, Test: delta05}, always(WinB), BBetter, 31},
		{"too few games", Config{Games: 20, Jobs: 3, Seed: 1, Test: delta05}, always(WinA), Continue, 20},
		{"paired, counted by pairs", Config{Games: 100, Paired: true, Jobs: 4, Seed: 1, Test: delta05}, always(WinA), ABetter, 32},
		{"one job", Config{Games: 100, Jobs: 1, Seed: 1, Test: delta05}, always(WinB), BBetter, 31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []int
			res, err := Run(context.Background(), tt.cfg, tt.play, func(r Result) { calls = append(calls, len(r.Played)) })
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tt.decision || res.Score.Games() != tt.games || len(res.Played) != tt.games {
				t.Fatalf("decision %v after %d games (%d listed), want %v after %d", res.Decision, res.Score.Games(), len(res.Played), tt.decision, tt.games)
			}
			for i, p := range res.Played {
				if p.Index != i {
					t.Fatalf("game %d counted in place %d", p.Index, i)
				}
			}
			step := 1
			if tt.cfg.Paired {
				step = 2
			}
			for i, n := range calls {
				if n != (i+1)*step {
					t.Fatalf("progress after %v games, want steps of %d", calls, step)
				}
			}
		})
	}
}

// TestRunReproducible: the same master seed counts the same games with the
// same outcomes, one game at a time or many at once.
func TestRunReproducible(t *testing.T) {
	for _, paired := range []bool{false, true} {
		var first Result
		for i, jobs := range []int{1, 8, 8} {
			res, err := Run(context.Background(), Config{Games: 400, Paired: paired, Jobs: jobs, Seed: 99, Test: delta05}, bySeed(60, 10), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != ABetter {
				t.Fatalf("paired %v: decision %v after %d games; want A better from a 65%% score", paired, res.Decision, len(res.Played))
			}
			if i == 0 {
				first = res
				continue
			}
			if !reflect.DeepEqual(res, first) {
				t.Errorf("paired %v, %d jobs: %+v, with 1 job %+v", paired, jobs, res.Score, first.Score)
			}
		}
	}
}

func TestSchedule(t *testing.T) {
	a := Schedule(Config{Games: 6, Seed: 5})
	if !reflect.DeepEqual(a, Schedule(Config{Games: 6, Seed: 5})) {
		t.Error("the same master seed gave two schedules")
	}
	if reflect.DeepEqual(a, Schedule(Config{Games: 6, Seed: 6})) {
		t.Error("two master seeds gave one schedule")
	}
	seen := map[int64]bool{}
	for i, g := range a {
		if g.Index != i || g.SeatA != i%2 || g.Seed < 0 || seen[g.Seed] {
			t.Errorf("game %d: %+v (seat of A alternates, seeds are fresh and not negative)", i, g)
		}
		seen[g.Seed] = true
	}
	p := Schedule(Config{Games: 6, Seed: 5, Paired: true})
	for i := 0; i < len(p); i += 2 {
		if p[i].Seed != p[i+1].Seed || p[i].SeatA != 0 || p[i+1].SeatA != 1 {
			t.Errorf("pair %d: %+v, %+v; want one seed, A in seat 0 then 1", i/2, p[i], p[i+1])
		}
		if i > 0 && p[i].Seed == p[i-2].Seed {
			t.Errorf("pairs %d and %d share seed %d", i/2-1, i/2, p[i].Seed)
		}
	}
	if p[0].Seed != a[0].Seed || p[2].Seed != a[1].Seed {
		t.Errorf("pairs take the seeds in the order single games do: %+v, %+v", p, a)
	}
}

// TestRunFailure: a game that cannot be played ends the duel with its
// error; the games still running are canceled.
func TestRunFailure(t *testing.T) {
	boom := errors.New("replay folder not writable")
	play := func(ctx context.Context, g Game) (Outcome, error) {
		if g.Index == 5 {
			return 0, boom
		}
		if g.Index > 5 {
			<-ctx.Done() // a game that runs until canceled: Run must cancel it
			return 0, ctx.Err()
		}
		return WinA, nil
	}
	res, err := Run(context.Background(), Config{Games: 50, Jobs: 3, Seed: 1, Test: delta05}, play, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want %v", err, boom)
	}
	// Games before the failure may or may not have been counted when it
	// came; none after it.
	if len(res.Played) > 5 {
		t.Errorf("%d games counted, want at most the 5 before the failure", len(res.Played))
	}
}

func TestRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	play := func(c context.Context, g Game) (Outcome, error) {
		if g.Index == 3 {
			cancel()
		}
		if g.Index >= 3 {
			<-c.Done()
			return 0, c.Err()
		}
		return Draw, nil
	}
	res, err := Run(ctx, Config{Games: 50, Jobs: 2, Seed: 1, Test: delta05}, play, nil)
	if !errors.Is(err, context.Canceled) || len(res.Played) > 3 {
		t.Errorf("err %v after %d games, want canceled after at most 3", err, len(res.Played))
	}
}

func TestRunBadConfig(t *testing.T) {
	for _, c := range []Config{{Games: 0, Jobs: 1}, {Games: 2, Jobs: 0}, {Games: 3, Jobs: 1, Paired: true}} {
		if _, err := Run(context.Background(), c, nil, nil); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
