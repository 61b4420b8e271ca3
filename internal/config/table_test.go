package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docTable reads the first Markdown table after heading in the file at
// path: one map per row, from the header's column names (lower case) to the
// cells, and the variable the row is about (its first cell, without
// backticks).
func docTable(t *testing.T, path, heading string) (rows map[string]map[string]string, order []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	at := strings.Index(text, "\n"+heading+"\n")
	if at < 0 {
		t.Fatalf("%s has no heading %q", path, heading)
	}
	var header []string
	rows = map[string]map[string]string{}
	inTable := false
	for _, line := range strings.Split(text[at+len(heading)+2:], "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case header == nil:
			for _, c := range cells {
				header = append(header, strings.ToLower(c))
			}
		case strings.HasPrefix(cells[0], "---"):
		default:
			row := map[string]string{}
			for i, c := range cells {
				if i < len(header) {
					row[header[i]] = c
				}
			}
			name := strings.Trim(cells[0], "`")
			if _, dup := rows[name]; dup {
				t.Errorf("%s lists %s twice", path, name)
			}
			rows[name] = row
			order = append(order, name)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table under %q", path, heading)
	}
	return rows, order
}

// TestREADMEConfigurationTable: the README's table lists exactly the
// variables of Vars, each with the same default and the same commands.
func TestREADMEConfigurationTable(t *testing.T) {
	rows, order := docTable(t, "../../README.md", "## Configuration")
	var want []string
	for _, v := range Vars() {
		want = append(want, v.Name)
		row, ok := rows[v.Name]
		if !ok {
			t.Errorf("README's configuration table lacks %s (default %s, used by %s)", v.Name, v.DefaultText(), strings.Join(v.UsedBy, ", "))
			continue
		}
		if got := row["default"]; got != v.DefaultText() {
			t.Errorf("README: %s defaults to %q; the code says %q", v.Name, got, v.DefaultText())
		}
		if got, w := row["used by"], strings.Join(v.UsedBy, ", "); got != w {
			t.Errorf("README: %s is used by %q; the code says %q", v.Name, got, w)
		}
	}
	for _, name := range order {
		if !slices.Contains(want, name) {
			t.Errorf("README's configuration table lists %s, which no command reads", name)
		}
	}
}

// TestOperationsConfigurationTable: docs/operations.md's longer table of
// the worker's settings lists each of them once, with the code's default.
func TestOperationsConfigurationTable(t *testing.T) {
	rows, _ := docTable(t, "../../docs/operations.md", "## Configuration (environment)")
	worker := For(Worker)
	for _, v := range worker {
		row, ok := rows[v.Name]
		if !ok {
			t.Errorf("docs/operations.md's worker table lacks %s", v.Name)
			continue
		}
		if got := row["default"]; got != v.DefaultText() {
			t.Errorf("docs/operations.md: %s defaults to %q; the code says %q", v.Name, got, v.DefaultText())
		}
	}
	for name := range rows {
		if !slices.ContainsFunc(worker, func(v Var) bool { return v.Name == name }) {
			t.Errorf("docs/operations.md's worker table lists %s, which the worker does not read", name)
		}
	}
}

// TestVars: names are environment-variable names, declared once, each
// used by a known command, with a default, a description of one, or
// marked required.
func TestVars(t *testing.T) {
	name := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	seen := map[string]bool{}
	for _, v := range Vars() {
		if !name.MatchString(v.Name) || seen[v.Name] {
			t.Errorf("%q: bad or repeated name", v.Name)
		}
		seen[v.Name] = true
		if v.Meaning == "" || len(v.UsedBy) == 0 {
			t.Errorf("%s: no meaning or no command", v.Name)
		}
		for _, c := range v.UsedBy {
			if c != Portal && c != Worker {
				t.Errorf("%s: used by unknown command %q", v.Name, c)
			}
		}
		if v.Required == (v.Default != "" || v.DefaultNote != "") {
			t.Errorf("%s: a variable is either required or has a default", v.Name)
		}
	}
}
