package rating

import "testing"

// paperScale is Weng–Lin on the paper's own scale (μ 25, σ 25/3, β σ/2)
// with no added dynamics, the setting of the published examples below.
var paperScale = WengLinParams{Beta: 25.0 / 6, Kappa: 0.0001}

func paperRating(mu, sigma float64) Rating { return Rating{Rating: mu, Deviation: sigma} }

// TestWengLinPublishedExamples checks the Plackett–Luce update against the
// examples published with OpenSkill, the reference implementation of the
// Weng–Lin paper (openskill.js: its README and its Plackett–Luce tests),
// to 1e-12.
func TestWengLinPublishedExamples(t *testing.T) {
	def := paperRating(25, 25.0/3)
	tests := []struct {
		name   string
		before []Rating
		ranks  []int
		want   [][2]float64 // μ, σ
	}{
		{"2p FFA", []Rating{def, def}, []int{1, 2}, [][2]float64{
			{27.63523138347365, 8.065506316323548},
			{22.36476861652635, 8.065506316323548},
		}},
		{"3p FFA", []Rating{def, def, def}, []int{1, 2, 3}, [][2]float64{
			{27.868876552746237, 8.204837030780652},
			{25.717219138186557, 8.057829747583874},
			{21.413904309067206, 8.057829747583874},
		}},
		{"4p FFA", []Rating{def, def, def, def}, []int{1, 2, 3, 4}, [][2]float64{
			{27.795084971874736, 8.263160757613477},
			{26.552824984374855, 8.179213704945203},
			{24.68943500312503, 8.083731307186588},
			{20.96265504062538, 8.083731307186588},
		}},
		{"5p FFA", []Rating{def, def, def, def, def}, []int{1, 2, 3, 4, 5}, [][2]float64{
			{27.666666666666668, 8.290556877154474},
			{26.833333333333332, 8.240145629781066},
			{25.72222222222222, 8.179996679645559},
			{24.055555555555557, 8.111796013701358},
			{20.72222222222222, 8.111796013701358},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			players := make([]Player, len(tc.before))
			for i := range players {
				players[i] = Player{Before: tc.before[i], Rank: tc.ranks[i]}
			}
			got, err := paperScale.WengLinMatch(players)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tc.want {
				if !near(got[i].Rating, w[0], 1e-12) || !near(got[i].Deviation, w[1], 1e-12) {
					t.Errorf("player %d: got μ %.15f σ %.15f, want %.15f %.15f", i, got[i].Rating, got[i].Deviation, w[0], w[1])
				}
			}
		})
	}
}

// TestWengLinProperties checks what the paper's update must do in any
// game: an upset moves the favourite more than an expected result, every
// σ shrinks, and tied players move alike.
func TestWengLinProperties(t *testing.T) {
	def := paperRating(25, 25.0/3)
	strong := paperRating(30, 2)
	t.Run("tie of equals leaves μ", func(t *testing.T) {
		got, err := paperScale.WengLinMatch([]Player{{def, 1}, {def, 1}})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range got {
			if !near(r.Rating, 25, 1e-12) || r.Deviation >= def.Deviation {
				t.Errorf("player %d: %+v", i, r)
			}
		}
	})
	t.Run("upset moves the favourite more than an expected result", func(t *testing.T) {
		upset, _ := paperScale.WengLinMatch([]Player{{strong, 2}, {def, 1}})
		expected, _ := paperScale.WengLinMatch([]Player{{strong, 1}, {def, 2}})
		if upset[0].Rating >= strong.Rating || expected[0].Rating <= strong.Rating {
			t.Fatalf("upset %+v expected %+v", upset[0], expected[0])
		}
		if strong.Rating-upset[0].Rating <= expected[0].Rating-strong.Rating {
			t.Fatalf("an upset should cost more than a win gains: %v vs %v",
				strong.Rating-upset[0].Rating, expected[0].Rating-strong.Rating)
		}
	})
	t.Run("shared middle place", func(t *testing.T) {
		got, _ := paperScale.WengLinMatch([]Player{{def, 1}, {def, 2}, {def, 2}, {def, 4}})
		if got[1] != got[2] || !(got[0].Rating > got[1].Rating && got[1].Rating > got[3].Rating) {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("bad rank", func(t *testing.T) {
		if _, err := paperScale.WengLinMatch([]Player{{def, 1}, {def, 0}}); err == nil {
			t.Fatal("rank 0 accepted")
		}
		if _, err := paperScale.WengLinMatch([]Player{{def, 1}}); err == nil {
			t.Fatal("one player accepted")
		}
	})
}

// TestWengLinScale checks that the platform's Glicko-scale parameters give
// the paper's numbers scaled by 42: the same model, read as 1500 ± 350.
func TestWengLinScale(t *testing.T) {
	const k = DefaultDeviation / (25.0 / 3)
	scaled := WengLinParams{Beta: DefaultWengLin().Beta, Kappa: DefaultWengLin().Kappa}
	def := Default()
	got, err := scaled.WengLinMatch([]Player{{def, 1}, {def, 2}, {def, 3}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{27.868876552746237, 8.204837030780652}, {25.717219138186557, 8.057829747583874}, {21.413904309067206, 8.057829747583874}}
	for i, w := range want {
		if !near(got[i].Rating, DefaultRating+k*(w[0]-25), 1e-9) || !near(got[i].Deviation, k*w[1], 1e-9) {
			t.Errorf("player %d: got %+v, want %v ± %v", i, got[i], DefaultRating+k*(w[0]-25), k*w[1])
		}
	}
	if got[0].Volatility != def.Volatility {
		t.Errorf("volatility changed: %v", got[0].Volatility)
	}
}

func TestPeriod(t *testing.T) {
	def := Default()
	t.Run("a pair split one each changes no rating of equals", func(t *testing.T) {
		got, err := Period(Glicko2, []Rating{def, def}, [][]int{{1, 2}, {2, 1}})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != got[1] || !near(got[0].Rating, def.Rating, 1e-9) || got[0].Deviation >= def.Deviation {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("a pair won twice moves more than one win", func(t *testing.T) {
		two, _ := Period(Glicko2, []Rating{def, def}, [][]int{{1, 2}, {1, 2}})
		one, _ := Period(Glicko2, []Rating{def, def}, [][]int{{1, 2}})
		if two[0].Rating <= one[0].Rating {
			t.Fatalf("two wins %v, one win %v", two[0].Rating, one[0].Rating)
		}
	})
	t.Run("a one-game Glicko period is Match", func(t *testing.T) {
		a, _ := Period(Glicko2, []Rating{def, {1700, 80, 0.06}}, [][]int{{2, 1}})
		b, _ := Match([]Player{{def, 2}, {Rating{1700, 80, 0.06}, 1}})
		if a[0] != b[0] || a[1] != b[1] {
			t.Fatalf("%+v vs %+v", a, b)
		}
	})
	t.Run("Weng–Lin free-for-all", func(t *testing.T) {
		got, err := Period(WengLin, []Rating{def, def, def}, [][]int{{3, 1, 2}})
		if err != nil {
			t.Fatal(err)
		}
		if !(got[1].Rating > got[2].Rating && got[2].Rating > got[0].Rating) {
			t.Fatalf("got %+v", got)
		}
	})
	for name, games := range map[string][][]int{
		"no games":      nil,
		"short ranks":   {{1}},
		"rank zero":     {{1, 0}},
		"unknown":       {{1, 2}},
		"one player":    {{1}},
		"second game 0": {{1, 2}, {0, 1}},
	} {
		t.Run("refuses "+name, func(t *testing.T) {
			m, before := Glicko2, []Rating{def, def}
			switch name {
			case "unknown":
				m = "elo"
			case "one player":
				before = before[:1]
			}
			if _, err := Period(m, before, games); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
