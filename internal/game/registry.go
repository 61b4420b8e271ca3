package game

import (
	"fmt"
	"sort"
)

// Registry maps rule-set names to rule sets.
type Registry struct {
	sets map[string]RuleSet
}

// NewRegistry returns a registry holding the given rule sets.
func NewRegistry(sets ...RuleSet) *Registry {
	r := &Registry{sets: make(map[string]RuleSet, len(sets))}
	for _, s := range sets {
		r.sets[s.Name()] = s
	}
	return r
}

// Get returns the named rule set.
func (r *Registry) Get(name string) (RuleSet, error) {
	s, ok := r.sets[name]
	if !ok {
		return nil, fmt.Errorf("unknown game %q (known: %v)", name, r.Names())
	}
	return s, nil
}

// Names lists the registered rule sets in alphabetical order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.sets))
	for n := range r.sets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
