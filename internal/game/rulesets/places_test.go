package rulesets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, from this package's folder.
const moduleRoot = "../../.."

// ruleSetPlaces are the places a new rule set touches, each a path from
// the repository root ("%s" is the rule set's name) and what must be
// there. Nothing else may know a game by its name: everything else asks
// the registry, and the rule set answers through game.Traits.
var ruleSetPlaces = []struct {
	path, holds, why string
}{
	{"internal/game/%s/play.go", "const Name = ", "its own package: the rules, the protocol, its Traits"},
	{"internal/game/rulesets/rulesets.go", "%s.New()", "its line in the registry"},
	{"web/board/viewers.go", "%s.Name", "its board: legend and replay decoding"},
}

// TestRuleSetPlaces checks that every registered rule set is in each of
// the places a rule set touches.
func TestRuleSetPlaces(t *testing.T) {
	for _, name := range Registry().Names() {
		for _, p := range ruleSetPlaces {
			path := p.path
			if strings.Contains(path, "%s") {
				path = strings.ReplaceAll(path, "%s", name)
			}
			data, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(path)))
			if err != nil {
				t.Errorf("%s: %s (%s): %v", name, path, p.why, err)
				continue
			}
			holds := strings.ReplaceAll(p.holds, "%s", name)
			if name == "entelect" && path == "web/board/viewers.go" {
				// The board's own Entelect code is in a file of that name.
				holds = "entelectrules.Name"
			}
			if !strings.Contains(string(data), holds) {
				t.Errorf("%s: %s (%s) holds no %q", name, path, p.why, holds)
			}
		}
	}
}

// TestNoGameNameComparisons scans the module's Go sources (not tests,
// which check what one game did, nor generated files) for a comparison
// with a game's name (== "brainjar", case "entelect":) outside the rule
// sets' own packages and the registry: such a place knows a game by its
// name, which a new rule set would have to find and change.
func TestNoGameNameComparisons(t *testing.T) {
	names := map[string]bool{}
	allowed := map[string]bool{"internal/game/rulesets": true}
	for _, n := range Registry().Names() {
		names[n] = true
		allowed["internal/game/"+n] = true
	}
	var found []string
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || allowed[rel]) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module (a reference bot)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		isName := func(e ast.Expr) bool {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return false
			}
			s, err := strconv.Unquote(lit.Value)
			return err == nil && names[s]
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isName(n.X) || isName(n.Y)) {
					found = append(found, fset.Position(n.Pos()).String())
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isName(e) {
						found = append(found, fset.Position(e.Pos()).String())
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s compares with a game's name; ask the registry or the rule set's Traits instead", f)
	}
}
