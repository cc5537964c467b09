// Package clientgen_test is the contract as client teams meet it: the
// document the docs group serves is fed to the pinned client generators
// (ogen and oapi-codegen, in the tools module), their clients must build
// with no patch, and the ogen client, which decodes strictly and
// validates every answer against the document, drives a short journey
// (tools/testdata/journey) through the local stack.
package clientgen_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// toolsDir is the tools module, from this package's directory.
var toolsDir = filepath.Join("..", "..", "tools")

func TestGeneratedClients(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and compiles two clients (minutes): not in -short")
	}
	env := testenv.New(t)
	const isbn = "9780441172719"
	env.ImportBooks(t, books.Record{ISBN: isbn, Title: "Dune", Authors: []string{"Frank Herbert"}, Language: "en", PageCount: 412})

	// The document as served, not the route tables': what a client team
	// downloads.
	doc := served(t, env.Server.URL+"/openapi.json")

	tools, err := filepath.Abs(toolsDir)
	if err != nil {
		t.Fatal(err)
	}
	// A copy of the tools module, to generate into: its go.mod and go.sum
	// pin what the generated code imports.
	work := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join(tools, f), filepath.Join(work, f))
	}
	copyFile(t, filepath.Join(tools, "testdata", "journey", "main.go"), filepath.Join(work, "journey", "main.go"))
	spec := filepath.Join(work, "openapi.json")
	if err := os.WriteFile(spec, doc, 0o644); err != nil {
		t.Fatal(err)
	}

	// The generators run from the tools module, where go.mod pins them.
	goCmd(t, tools, "tool", "ogen", "-target", filepath.Join(work, "ogenclient"), "-package", "ogenclient",
		"-clean", "-config", filepath.Join(tools, "ogen.yml"), spec)
	goCmd(t, tools, "tool", "oapi-codegen", "-config", filepath.Join(tools, "oapi-codegen.yml"),
		"-o", filepath.Join(work, "oapiclient", "client.gen.go"), spec)

	for _, f := range []string{"ogenclient/oas_client_gen.go", "oapiclient/client.gen.go"} {
		if !fileExists(filepath.Join(work, f)) {
			t.Fatalf("no %s was generated", f)
		}
	}
	// Both clients and the journey build as generated.
	goCmd(t, work, "build", "./...")
	journey := filepath.Join(work, "journey.bin")
	goCmd(t, work, "build", "-o", journey, "./journey")

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, journey, "-base", env.Server.URL, "-isbn", isbn, "-user", "journey").CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the journey with the generated ogen client failed: %v", err)
	}
}

// served fetches the document from the docs group.
func served(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d %v", res.StatusCode, err)
	}
	return body
}

// goCmd runs the go command in dir, offline-safe: the tools module's
// go.sum must already name every module (make deps downloads them).
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), goBinary(), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("go %s (%s)", strings.Join(args[:min(2, len(args))], " "), time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, tail(out.String(), 60))
	}
}

// goBinary is the go command of the toolchain running the tests.
func goBinary() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// tail keeps a generator's last lines (ogen logs a line per warning).
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// nodeBin returns the path of an npm package's command in the
// repository's node_modules (make deps installs them from the lockfile),
// or skips the test when it is not there. CLIENTGEN_NODE_MODULES names
// another node_modules (a worktree whose node_modules is another's).
func nodeBin(t *testing.T, name string) (bin, modules string) {
	t.Helper()
	modules = os.Getenv("CLIENTGEN_NODE_MODULES")
	if modules == "" {
		modules = filepath.Join("..", "..", "node_modules")
	}
	modules, err := filepath.Abs(modules)
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(modules, ".bin", name)
	if !fileExists(bin) {
		t.Skipf("%s is not installed (make deps installs the npm packages of package-lock.json)", bin)
	}
	return bin, modules
}

// run runs a command in dir and fails the test with its output.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s (%s)", filepath.Base(name), time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(string(out), 80))
	}
	return string(out)
}

// The committed reference, as a TypeScript client team uses it:
// openapi-typescript generates its types and tsc --strict compiles them
// with openapi-fetch calls (tools/testdata/ts/client.ts).
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs openapi-typescript and tsc: not in -short")
	}
	generate, modules := nodeBin(t, "openapi-typescript")
	tsc, _ := nodeBin(t, "tsc")
	work := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(toolsDir, "testdata", "ts", "client.ts"), filepath.Join(work, "client.ts"))
	copyFile(t, filepath.Join("..", "..", "docs", "openapi.json"), filepath.Join(work, "openapi.json"))
	tsconfig := `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
  "moduleResolution": "bundler", "lib": ["es2022", "dom"]}, "files": ["client.ts", "schema.d.ts"]}`
	if err := os.WriteFile(filepath.Join(work, "tsconfig.json"), []byte(tsconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, work, generate, "openapi.json", "-o", "schema.d.ts")
	run(t, work, tsc, "-p", "tsconfig.json")
}

// Redocly's recommended rules and Spectral's OpenAPI ruleset pass on the
// committed reference with no error and no warning; the rules turned
// off are in redocly.yaml with their reasons.
func TestReferenceLints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Redocly CLI and Spectral: not in -short")
	}
	redocly, _ := nodeBin(t, "redocly")
	spectral, _ := nodeBin(t, "spectral")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := run(t, root, redocly, "lint", "docs/openapi.json", "--config", "redocly.yaml", "--format", "summary")
	// The summary lists each rule that reports as "warning <rule>: <n>"
	// (Node's own deprecation notice also says "warning", not at a line's
	// start).
	if regexp.MustCompile(`(?m)^\s*(warning|error)\s+\S+: \d+`).MatchString(out) {
		t.Errorf("redocly lint reports:\n%s", out)
	}
	run(t, root, spectral, "lint", "docs/openapi.json", "--ruleset", ".spectral.yaml", "--fail-severity", "warn")
}
