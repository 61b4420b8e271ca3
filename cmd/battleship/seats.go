package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ownFolders gives every seat a folder of its own. A bot keeps files in its
// folder between its calls in a match (Hit and Sunk's <name>.txt, an
// Entelect bot's state), so a folder named for several seats would let the
// copies read each other's files and play a different game than on the
// platform, where each seat runs from its own copy. The first seat keeps
// the folder itself; each later seat naming the same folder plays from a
// copy under tmp, with the folder's base name so the bot's name is the
// same. It returns the folders in seat order.
func ownFolders(dirs []string, tmp string, note io.Writer) ([]string, error) {
	out := make([]string, len(dirs))
	first := map[string]int{} // folder -> first seat naming it
	for i, dir := range dirs {
		out[i] = dir
		key, err := folderKey(dir)
		if err != nil {
			continue // the match reports a folder it cannot read
		}
		j, seen := first[key]
		if !seen {
			first[key] = i
			continue
		}
		dst := filepath.Join(tmp, fmt.Sprintf("seat-%d", i+1), filepath.Base(key))
		if err := os.CopyFS(dst, os.DirFS(key)); err != nil {
			return nil, fmt.Errorf("copy bot folder %s for seat %d: %w", dir, i+1, err)
		}
		fmt.Fprintf(note, "battleship: seat %d plays from a copy of %s, which seat %d also plays from, so that each keeps its own files\n", i+1, dir, j+1)
		out[i] = dst
	}
	return out, nil
}

// folderKey names a folder the same way however it is spelled: absolute,
// with links resolved.
func folderKey(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	return real, nil
}
