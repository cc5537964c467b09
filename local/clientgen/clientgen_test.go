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
