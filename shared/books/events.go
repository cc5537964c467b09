package books

import (
	"time"

	"github.com/bookplatform/backend/shared/events"
)

// ChangedEvent is recorded with every write of a book's catalog fields:
// in the transaction of a created or updated book (dynamo.Books
// CreateBook, UpdateBook), and after the book items of a bulk creation
// (CreateBooks: one event per MaxChangedBooks books). Its consumer is
// the relay's search feed (shared/booksearch/searchfeed), which keeps an
// OpenSearch index in step with the catalog; it concerns no store, so the
// webhooks' fan-out delivers it to no endpoint and no endpoint may
// subscribe to it. The counters (reviews, ratings, lines) change without
// it (docs/decisions.md, "The search index's feed").
var ChangedEvent = events.Declaration{
	Type: "book.changed", Version: 1, Data: ChangedData{},
	Summary: "Books were added to the catalog or their catalog fields changed (it feeds the search index, and no store's webhook endpoint receives it; a bulk addition records it just after its books, not in their transaction)",
}

// Events are the events the catalog's writes emit (api.Group.Emits of
// the groups that import books).
var Events = []events.Declaration{ChangedEvent}

// MaxChangedBooks bounds the books one book.changed names: a bulk
// creation emits one event per this many books, so an outbox item stays
// near 4 KB (far under DynamoDB's 400 KB) and its consumer reads them
// with one BatchGetItem (100 keys at most).
const MaxChangedBooks = 100

// ChangedData is the data of book.changed: the ids of the books that
// changed, not their fields. A consumer reads the books' current state,
// so an event delivered late, out of order or twice never brings back an
// older version.
type ChangedData struct {
	BookIDs []string `json:"bookIds" doc:"the books that changed (at most 100); read them for their current state"`
}

// Changed is the event of a change of the books ids (at most
// MaxChangedBooks) at t.
func Changed(t time.Time, ids []string) (events.Event, error) {
	return ChangedEvent.New(t, ChangedData{BookIDs: ids})
}
