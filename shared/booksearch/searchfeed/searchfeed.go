// Package searchfeed keeps a deployment's OpenSearch index of the catalog
// in step with the table: the relay's consumer of book.changed
// (books.ChangedEvent; docs/decisions.md, "The search index's feed").
// For each event it reads the books it names, as they are now, and
// writes their documents; a book no longer in the table leaves the index.
// With the table's own index (SEARCH_ENGINE=dynamodb, the default) there
// is nothing to feed and no consumer is registered (Consumer is nil).
//
// It is apart from shared/booksearch, which the books function links, so
// that only the relay function links the relay's consumers
// (shared/relay/registry registers it).
package searchfeed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/bookplatform/backend/shared/booksearch/opensearch"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/relay"
)

// ConsumerName is the feed's name among the relay's consumers: the key
// of its dedupe records, so it never changes.
const ConsumerName = "searchindex"

// Table lists the IAM actions of the feed's own calls: the BatchGetItem
// of the books an event names (the relay adds its dedupe records' and
// its UpdateItem).
var Table = []string{"dynamodb:BatchGetItem"}

// Books reads the books an event names (dynamo.Books).
type Books interface {
	// GetBooksConsistent reads books by id with strongly consistent
	// reads, in the order of ids; unknown ids are left out.
	GetBooksConsistent(ctx context.Context, ids []string) ([]*books.Book, error)
}

// Index is the search index the feed writes (opensearch.Engine).
type Index interface {
	// IndexBooks writes the books' documents, each replacing its own.
	IndexBooks(ctx context.Context, bs []*books.Book) error
	// Delete removes a book's document; one already gone is no error.
	Delete(ctx context.Context, id string) error
	// CreateIndex creates the index with its mapping; one that exists
	// is no error.
	CreateIndex(ctx context.Context) error
}

// maxRewrites bounds how often one delivery writes a book that keeps
// changing while it is written (Consume); past it the event fails and
// the relay delivers it again.
const maxRewrites = 3

// Feed is the relay's consumer of book.changed.
type Feed struct {
	Books  Books
	Index  Index
	Logger *slog.Logger

	// indexReady is set once this process created the index or found it
	// there (write).
	indexReady atomic.Bool
}

// Consumer is the feed of the deployment's settings (booksearch
// ReadSettings, the books group's): nil, no consumer, unless the engine
// is OpenSearch; with the table's own index there is nothing to feed,
// and a registered feed would cost the relay a dedupe record per
// book.changed for nothing.
func Consumer(d api.Deps) relay.Consumer {
	s := booksearch.ReadSettings(d.Env)
	if s.Engine != booksearch.EngineOpenSearch {
		return nil
	}
	st := dynamo.NewBooks(d.Table)
	e, err := opensearch.New(opensearch.Config{Endpoint: s.Endpoint, Index: s.Index, AWS: &d.AWS}, st)
	if err != nil {
		d.Env.Fail(err)
		return nil
	}
	return &Feed{Books: st, Index: e, Logger: d.Logger}
}

// Name is ConsumerName.
func (f *Feed) Name() string { return ConsumerName }

// Takes is book.changed alone (relay.Selective): the relay keeps no
// dedupe record of the feed's for the events of every other type.
func (f *Feed) Takes(t events.Type) bool { return t == books.ChangedEvent.Type }

var _ relay.Selective = (*Feed)(nil)

// Consume writes the current documents of the books a book.changed names
// and ignores every other event (which the relay does not hand it). It
// reads the books (one consistent BatchGetItem), writes the documents of
// those present (one bulk request) and deletes those absent (the service
// never deletes a book: only one removed from the table by hand is
// absent), then reads them again: a book whose version moved meanwhile
// is written again, so a delivery that read an older version and wrote
// after a newer one's delivery does not leave the older document
// (deliveries run in parallel, in no order). An error (a read, a refused
// write) makes the relay deliver the event again, which writes the same
// documents.
func (f *Feed) Consume(ctx context.Context, ev events.Event) error {
	if ev.Type != books.ChangedEvent.Type {
		return nil
	}
	var d books.ChangedData
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		// A malformed event cannot be applied however often it is
		// retried: it is logged, not retried; the backfill repairs what
		// it named.
		f.logger().Error("searchfeed: event not applied", "eventId", ev.ID, "error", err.Error())
		return nil
	}
	ids := slices.Compact(slices.Sorted(slices.Values(d.BookIDs)))
	if len(ids) == 0 {
		return nil
	}
	// written is the stamp each book's document was written at, "" for
	// a book deleted from the index.
	written := map[string]string{}
	for round := 0; ; round++ {
		found, err := f.Books.GetBooksConsistent(ctx, ids)
		if err != nil {
			return fmt.Errorf("searchfeed: read %d books: %w", len(ids), err)
		}
		now := make(map[string]*books.Book, len(found))
		for _, b := range found {
			now[b.ID] = b
		}
		var put []*books.Book
		var gone []string
		for _, id := range ids {
			b := now[id]
			if w, ok := written[id]; ok && w == stamp(b) {
				continue
			}
			if b != nil {
				put = append(put, b)
			} else {
				gone = append(gone, id)
			}
		}
		if len(put) == 0 && len(gone) == 0 {
			return nil
		}
		if round == maxRewrites {
			return fmt.Errorf("searchfeed: %d of %d books changed again each time they were written", len(put)+len(gone), len(ids))
		}
		if err := f.write(ctx, put); err != nil {
			return fmt.Errorf("searchfeed: %w", err)
		}
		for _, b := range put {
			written[b.ID] = stamp(b)
		}
		for _, id := range gone {
			if err := f.Index.Delete(ctx, id); err != nil {
				return fmt.Errorf("searchfeed: %w", err)
			}
			written[id] = ""
		}
	}
}

// stamp tells one stored state of a book from another: its version and
// the time of its last change. The version alone does not: two bulk
// creations of one new ISBN racing each other (their puts are
// unconditional) both write version 1, each with its own fields and
// time, and a delivery that read the first and wrote after the second's
// delivery would see the version it wrote and stop, leaving the older
// document. "" is a book that is not there.
func stamp(b *books.Book) string {
	if b == nil {
		return ""
	}
	return strconv.Itoa(b.Version) + "@" + strconv.FormatInt(b.UpdatedAt.UnixNano(), 10)
}

// write writes the books' documents. A write refused because the index
// does not exist (opensearch.ErrIndexMissing: the stack makes the
// collection, not the index, and the operator has not run the backfill
// yet) creates the index with the engine's mapping and writes once
// more: otherwise every catalog change would fail until the backfill
// ran, each retried by the relay with the stream shard's later events
// of every other consumer (webhooks, notifications) waiting behind it.
// Any other failure, or a second one, is returned for the relay to
// retry. Deletes need no index: a book absent from a missing index is
// already gone.
func (f *Feed) write(ctx context.Context, put []*books.Book) error {
	if !f.indexReady.Load() {
		// Once per process, before the first write: with the right to
		// create indexes a write to a missing index could make one
		// itself, with mappings guessed from the document rather than
		// the engine's; creating it first rules that out.
		if err := f.Index.CreateIndex(ctx); err != nil {
			return err
		}
		f.indexReady.Store(true)
	}
	err := f.Index.IndexBooks(ctx, put)
	if !errors.Is(err, opensearch.ErrIndexMissing) {
		return err
	}
	f.logger().Warn("searchfeed: the index does not exist; creating it (run local/searchindex to add the existing catalog)", "error", err.Error())
	if err := f.Index.CreateIndex(ctx); err != nil {
		return err
	}
	return f.Index.IndexBooks(ctx, put)
}

func (f *Feed) logger() *slog.Logger {
	if f.Logger == nil {
		return slog.Default()
	}
	return f.Logger
}
