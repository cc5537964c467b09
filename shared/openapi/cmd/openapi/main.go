// Command openapi writes the API reference, built from the route tables of
// every group and checked as OpenAPI 3.1, to the file named by -o (stdout
// without it). `make openapi` runs it; the docs group serves the file it
// writes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/openapi"
)

func main() {
	out := flag.String("o", "", "write the document to this file instead of stdout")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	data, err := openapi.JSON(app.Groups(api.Deps{}))
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
	return os.WriteFile(out, data, 0o644)
}
