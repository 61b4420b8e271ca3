package board

import (
	"github.com/broadside/broadside/internal/game/brainjar"
	"github.com/broadside/broadside/internal/game/deepship"
	entelectrules "github.com/broadside/broadside/internal/game/entelect"
	"github.com/broadside/broadside/internal/game/hitandsunk"
)

// viewer is what the board knows of one rule set: how to decode its
// replay.json and what its boards draw.
type viewer struct {
	// open decodes a replay.json; nil for a rule set whose replays are
	// round folders instead (Entelect, see Open).
	open func(data []byte) (rules, error)
	// legend lists everything the rule set's boards draw, so that a
	// legend explains every mark and never one the game does not have.
	legend []legendItem
}

// viewers are the boards of the rule sets, by rule-set name. A rule set
// with a board adds its line here.
func viewers() map[string]viewer {
	return map[string]viewer{
		brainjar.Name:      {open: openBrainjar, legend: shotLegend()},
		deepship.Name:      {open: openDeepship, legend: shotLegend()},
		entelectrules.Name: {legend: entelectLegend()},
		hitandsunk.Name:    {open: openHitandsunk, legend: hitandsunkLegend()},
	}
}

// legendFor lists everything a rule set's boards draw; a game without a
// board gets the marks every board has.
func legendFor(game string) []legendItem {
	if v, ok := viewers()[game]; ok {
		return v.legend
	}
	return shotLegend()
}

// shotLegend is the legend of boards of ships and shots only (BrainJar,
// In Deep Ship).
func shotLegend() []legendItem {
	return append(fleetLegend(), legendItem{mark: MarkShot, label: "this step's shot"})
}

// fleetLegend is what every two-player board draws.
func fleetLegend() []legendItem {
	return []legendItem{
		{ship: "ship", label: "ship (its letter or size on it)"}, {ship: "ship sunk", label: "sunk ship"},
		{mark: MarkHit, label: "hit"}, {mark: MarkMiss, label: "miss"},
	}
}

func entelectLegend() []legendItem {
	return append(fleetLegend(), legendItem{mark: MarkAbsorbed, label: "absorbed by a shield"},
		legendItem{area: AreaShield, label: "shield"}, legendItem{area: AreaWeapon, label: "the opponent's weapon's cells"})
}

func hitandsunkLegend() []legendItem {
	return []legendItem{{ship: "ship p1", label: "ship in its player's colour (arrow: its bow; number: its id)"},
		{ship: "ship faded p1", label: "underwater"}, {ship: "ship sunk", label: "sunk ship"},
		{mark: MarkHit, label: "hit hull"}, {mark: MarkWreck, label: "wreck"}, {mark: MarkShot, label: "this round's shot"},
		{mark: MarkMine, label: "mine"}, {area: AreaWeapon, label: "moved this round"}, {area: AreaScan, label: "scanned this round"}}
}
