package opensearch

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch/opensearch/opensearchtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exchange and standIn are the stand-in of a collection
// (opensearchtest), its answers recorded under testdata.
func exchange(method, path, request string, status int, answer string) opensearchtest.Exchange {
	return opensearchtest.Exchange{Method: method, Path: path, Request: request, Status: status, Answer: answer}
}

func standIn(t *testing.T, want ...opensearchtest.Exchange) (string, func() []http.Header) {
	t.Helper()
	return opensearchtest.StandIn(t, want...)
}

// catalog is the table's side: the books a page is read from.
type catalog map[string]*books.Book

func (c catalog) GetBooks(_ context.Context, ids []string) ([]*books.Book, error) {
	var out []*books.Book
	for _, id := range ids {
		if b, ok := c[id]; ok {
			out = append(out, b)
		}
	}
	return out, nil
}

const (
	id1 = "0b8f7e0a-9d2c-5a8e-8f1b-111111111111"
	id2 = "0b8f7e0a-9d2c-5a8e-8f1b-222222222222"
	id3 = "0b8f7e0a-9d2c-5a8e-8f1b-333333333333"
)

var shelf = catalog{
	id1: {ID: id1, ISBN13: "9780306406157", ISBN10: "0306406152", Title: "Harry Potter and the Philosopher's Stone", Authors: []string{"J. K. Rowling"}, TotalReviews: 30, TotalLines: 11},
	id2: {ID: id2, Title: "Harry Potter: A History of Magic"},
	id3: {ID: id3, Title: "It"},
}

func engine(t *testing.T, url string) *Engine {
	t.Helper()
	e, err := New(Config{Endpoint: url, Index: "books"}, shelf)
	require.NoError(t, err)
	return e
}

// A words query: every word a filter (the last on the prefix subfields),
// a constant boost for a title holding them all, sorted by score,
// popularity and book id; the page's books come from the table in the
// index's order, the total as OpenSearch counted it.
func TestSearch_words(t *testing.T) {
	url, _ := standIn(t, exchange("POST", "/books/_search", "search_words_request.json", 200, "search_words_answer.json"))
	res, err := engine(t, url).Search(context.Background(), books.QueryOf("Harry Pót", 10, 20))
	require.NoError(t, err)
	assert.Equal(t, books.SearchResult{Items: []*books.Book{shelf[id1], shelf[id2]}, Total: 3}, res)
}

// An ISBN matches that book's isbn13 only, as the table's index answers.
func TestSearch_isbn(t *testing.T) {
	url, _ := standIn(t, exchange("POST", "/books/_search", "search_isbn_request.json", 200, "search_empty_answer.json"))
	res, err := engine(t, url).Search(context.Background(), books.QueryOf("978-0-306-40615-7", 20, 0))
	require.NoError(t, err)
	assert.Equal(t, books.SearchResult{Items: []*books.Book{}}, res)
}

// A lone short word is matched whole, not as a prefix; a page past the
// index's result window is cut to it, and a total OpenSearch stopped
// counting is flagged as a lower bound.
func TestSearch_shortWordDeepPageCappedTotal(t *testing.T) {
	url, _ := standIn(t, exchange("POST", "/books/_search", "search_short_word_deep_request.json", 200, "search_capped_answer.json"))
	res, err := engine(t, url).Search(context.Background(), books.QueryOf("it", 50, 9990))
	require.NoError(t, err)
	assert.Equal(t, books.SearchResult{Items: []*books.Book{shelf[id3]}, Total: 10000, TotalIsLowerBound: true}, res)
}

// A query with no word to match (punctuation only) sends nothing.
func TestSearch_noWords(t *testing.T) {
	url, _ := standIn(t)
	res, err := engine(t, url).Search(context.Background(), books.QueryOf("?!", 20, 0))
	require.NoError(t, err)
	assert.Equal(t, books.SearchResult{Items: []*books.Book{}}, res)
}

// OpenSearch's error answer is the search's error, with its reason.
func TestSearch_error(t *testing.T) {
	url, _ := standIn(t, exchange("POST", "/books/_search", "search_words_request.json", 400, "search_bad_request_answer.json"))
	_, err := engine(t, url).Search(context.Background(), books.QueryOf("Harry Pót", 10, 20))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "search_phase_execution_exception")
}

// A book is written under its id (PUT, so writing it again replaces it)
// with the fields search matches and ranks on; deleting one already gone
// is no error; creating the index sends the mapping and accepts an index
// that exists.
func TestWrites(t *testing.T) {
	url, _ := standIn(t,
		exchange("PUT", "/books", "../index.json", 200, "create_index_answer.json"),
		exchange("PUT", "/books", "../index.json", 400, "create_index_exists_answer.json"),
		exchange("PUT", "/books/_doc/"+id1, "index_book_request.json", 201, "index_created_answer.json"),
		exchange("DELETE", "/books/_doc/"+id1, "", 200, "delete_deleted_answer.json"),
		exchange("DELETE", "/books/_doc/0b8f7e0a-9d2c-5a8e-8f1b-999999999999", "", 404, "delete_not_found_answer.json"),
	)
	e, ctx := engine(t, url), context.Background()
	require.NoError(t, e.CreateIndex(ctx))
	require.NoError(t, e.CreateIndex(ctx))
	require.NoError(t, e.Index(ctx, shelf[id1]))
	require.NoError(t, e.Delete(ctx, id1))
	require.NoError(t, e.Delete(ctx, "0b8f7e0a-9d2c-5a8e-8f1b-999999999999"))
}

// Requests are signed with SigV4 for OpenSearch Serverless (service
// aoss) with the payload's hash, which aoss requires.
func TestSigned(t *testing.T) {
	url, headers := standIn(t, exchange("POST", "/books/_search", "search_isbn_request.json", 200, "search_empty_answer.json"))
	awsCfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")}
	e, err := New(Config{Endpoint: url, Index: "books", AWS: &awsCfg}, shelf)
	require.NoError(t, err)
	_, err = e.Search(context.Background(), books.QueryOf("9780306406157", 20, 0))
	require.NoError(t, err)
	h := headers()[0]
	assert.True(t, strings.HasPrefix(h.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"), h.Get("Authorization"))
	assert.Contains(t, h.Get("Authorization"), "/eu-west-1/aoss/aws4_request")
	assert.Len(t, h.Get("X-Amz-Content-Sha256"), 64)
}

// A backfill writes many books in one bulk request, each under its id;
// a document OpenSearch refuses is reported, by id and reason.
func TestIndexBooks(t *testing.T) {
	url, _ := standIn(t,
		exchange("POST", "/books/_bulk", "bulk_request.ndjson", 200, "bulk_answer.json"),
		exchange("POST", "/books/_bulk", "bulk_request.ndjson", 200, "bulk_refused_answer.json"),
		exchange("POST", "/books/_bulk", "bulk_request.ndjson", 200, opensearchtest.AnswerBulkIndexMissing),
		opensearchtest.IndexMissing("POST", "/books/_bulk", "bulk_request.ndjson"),
	)
	e, ctx := engine(t, url), context.Background()
	require.NoError(t, e.IndexBooks(ctx, []*books.Book{shelf[id1], shelf[id2]}))
	err := e.IndexBooks(ctx, []*books.Book{shelf[id1], shelf[id2]})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 refused, the first book "+id2+": mapper_parsing_exception")
	assert.NotErrorIs(t, err, ErrIndexMissing, "a refused document is not a missing index")
	// The index missing, as each document's error or as the request's.
	for range 2 {
		err = e.IndexBooks(ctx, []*books.Book{shelf[id1], shelf[id2]})
		require.ErrorIs(t, err, ErrIndexMissing)
		assert.Contains(t, err.Error(), "index_not_found_exception")
	}
	require.NoError(t, e.IndexBooks(ctx, nil))
}

// The client's background poll of the node APIs (every 5 s) is answered
// by the engine's transport, never sent to the collection, which has no
// such API; the engine's own requests go through.
func TestNoNodeAPIs(t *testing.T) {
	url, _ := standIn(t, exchange("POST", "/books/_search", "search_isbn_request.json", 200, "search_empty_answer.json"))
	tr := noNodeAPIs{}
	for _, path := range []string{"/_nodes/_local/stats/jvm,breaker,thread_pool", "/_cluster/health"} {
		req, err := http.NewRequest(http.MethodGet, url+path, nil)
		require.NoError(t, err)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
	_, err := engine(t, url).Search(context.Background(), books.QueryOf("9780306406157", 20, 0))
	require.NoError(t, err)
}
