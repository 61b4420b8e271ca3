package build

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/broadside/broadside/internal/botmeta"
)

// centralURL is Maven Central, the repository Maven downloads from unless
// the operator names a mirror.
const centralURL = "https://repo.maven.apache.org/maven2"

// goOffline is the download goal, at a fixed version: a plugin resolved by
// prefix would be whatever the repository's metadata says is the latest.
const goOffline = "org.apache.maven.plugins:maven-dependency-plugin:3.5.0:go-offline"

// mavenRepo is the folder, relative to the project, of the Maven settings
// the platform writes and of the local repository the download fills.
const mavenRepo = ".m2"

// mavenMirror is the one repository Maven may download from: MAVEN_MIRROR
// among the operator's download settings (BUILD_ENV), else Maven Central.
func mavenMirror(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "MAVEN_MIRROR="); ok && v != "" {
			return strings.TrimSuffix(v, "/")
		}
	}
	return centralURL
}

// mavenSteps builds a Maven project: plugins and dependencies are
// downloaded with the network in a folder holding the project's pom.xml
// files and the platform's settings alone (no .mvn folder: its
// extensions.xml, maven.config and jvm.config would run or configure code
// of the bot there), after the poms were checked for what would run during
// the download. The build itself (which may run the bot's code: plugins,
// tests, annotation processors) runs offline.
func (b *Builder) mavenSteps(work string, m botmeta.Manifest) ([]step, error) {
	mvn, err := b.find(m, "mvn")
	if err != nil {
		return nil, err
	}
	mirror := mavenMirror(b.Env)
	if err := checkPoms(work, mirror); err != nil {
		return nil, err
	}
	flags := func(root string) []string {
		settings := filepath.Join(root, mavenRepo, "settings.xml")
		return []string{"-B", "-q", "-Dstyle.color=never", "-s", settings, "-gs", settings,
			"-Dmaven.repo.local=" + filepath.Join(root, mavenRepo, "repository")}
	}
	return []step{
		{fetch: &fetch{tool: "Maven", manifests: []string{"pom.xml"}, results: []string{mavenRepo},
			prepare: func(root string) error {
				if err := os.MkdirAll(filepath.Join(root, mavenRepo), 0o755); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(root, mavenRepo, "settings.xml"), mavenSettings(mirror), 0o644)
			},
			command: func(root string) ([]string, []string) {
				return append(append([]string{mvn}, flags(root)...), goOffline), nil
			}}},
		// The same settings: Maven takes an artifact for one of the
		// repository it was downloaded from.
		{args: append(append([]string{mvn}, flags(work)...), "-o", "-DskipTests", "package")},
		// Plugins and dependencies are not part of the built bot: its jar
		// holds or names what it needs (see docs/starter-bots.md).
		{args: []string{"/bin/rm", "-rf", mavenRepo}},
	}, nil
}

// mavenSettings sends every repository Maven would use, the bot's own
// included, to mirror.
func mavenSettings(mirror string) []byte {
	var url bytes.Buffer
	_ = xml.EscapeText(&url, []byte(mirror))
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by the platform for the dependency download of this build. -->
<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0">
  <interactiveMode>false</interactiveMode>
  <mirrors>
    <mirror>
      <id>platform</id>
      <mirrorOf>*</mirrorOf>
      <url>` + url.String() + `</url>
    </mirror>
  </mirrors>
</settings>
`)
}

// xmlNode is an element of a pom: its local name, text and children.
type xmlNode struct {
	name     string
	text     string
	children []*xmlNode
}

func (n *xmlNode) child(name string) *xmlNode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (n *xmlNode) childText(name string) string {
	if c := n.child(name); c != nil {
		return strings.TrimSpace(c.text)
	}
	return ""
}

// parseXML reads a document into a tree. A DOCTYPE is refused: entities
// could hide elements from this reading that Maven's would see.
func parseXML(data []byte) (*xmlNode, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, errors.New("a DOCTYPE is not accepted")
		case xml.StartElement:
			n := &xmlNode{name: t.Name.Local}
			if len(stack) == 0 {
				if root != nil {
					return nil, errors.New("more than one root element")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// pom is one pom.xml of the project, read.
type pom struct {
	rel  string // slash path relative to the project
	root *xmlNode
}

// coordinates are a pom's groupId, artifactId and version, the first and
// last inherited from its parent when it does not set them.
func (p pom) coordinates() string {
	group, version := p.root.childText("groupId"), p.root.childText("version")
	if parent := p.root.child("parent"); parent != nil {
		if group == "" {
			group = parent.childText("groupId")
		}
		if version == "" {
			version = parent.childText("version")
		}
	}
	return group + ":" + p.root.childText("artifactId") + ":" + version
}

// checkPoms reads every pom.xml of the project (those the download sees)
// and refuses what would run code of the bot's choosing while the
// dependencies download with the network, or fetch from elsewhere than
// the mirror: build extensions, plugins loaded as extensions, parents
// from a repository (they may declare either), and repositories other
// than the mirror (the platform's settings would send them to the mirror,
// where the bot's artifacts are not).
func checkPoms(work, mirror string) error {
	poms := map[string]pom{}
	err := walkManifests(work, []string{"pom.xml"}, func(p, rel string) error {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		root, err := parseXML(data)
		if err != nil {
			return fmt.Errorf("%s is not a pom Maven can read here: %v", filepath.ToSlash(rel), err)
		}
		poms[filepath.ToSlash(rel)] = pom{rel: filepath.ToSlash(rel), root: root}
		return nil
	})
	if err != nil {
		return err
	}
	rels := slices.Sorted(maps.Keys(poms))
	var problems []error
	for _, rel := range rels {
		problems = append(problems, checkPom(poms[rel], poms, mirror))
	}
	return errors.Join(problems...)
}

// checkPom checks one pom; poms are the project's, by relative path. Its
// error names every problem found.
func checkPom(p pom, poms map[string]pom, mirror string) error {
	var problems []error
	var walk func(n *xmlNode, parents []string)
	walk = func(n *xmlNode, parents []string) {
		parent := ""
		if len(parents) > 0 {
			parent = parents[len(parents)-1]
		}
		switch {
		case n.name == "extensions" && parent == "plugin":
			if strings.TrimSpace(n.text) != "false" || len(n.children) > 0 {
				problems = append(problems, fmt.Errorf("%s: a plugin with <extensions>true</extensions> is loaded as a build "+
					"extension, which runs while the dependencies download with the network; this platform does not build "+
					"such projects (build the jar yourself and upload it, with RunFile naming it)", p.rel))
			}
		case n.name == "extensions" && parent == "build":
			problems = append(problems, fmt.Errorf("%s: <build><extensions> are not supported: a build extension runs while "+
				"the dependencies download with the network. Remove it, or build the jar yourself and upload it, with "+
				"RunFile naming it", p.rel))
		case (n.name == "repository" && parent == "repositories") || (n.name == "pluginRepository" && parent == "pluginRepositories"):
			if url := strings.TrimSuffix(n.childText("url"), "/"); !allowedRepository(url, mirror) {
				problems = append(problems, fmt.Errorf("%s: repository %q (%s) is not used here: plugins and dependencies "+
					"come from %s only. Remove the repository, or ship the jars it provides inside the bot's jar",
					p.rel, n.childText("id"), url, mirror))
			}
		}
		for _, c := range n.children {
			walk(c, append(parents, n.name))
		}
	}
	walk(p.root, nil)
	if err := checkParent(p, poms); err != nil {
		problems = append(problems, err)
	}
	return errors.Join(problems...)
}

// allowedRepository: the mirror, and Maven Central, which the settings
// send to the mirror anyway.
func allowedRepository(url, mirror string) bool {
	for _, ok := range []string{mirror, centralURL, "http://repo.maven.apache.org/maven2", "https://repo1.maven.org/maven2",
		"http://repo1.maven.org/maven2"} {
		if url == ok {
			return true
		}
	}
	return false
}

// checkParent accepts a pom without a parent, or whose parent is another
// pom of the project: the one Maven reads from relativePath (default
// ../pom.xml) when its coordinates match. Any other parent comes from a
// repository and could declare build extensions of its own.
func checkParent(p pom, poms map[string]pom) error {
	parent := p.root.child("parent")
	if parent == nil {
		return nil
	}
	want := parent.childText("groupId") + ":" + parent.childText("artifactId") + ":" + parent.childText("version")
	refuse := fmt.Errorf("%s: parent %s is not a pom.xml of the bot; a parent from a repository is not supported "+
		"(it could declare build extensions, which run while the dependencies download with the network). "+
		"Put the parent's pom.xml in the bot folder where <relativePath> finds it, or drop the parent", p.rel, want)
	relPath := "../pom.xml"
	if rp := parent.child("relativePath"); rp != nil {
		relPath = strings.TrimSpace(rp.text)
	}
	if relPath == "" {
		return refuse
	}
	target := path.Join(path.Dir(p.rel), filepath.ToSlash(relPath))
	if !strings.HasSuffix(target, ".xml") {
		target = path.Join(target, "pom.xml")
	}
	local, ok := poms[target]
	if !ok || local.coordinates() != want {
		return refuse
	}
	return nil
}
