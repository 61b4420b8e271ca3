package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/broadside/broadside/internal/botmeta"
	"github.com/broadside/broadside/internal/game/rulesets"
	"github.com/broadside/broadside/internal/testenv"
)

func TestCheckPoms(t *testing.T) {
	const mirror = "https://maven.example.org/releases"
	project := func(inner string) string {
		return `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>` +
			`<groupId>bot</groupId><artifactId>bot</artifactId><version>1.0</version>` + inner + `</project>`
	}
	cases := []struct {
		name  string
		files map[string]string
		// want is in the error; empty: the poms are accepted.
		want string
	}{
		{"plain", map[string]string{"pom.xml": project(`<dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId>` +
			`<version>1</version></dependency></dependencies>`)}, ""},
		{"build extension", map[string]string{"pom.xml": project(`<build><extensions><extension><groupId>x</groupId>` +
			`<artifactId>y</artifactId><version>1</version></extension></extensions></build>`)}, "<build><extensions> are not supported"},
		{"plugin loaded as an extension", map[string]string{"pom.xml": project(`<build><plugins><plugin><artifactId>p</artifactId>` +
			`<extensions>true</extensions></plugin></plugins></build>`)}, "<extensions>true</extensions>"},
		{"plugin extension from a property", map[string]string{"pom.xml": project(`<build><plugins><plugin><artifactId>p</artifactId>` +
			`<extensions>${ext}</extensions></plugin></plugins></build>`)}, "<extensions>true</extensions>"},
		{"plugin in a profile loaded as an extension", map[string]string{"pom.xml": project(`<profiles><profile><build><plugins>` +
			`<plugin><artifactId>p</artifactId><extensions>true</extensions></plugin></plugins></build></profile></profiles>`)},
			"<extensions>true</extensions>"},
		{"plugin not an extension", map[string]string{"pom.xml": project(`<build><plugins><plugin><artifactId>p</artifactId>` +
			`<extensions>false</extensions><configuration><extensions>anything</extensions></configuration></plugin></plugins></build>`)}, ""},
		{"repository elsewhere", map[string]string{"pom.xml": project(`<repositories><repository><id>mine</id>` +
			`<url>https://maven.evil.example/repo</url></repository></repositories>`)}, `repository "mine" (https://maven.evil.example/repo)`},
		{"plugin repository elsewhere", map[string]string{"pom.xml": project(`<pluginRepositories><pluginRepository><id>p</id>` +
			`<url>file:///tmp/x</url></pluginRepository></pluginRepositories>`)}, `repository "p"`},
		{"repository in a profile", map[string]string{"pom.xml": project(`<profiles><profile><repositories><repository>` +
			`<id>q</id><url>http://x.example</url></repository></repositories></profile></profiles>`)}, `repository "q"`},
		{"central and the mirror are accepted", map[string]string{"pom.xml": project(`<repositories>` +
			`<repository><id>c</id><url>https://repo1.maven.org/maven2/</url></repository>` +
			`<repository><id>m</id><url>` + mirror + `</url></repository></repositories>` +
			`<distributionManagement><repository><id>d</id><url>https://deploy.example</url></repository></distributionManagement>`)}, ""},
		{"parent from a repository", map[string]string{"pom.xml": project(`<parent><groupId>org.springframework.boot</groupId>` +
			`<artifactId>spring-boot-starter-parent</artifactId><version>3.3.0</version></parent>`)}, "parent org.springframework.boot:spring-boot-starter-parent:3.3.0 is not a pom.xml of the bot"},
		{"parent with an empty relativePath", map[string]string{
			"pom.xml":     project(`<modules><module>bot</module></modules>`),
			"bot/pom.xml": `<project><parent><groupId>bot</groupId><artifactId>bot</artifactId><version>1.0</version><relativePath/></parent><artifactId>b</artifactId></project>`,
		}, "is not a pom.xml of the bot"},
		{"parent in the project", map[string]string{
			"pom.xml":     project(`<packaging>pom</packaging><modules><module>bot</module></modules>`),
			"bot/pom.xml": `<project><parent><groupId>bot</groupId><artifactId>bot</artifactId><version>1.0</version></parent><artifactId>b</artifactId></project>`,
		}, ""},
		{"parent in the project by relativePath", map[string]string{
			"parent/pom.xml": project(`<packaging>pom</packaging>`),
			"pom.xml":        `<project><parent><groupId>bot</groupId><artifactId>bot</artifactId><version>1.0</version><relativePath>parent</relativePath></parent><artifactId>b</artifactId></project>`,
		}, ""},
		{"parent path matching other coordinates", map[string]string{
			"pom.xml":     project(``),
			"bot/pom.xml": `<project><parent><groupId>bot</groupId><artifactId>bot</artifactId><version>2.0</version></parent><artifactId>b</artifactId></project>`,
		}, "parent bot:bot:2.0"},
		{"parent outside the bot", map[string]string{"pom.xml": `<project><parent><groupId>g</groupId><artifactId>a</artifactId>` +
			`<version>1</version><relativePath>../../pom.xml</relativePath></parent><artifactId>b</artifactId></project>`}, "parent g:a:1"},
		{"module pom with an extension", map[string]string{
			"pom.xml":     project(`<packaging>pom</packaging><modules><module>m</module></modules>`),
			"m/pom.xml":   `<project><groupId>g</groupId><artifactId>m</artifactId><version>1</version><build><extensions/></build></project>`,
			"target/x.md": "",
		}, "m/pom.xml: <build><extensions>"},
		{"doctype", map[string]string{"pom.xml": `<?xml version="1.0"?><!DOCTYPE project [<!ENTITY e "x">]>` + project(``)}, "DOCTYPE"},
		{"not xml", map[string]string{"pom.xml": `<project>`}, "is not a pom Maven can read here"},
		{"hidden folders are not the project's", map[string]string{"pom.xml": project(``),
			".m2/repository/x/pom.xml": project(`<build><extensions/></build>`)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkPoms(writeBot(t, c.files), mirror)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
		})
	}
}

func TestMavenMirror(t *testing.T) {
	if got := mavenMirror(nil); got != centralURL {
		t.Errorf("no setting: %q", got)
	}
	if got := mavenMirror([]string{"GOPROXY=x", "MAVEN_MIRROR=https://m.example/maven2/"}); got != "https://m.example/maven2" {
		t.Errorf("MAVEN_MIRROR: %q", got)
	}
	settings := string(mavenSettings("https://m.example/a?b=1&c=2"))
	if !strings.Contains(settings, "<mirrorOf>*</mirrorOf>") || !strings.Contains(settings, "<url>https://m.example/a?b=1&amp;c=2</url>") {
		t.Errorf("settings:\n%s", settings)
	}
}

// TestBuildMaven builds the Java starter as a Maven project in the
// sandbox, from Debian's Maven repository as the mirror: the jar the
// RunFile names is built, and the downloaded repository is not kept.
func TestBuildMaven(t *testing.T) {
	t.Parallel()
	testenv.RequireProgram(t, "mvn", "javac")
	b := New(runner(t), rulesets.Registry())
	b.Env = []string{"MAVEN_MIRROR=" + debianMavenRepo}
	dir := writeBot(t, map[string]string{"bot.json": `{"BotType":"Java","RunFile":"target/bot.jar"}`})
	copyStarter(t, dir)
	if err := copyFile(filepath.Join("testdata", "maven-starter.pom.xml"), filepath.Join(dir, "pom.xml")); err != nil {
		t.Fatal(err)
	}
	m, err := botmeta.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Build(context.Background(), dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("build failed:\n%s", res.Log)
	}
	if strings.Contains(res.Log, "\x1b[") {
		t.Errorf("terminal escapes in the log:\n%q", res.Log)
	}
	if _, err := os.Stat(filepath.Join(dir, "target", "bot.jar")); err != nil {
		t.Errorf("no jar: %v\n%s", err, res.Log)
	}
	if _, err := os.Stat(filepath.Join(dir, mavenRepo)); !os.IsNotExist(err) {
		t.Errorf("%s kept in the built bot (%v)", mavenRepo, err)
	}
}
