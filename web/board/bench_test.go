package board

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// bigEntelect is a 200-round 14×14 Entelect replay: both fleets placed,
// the shots of each round landing on the maps, a shield up now and then,
// and the text maps of the original's size.
func bigEntelect(tb testing.TB, rounds int) fstest.MapFS {
	tb.Helper()
	const size = 14
	rng := rand.New(rand.NewPCG(1, 2))
	var maps [2]eMap
	for p := range maps {
		m := &maps[p]
		m.Owner = eOwner{Name: fmt.Sprintf("Player %c", 'A'+p), Key: string(rune('A' + p))}
		for x := range size {
			for y := range size {
				m.Cells = append(m.Cells, eCell{X: x, Y: y})
			}
		}
		for k, t := range []string{"Battleship", "Carrier", "Cruiser", "Destroyer", "Submarine"} {
			s := eShip{ShipType: t, Placed: true}
			for i := range 2 + k%3 {
				c := &m.Cells[(2*k+1)*size+i+3]
				c.Occupied = true
				s.Cells = append(s.Cells, c)
			}
			m.Owner.Ships = append(m.Owner.Ships, s)
		}
	}
	mapText := strings.Repeat(strings.Repeat("~", size)+"\n", 2*size) + strings.Repeat("Points: 100\nEnergy: 40\n", 6)
	fsys := fstest.MapFS{}
	for r := range rounds {
		for p := range maps {
			c := &maps[p].Cells[rng.IntN(size*size)]
			c.Hit = true
			maps[p].Owner.Points += 10
			c.Shielded = r%20 < 3
		}
		data, err := json.Marshal(eState{Round: r, Phase: 2, MapDimension: size, Player1Map: &maps[0], Player2Map: &maps[1]})
		if err != nil {
			tb.Fatal(err)
		}
		dir := fmt.Sprintf("Phase 2 - Round %d/", r)
		fsys[dir+"state.json"] = &fstest.MapFile{Data: data}
		fsys[dir+"roundCommand.json"] = &fstest.MapFile{Data: []byte(`{"Player1Move":{"SuccessfulMove":true,"CommandIssued":"FireCrossShotNormal","CenterPoint":"5, 6"},"Player2Move":{"SuccessfulMove":false,"CommandIssued":"FireCornerShot","CenterPoint":"3, 3"}}`)}
		fsys[dir+"A - map.txt"] = &fstest.MapFile{Data: []byte(mapText)}
		fsys[dir+"B - map.txt"] = &fstest.MapFile{Data: []byte(mapText)}
		fsys[dir+"engine.log"] = &fstest.MapFile{Data: []byte("Command FireCornerShot of player Player B failed: not enough energy\n")}
	}
	return fsys
}

// BenchmarkEntelectRound14 draws one round of a 200-round 14×14 match as
// the viewer's fragment: the server's work per round a player fetches. It
// reports the fragment's size, raw and gzipped.
func BenchmarkEntelectRound14(b *testing.B) {
	const rounds = 200
	r, err := Open(bigEntelect(b, rounds))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	i := 0
	cpu := cpuTime()
	for b.Loop() {
		buf.Reset()
		f, err := r.Frame(i%rounds, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := Body(f).Render(context.Background(), &buf); err != nil {
			b.Fatal(err)
		}
		i++
	}
	// The machine may be shared: CPU time says what a round costs when
	// wall time includes waiting for a core.
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(buf.Bytes())
	zw.Close()
	b.ReportMetric(float64(buf.Len()), "fragment-bytes")
	b.ReportMetric(float64(z.Len()), "gzip-bytes")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEntelectPage14 draws the whole viewer of that match at a round,
// with its score chart, as a page load does.
func BenchmarkEntelectPage14(b *testing.B) {
	const rounds = 200
	r, err := Open(bigEntelect(b, rounds))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		f, err := r.Frame(100, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := Viewer(f, ChartOf(r.Scores(Options{})), Nav{Page: "/m", Fragments: "/m/rounds/"}).Render(context.Background(), &buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "viewer-bytes")
}
