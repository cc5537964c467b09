// Command openapi writes the API reference, built from the route tables of
// every group and checked as OpenAPI 3.1, to the file named by -o (stdout
// without it). `make openapi` runs it; the docs group serves the file it
// writes. With -o it also writes what else is generated from the route
// tables: the route keys the Fallback group's function answers unknown
// paths from (shared/app/routekeys_gen.go, see groups.RouteKeysSource)
// and where the central tests find each group's declarations
// (shared/groups/groupstest/facts_gen.go, see groups.FactsSource); run it
// from the module root.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/openapi"
)

func main() {
	out := flag.String("o", "", "write the document to this file instead of stdout")
	keys := flag.String("routekeys", groups.RouteKeysFile, "with -o, also write the Fallback function's route keys to this file (empty: do not)")
	facts := flag.String("facts", groups.FactsFile, "with -o, also write where the central tests find each group's declarations to this file (empty: do not)")
	flag.Parse()
	if err := run(*out, *keys, *facts); err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
}

func run(out, keys, facts string) error {
	data, err := openapi.JSON(groups.All(api.Deps{}))
	if err != nil {
		return err
	}
	if _, err := openapi.Load(data); err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(data)
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	for _, gen := range []struct {
		file   string
		source func() ([]byte, error)
	}{{keys, groups.RouteKeysSource}, {facts, groups.FactsSource}} {
		if gen.file == "" {
			continue
		}
		src, err := gen.source()
		if err != nil {
			return err
		}
		if err := os.WriteFile(gen.file, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}
