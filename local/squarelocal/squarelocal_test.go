package squarelocal

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/bookplatform/backend/shared/books"
)

// TestDemoItems_areDemoCatalogBooks: a sync in import mode right after
// connecting on `make run` creates inventory only if the stand-in's books
// are in the demo catalog, at least ten of them (DESIGN.md).
func TestDemoItems_areDemoCatalogBooks(t *testing.T) {
	f, err := os.Open("../data/catalog.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	catalog := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ ISBN string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		isbn, _, err := books.NormalizeISBN(r.ISBN)
		if err == nil {
			catalog[isbn] = true
		}
	}
	n := 0
	for _, d := range DemoItems {
		code := d.UPC
		if code == "" {
			code = d.SKU
		}
		isbn, _, err := books.NormalizeISBN(code)
		switch {
		case err != nil:
			continue // the tote bag
		case !catalog[isbn]:
			t.Errorf("%s (%s) is not in the demo catalog", d.Name, code)
		default:
			n++
		}
	}
	if n < 10 {
		t.Fatalf("%d demo catalog books, want at least 10", n)
	}
}
