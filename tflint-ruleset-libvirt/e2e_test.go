package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// These tests run the real tflint binary (TFLINT, else the path
// scripts/install-tflint.sh installs to) with this plugin built from the
// source, over testdata/* and over the configurations the repository ships.

const defaultTFLint = "/var/cache/tfplv/tflint-v0.64.0/tflint"

var (
	buildOnce sync.Once
	pluginDir string
	buildErr  error
)

// tflintWithPlugin returns the binary and a plugin folder holding this plugin.
func tflintWithPlugin(t *testing.T) (string, string) {
	t.Helper()
	bin := os.Getenv("TFLINT")
	if bin == "" {
		bin = defaultTFLint
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("tflint not found at %s (run `make tflint` or set TFLINT): %v", bin, err)
	}
	buildOnce.Do(func() {
		pluginDir, buildErr = os.MkdirTemp("", "tflint-plugins-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "tflint-ruleset-libvirt"), ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin, pluginDir
}

// finding is one issue as tflint's JSON output gives it.
type finding struct {
	Rule    string
	File    string
	Line    int
	Message string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
}

// runTFLint lints dir (recursively) with lint.tflint.hcl and returns the findings.
func runTFLint(t *testing.T, dir string) []finding {
	t.Helper()
	bin, plugins := tflintWithPlugin(t)
	config, err := filepath.Abs("lint.tflint.hcl")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--recursive", "--chdir", dir, "--config", config, "--format", "json")
	cmd.Env = append(os.Environ(), "TFLINT_PLUGIN_DIR="+plugins)
	out, err := cmd.Output()
	// Exit status 2 means issues were found; the JSON says which.
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 2) {
		t.Fatalf("tflint over %s: %v\n%s%s", dir, err, out, exitStderr(err))
	}
	var report struct {
		Issues []struct {
			Rule struct {
				Name string `json:"name"`
			} `json:"rule"`
			Message string `json:"message"`
			Range   struct {
				Filename string `json:"filename"`
				Start    struct {
					Line int `json:"line"`
				} `json:"start"`
			} `json:"range"`
		} `json:"issues"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("tflint over %s: output is not JSON: %v\n%s", dir, err, out)
	}
	for _, e := range report.Errors {
		t.Errorf("tflint over %s reported an error: %s", dir, e.Message)
	}
	var got []finding
	for _, is := range report.Issues {
		got = append(got, finding{Rule: is.Rule.Name, File: filepath.Base(is.Range.Filename), Line: is.Range.Start.Line, Message: is.Message})
	}
	return got
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// expectation is one line of expected.txt: file:line rule message, where
// "..." in the message skips any text.
type expectation struct {
	file, rule string
	line       int
	parts      []string
	text       string
}

func (e expectation) matches(f finding) bool {
	if f.File != e.file || f.Line != e.line || f.Rule != e.rule {
		return false
	}
	rest := f.Message
	for i, p := range e.parts {
		at := strings.Index(rest, p)
		if at < 0 || (i == 0 && at != 0) {
			return false
		}
		rest = rest[at+len(p):]
	}
	return true
}

func readExpectations(t *testing.T, path string) []expectation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		loc := strings.SplitN(f[0], ":", 2)
		if len(f) != 3 || len(loc) != 2 {
			t.Fatalf("%s: malformed line %q", path, line)
		}
		n, err := strconv.Atoi(loc[1])
		if err != nil {
			t.Fatalf("%s: malformed line %q", path, line)
		}
		out = append(out, expectation{file: loc[0], line: n, rule: f[1], parts: strings.Split(f[2], "..."), text: line})
	}
	return out
}

// TestBadConfigurations runs tflint over each testdata folder and compares
// its findings with the folder's expected.txt, one to one.
func TestBadConfigurations(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/expected.txt")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no testdata/*/expected.txt (%v)", err)
	}
	counts := map[string]int{}
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			abs, _ := filepath.Abs(dir)
			got := runTFLint(t, abs)
			want := readExpectations(t, exp)
			used := make([]bool, len(got))
			for _, w := range want {
				found := false
				for i, g := range got {
					if !used[i] && w.matches(g) {
						used[i], found = true, true
						break
					}
				}
				if !found {
					t.Errorf("missing finding: %s", w.text)
				}
			}
			for i, g := range got {
				if !used[i] {
					t.Errorf("unexpected finding: %s", g)
				}
				counts[g.Rule]++
			}
			t.Logf("%s: %d findings, %d expected", dir, len(got), len(want))
		})
	}
	var rules []string
	for r := range counts {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		t.Logf("rule %s: %d findings over testdata", r, counts[r])
	}
}

// TestShippedConfigurations: every configuration the repository ships
// (examples/, modules/, environments/) lints clean.
func TestShippedConfigurations(t *testing.T) {
	for _, dir := range []string{"examples", "modules", "environments"} {
		abs, err := filepath.Abs(filepath.Join("..", dir))
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(abs, "*", "*.tf"))
		if len(files) == 0 {
			t.Fatalf("no configurations under %s", abs)
		}
		for _, f := range runTFLint(t, abs) {
			t.Errorf("%s: %s", dir, f)
		}
	}
}
