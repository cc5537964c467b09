package searchfeed_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/bookplatform/backend/shared/booksearch/opensearch"
	"github.com/bookplatform/backend/shared/booksearch/opensearch/opensearchtest"
	"github.com/bookplatform/backend/shared/booksearch/searchfeed"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The catalog of the tests: their ids derive from the ISBNs, as the
// recorded requests (testdata feed_*) name them.
var (
	emma   = books.Record{ISBN: "0306406152", Title: "Emma", Authors: []string{"Jane Austen"}}
	hobbit = books.Record{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}}
	// gone is a book id the table does not have.
	gone = "0b8f7e0a-9d2c-5a8e-8f1b-999999999999"
)

func exchange(method, path, request string, status int, answer string) opensearchtest.Exchange {
	return opensearchtest.Exchange{Method: method, Path: path, Request: request, Status: status, Answer: answer}
}

// bulk is the feed's write of the documents in request.
func bulk(request string) opensearchtest.Exchange {
	return exchange("POST", "/books/_bulk", request, 200, "bulk_answer.json")
}

// deleteGone is the feed's delete of the book the table lacks.
var deleteGone = exchange("DELETE", "/books/_doc/"+gone, "", 404, "delete_not_found_answer.json")

func engine(t *testing.T, url string, st opensearch.Books) *opensearch.Engine {
	t.Helper()
	e, err := opensearch.New(opensearch.Config{Endpoint: url, Index: "books"}, st)
	require.NoError(t, err)
	return e
}

func changed(t *testing.T, ids ...string) events.Event {
	t.Helper()
	ev, err := books.Changed(time.Now(), ids)
	require.NoError(t, err)
	return ev
}

// A book.changed writes the named books' documents as the table holds
// them now (one bulk request, ids named twice written once) and deletes
// the one the table lacks; the same event delivered again writes the
// same documents, and delivered after a later change of a book, that
// change's document: never an older one.
func TestFeed_writesTheBooksCurrentDocuments(t *testing.T) {
	env := testenv.New(t)
	env.ImportBooks(t, emma, hobbit)
	st := dynamo.NewBooks(env.App.Table)
	url, _ := opensearchtest.StandIn(t,
		opensearchtest.IndexExists("books"), bulk("feed_bulk_request.ndjson"), deleteGone,
		bulk("feed_bulk_request.ndjson"), deleteGone,
		bulk("feed_bulk_updated_request.ndjson"), deleteGone,
	)
	f := &searchfeed.Feed{Books: st, Index: engine(t, url, st)}
	ev := changed(t, books.BookIDOf("9780198534532"), gone, books.BookIDOf("9780306406157"), books.BookIDOf("9780198534532"))
	ctx := t.Context()

	require.NoError(t, f.Consume(ctx, ev))
	require.NoError(t, f.Consume(ctx, ev), "a redelivery writes the same documents")

	res, err := env.App.Books.Import(ctx, []books.Record{{ISBN: emma.ISBN, Title: "Emma: A Novel", Authors: emma.Authors}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Updated, "%+v", res)
	require.NoError(t, f.Consume(ctx, ev), "late, the event writes the book as it is now")
}

// staleFirst answers its first read with an older version of one book,
// as a delivery that read just before a newer change committed sees it.
type staleFirst struct {
	*dynamo.Books
	mu    sync.Mutex
	stale *books.Book
}

func (s *staleFirst) GetBooksConsistent(ctx context.Context, ids []string) ([]*books.Book, error) {
	bs, err := s.Books.GetBooksConsistent(ctx, ids)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range bs {
		if s.stale != nil && b.ID == s.stale.ID {
			bs[i], s.stale = s.stale, nil
		}
	}
	return bs, err
}

// Deliveries run in parallel and in no order: one that read a book
// before a newer change committed may write after that change's own
// delivery. The feed reads the books again after writing and writes the
// one whose version moved, alone, so the index ends on the newest.
func TestFeed_aBookChangedWhileWrittenIsWrittenAgain(t *testing.T) {
	env := testenv.New(t)
	ids := env.ImportBooks(t, emma, hobbit)
	st := dynamo.NewBooks(env.App.Table)
	ctx := t.Context()
	old, err := st.GetBook(ctx, ids[0])
	require.NoError(t, err)
	_, err = env.App.Books.Import(ctx, []books.Record{{ISBN: emma.ISBN, Title: "Emma: A Novel", Authors: emma.Authors}})
	require.NoError(t, err)

	url, _ := opensearchtest.StandIn(t, opensearchtest.IndexExists("books"), bulk("feed_bulk_request.ndjson"), bulk("feed_emma_updated_request.ndjson"))
	stale := &staleFirst{Books: st, stale: old}
	f := &searchfeed.Feed{Books: stale, Index: engine(t, url, st)}
	require.NoError(t, f.Consume(ctx, changed(t, ids...)))
}

// Two bulk creations of one new ISBN racing each other write version 1
// both (their puts are unconditional), each with its own fields and
// time: a delivery that read the other creation's state writes it, reads
// the book again and writes the newer state, though the version is the
// same.
func TestFeed_aBookRewrittenAtTheSameVersionIsWrittenAgain(t *testing.T) {
	env := testenv.New(t)
	ids := env.ImportBooks(t, emma, hobbit)
	st := dynamo.NewBooks(env.App.Table)
	ctx := t.Context()
	_, err := env.App.Books.Import(ctx, []books.Record{{ISBN: emma.ISBN, Title: "Emma: A Novel", Authors: emma.Authors}})
	require.NoError(t, err)
	now, err := st.GetBook(ctx, ids[0])
	require.NoError(t, err)
	other := *now
	other.Title, other.UpdatedAt = emma.Title, now.UpdatedAt.Add(-time.Second)

	url, _ := opensearchtest.StandIn(t, opensearchtest.IndexExists("books"), bulk("feed_bulk_request.ndjson"), bulk("feed_emma_updated_request.ndjson"))
	f := &searchfeed.Feed{Books: &staleFirst{Books: st, stale: &other}, Index: engine(t, url, st)}
	require.NoError(t, f.Consume(ctx, changed(t, ids...)))
}

// A document OpenSearch refuses fails the event, for the relay to
// deliver it again; other events are not the feed's and send nothing,
// and a malformed book.changed is logged, not retried.
func TestFeed_failuresAndOtherEvents(t *testing.T) {
	env := testenv.New(t)
	ids := env.ImportBooks(t, emma, hobbit)
	st := dynamo.NewBooks(env.App.Table)
	url, _ := opensearchtest.StandIn(t, opensearchtest.IndexExists("books"), exchange("POST", "/books/_bulk", "feed_bulk_request.ndjson", 200, "bulk_refused_answer.json"))
	f := &searchfeed.Feed{Books: st, Index: engine(t, url, st)}
	ctx := t.Context()

	err := f.Consume(ctx, changed(t, ids...))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 refused")

	other, err := follows.UserFollowed.New(time.Now(), follows.UserFollowedData{FollowerID: "a", UserID: "b"})
	require.NoError(t, err)
	require.NoError(t, f.Consume(ctx, other))
	malformed := changed(t, ids...)
	malformed.Data = json.RawMessage(`{"bookIds":"not a list"}`)
	require.NoError(t, f.Consume(ctx, malformed))
	require.NoError(t, f.Consume(ctx, changed(t)), "an event naming no book")
}

// A deployment whose operator has not run the backfill has the
// collection but no index: the feed's first write is refused as the
// index missing (as each document's error or as the request's), and the
// feed creates the index with the engine's mapping and writes once more,
// so the event succeeds and the relay does not retry it with the other
// consumers' later events waiting. A second failure, of another kind or
// the index still missing, returns to the relay, which retries.
func TestFeed_createsAMissingIndex(t *testing.T) {
	env := testenv.New(t)
	ids := env.ImportBooks(t, emma, hobbit)
	st := dynamo.NewBooks(env.App.Table)
	ctx := t.Context()
	missingDocs := exchange("POST", "/books/_bulk", "feed_bulk_request.ndjson", 200, opensearchtest.AnswerBulkIndexMissing)
	missingIndex := opensearchtest.IndexMissing("POST", "/books/_bulk", "feed_bulk_request.ndjson")
	refused := exchange("POST", "/books/_bulk", "feed_bulk_request.ndjson", 200, "bulk_refused_answer.json")
	url, _ := opensearchtest.StandIn(t,
		opensearchtest.CreateIndex("books"), // the process's first write makes sure the index exists
		missingDocs, opensearchtest.CreateIndex("books"), bulk("feed_bulk_request.ndjson"),
		missingIndex, opensearchtest.CreateIndex("books"), bulk("feed_bulk_request.ndjson"),
		missingDocs, opensearchtest.CreateIndex("books"), refused,
		missingIndex, opensearchtest.CreateIndex("books"), missingIndex,
		refused,
	)
	f := &searchfeed.Feed{Books: st, Index: engine(t, url, st)}

	require.NoError(t, f.Consume(ctx, changed(t, ids...)), "refused as each document's index missing")
	require.NoError(t, f.Consume(ctx, changed(t, ids...)), "refused as the request's index missing")

	err := f.Consume(ctx, changed(t, ids...))
	require.Error(t, err, "the write after the index is created refused otherwise")
	assert.Contains(t, err.Error(), "1 refused")
	assert.NotErrorIs(t, err, opensearch.ErrIndexMissing)

	err = f.Consume(ctx, changed(t, ids...))
	require.ErrorIs(t, err, opensearch.ErrIndexMissing, "the index missing again: created once, written once more, then the relay retries")

	err = f.Consume(ctx, changed(t, ids...))
	require.Error(t, err, "a refusal of another kind creates nothing")
	assert.Contains(t, err.Error(), "1 refused")
}

// The feed is the relay's consumer only where the catalog is searched
// on OpenSearch; its settings are read either way, so the relay function
// is told them and granted the collection (shared/groups, infra).
func TestConsumer_onlyWithOpenSearch(t *testing.T) {
	env := config.NewEnv(nil)
	assert.Nil(t, searchfeed.Consumer(api.Deps{Env: env}))
	assert.Subset(t, env.Names(), []string{booksearch.EnvEngine, booksearch.EnvOpenSearchEndpoint, booksearch.EnvOpenSearchIndex})

	vars := map[string]string{booksearch.EnvEngine: booksearch.EngineOpenSearch, booksearch.EnvOpenSearchEndpoint: "https://abc.eu-west-1.aoss.amazonaws.com"}
	env = config.NewEnv(func(name string) string { return vars[name] })
	c := searchfeed.Consumer(api.Deps{Env: env})
	require.NotNil(t, c)
	assert.Equal(t, searchfeed.ConsumerName, c.Name())
	require.NoError(t, env.Err())
}
