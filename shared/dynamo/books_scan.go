package dynamo

import (
	"context"
	"fmt"

	"github.com/bookplatform/backend/shared/books"
)

// ScanBooks reads every book of the table and hands them to fn, up to
// page at a time, for a backfill of an outside search index
// (local/searchindex): a Scan filtered by type, which reads (and pays
// for) every item of the table, so it is a one-off, never on a request's
// path. A book changed while it runs may be handed over as it was before.
// It returns how many books fn took without an error.
func (s *Books) ScanBooks(ctx context.Context, page int, fn func([]*books.Book) error) (int, error) {
	it := s.t.table.Scan().Filter("$ = ?", "type", typeBook).Iter()
	var (
		row bookItem
		buf []*books.Book
		n   int
	)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		if err := fn(buf); err != nil {
			return err
		}
		n += len(buf)
		buf = nil
		return nil
	}
	for it.Next(ctx, &row) {
		buf = append(buf, row.toBook())
		row = bookItem{}
		if len(buf) == page {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := it.Err(); err != nil {
		return n, fmt.Errorf("scan books: %w", err)
	}
	return n, flush()
}
