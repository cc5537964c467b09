package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/bookplatform/backend/shared/openapi"
)

// runExamples records the API reference's examples: it runs
// TestRecordExamples (examples_test.go), which runs the scenario of
// TestCallCounts once on a fresh table, and writes the examples file
// shared/openapi embeds (openapi.ExamplesFile). The file is replaced only
// when the whole scenario passed. `make examples` runs it, then
// regenerates the reference.
func runExamples(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("examples", flag.ExitOnError)
	out := fs.String("o", openapi.ExamplesFile, "the examples file to write")
	_ = fs.Parse(args)

	progress("examples: go test ./local/bench -run TestRecordExamples")
	var log bytes.Buffer
	tmp := *out + ".tmp"
	abs, err := filepath.Abs(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(abs)
	cmd := []string{"test", "./local/bench", "-run", "^TestRecordExamples$", "-count=1", "-v", "-args", "-examples-out=" + abs}
	c := exec.Command("go", cmd...)
	c.Stdout, c.Stderr = &log, &log
	if err := c.Run(); err != nil {
		return fmt.Errorf("go %v: %v\n%s", cmd, err, log.String())
	}
	if err := os.Rename(abs, *out); err != nil {
		return err
	}
	info, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "examples: %s, %d bytes; run make openapi to merge them into the reference\n", *out, info.Size())
	return nil
}
