package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// maxBootstrapBytes is the target for one bootstrap: a small zip uploads
// fast and Lambda maps less of it into memory on a cold start.
const maxBootstrapBytes = 15_000_000

// runSizes reports the size of every bootstrap `make build` produced.
func runSizes(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("sizes", flag.ExitOnError)
	dir := fs.String("dir", "build", "directory holding <function>/bootstrap (from make build)")
	_ = fs.Parse(args)

	section(w, "1. Lambda bootstrap sizes (linux/arm64, -tags lambda.norpc -trimpath -ldflags='-s -w'), target < 15 MB each",
		"make build && go run ./local/bench sizes")
	paths, err := filepath.Glob(filepath.Join(*dir, "*", "bootstrap"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no %s/*/bootstrap: run `make build` first", *dir)
	}
	sort.Strings(paths)
	var over []string
	fmt.Fprintf(w, "   %-12s %10s %14s\n", "function", "MB", "bytes")
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		name := filepath.Base(filepath.Dir(p))
		verdict := "ok"
		if fi.Size() >= maxBootstrapBytes {
			verdict = "OVER TARGET"
			over = append(over, name)
		}
		fmt.Fprintf(w, "   %-12s %7.2f MB %14d  %s\n", name, float64(fi.Size())/1e6, fi.Size(), verdict)
	}
	if len(over) > 0 {
		return errors.New("bootstraps over 15 MB: " + fmt.Sprint(over))
	}
	return nil
}
