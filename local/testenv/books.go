package testenv

import (
	"testing"

	"github.com/bookplatform/backend/shared/books"
)

// ImportBooks adds records to the catalog through the import service and
// returns the new books' ids in the order of records. It fails the test
// unless every record creates a book.
func (e *Env) ImportBooks(tb testing.TB, records ...books.Record) []string {
	tb.Helper()
	res, err := e.App.Books.Import(tb.Context(), records)
	if err != nil {
		tb.Fatalf("testenv: import %d books: %v", len(records), err)
	}
	if res.Created != len(records) {
		tb.Fatalf("testenv: import created %d of %d books: %+v", res.Created, len(records), res.Errors)
	}
	ids := make([]string, len(records))
	for i, r := range records {
		b, err := e.App.Books.GetByISBN(tb.Context(), r.ISBN)
		if err != nil {
			tb.Fatalf("testenv: imported book %s: %v", r.ISBN, err)
		}
		ids[i] = b.ID
	}
	return ids
}
