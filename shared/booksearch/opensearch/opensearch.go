// Package opensearch is the catalog search on Amazon OpenSearch
// Serverless (docs/decisions.md, "Search behind one interface"): a
// books.Searcher that queries a collection's index, and the writes that
// keep that index in step with the catalog (Index, Delete, CreateIndex).
// Requests are signed with SigV4 for the service aoss. The page's books
// are read from the table, as the table's own index does, so an answer
// has the same shape and current counters whichever engine found it;
// the index holds only what search matches and ranks on.
//
// No OpenSearch server runs where this is built and tested: the tests
// check each request against the documented API and read recorded
// answers shaped as OpenSearch documents them (testdata).
package opensearch

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/bookplatform/backend/shared/books"
	osgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
	requestsigner "github.com/opensearch-project/opensearch-go/v4/signer/awsv2"
)

// SigningService is the SigV4 service name of OpenSearch Serverless.
const SigningService = "aoss"

// Books reads the page's books from the catalog (dynamo.Books).
type Books interface {
	// GetBooks reads books by id in the order of ids; unknown ids are
	// left out.
	GetBooks(ctx context.Context, ids []string) ([]*books.Book, error)
}

// Engine searches and writes one index of a collection.
type Engine struct {
	client *opensearchapi.Client
	index  string
	books  Books
}

// Config is where the index is.
type Config struct {
	// Endpoint is the collection's endpoint,
	// https://<id>.<region>.aoss.amazonaws.com.
	Endpoint string
	Index    string
	// AWS signs the requests (its credentials and region); nil sends
	// them unsigned (the tests).
	AWS *aws.Config
	// Transport is the HTTP transport; nil is the default.
	Transport http.RoundTripper
}

// New returns the engine of cfg's index, reading pages through bs.
func New(cfg Config, bs Books) (*Engine, error) {
	oc := osgo.Config{
		Addresses: []string{cfg.Endpoint},
		Transport: noNodeAPIs{next: cfg.Transport},
		// A Serverless collection is one endpoint behind a load balancer:
		// there are no nodes to discover or health-check.
		DiscoverNodesOnStart:  new(false),
		HealthCheckMaxRetries: -1,
	}
	if cfg.AWS != nil {
		s, err := requestsigner.NewSignerWithService(*cfg.AWS, SigningService)
		if err != nil {
			return nil, fmt.Errorf("opensearch signer: %w", err)
		}
		oc.Signer = s
	}
	c, err := opensearchapi.NewClient(opensearchapi.Config{Client: oc})
	if err != nil {
		return nil, fmt.Errorf("opensearch client for %s: %w", cfg.Endpoint, err)
	}
	return &Engine{client: c, index: cfg.Index, books: bs}, nil
}

var _ books.Searcher = (*Engine)(nil)

// noNodeAPIs answers the client's own background requests to the
// cluster's node and health APIs (opensearch-go polls GET
// /_nodes/_local/stats every 5 seconds from a goroutine for as long as
// the client lives, with no option of its Config to turn it off) with a
// 404 of its own instead of sending them: a Serverless collection has no
// nodes to poll and no such API, so each would be a signed request
// refused, from every function that searches or feeds the index. The
// engine itself calls neither.
type noNodeAPIs struct{ next http.RoundTripper }

func (t noNodeAPIs) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, "/_nodes") || strings.HasPrefix(r.URL.Path, "/_cluster") {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return &http.Response{StatusCode: http.StatusNotFound, Status: "404 Not Found", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	}
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// indexBody is the index's settings and mapping: title and authors as
// text folded as books.Tokenize folds (lower case, accents off), each with
// a prefix subfield of edge n-grams for the type-ahead (a query's last
// word is cut to the longest gram, so a longer word still finds its
// books); the ISBNs and the book id as keywords; popularity as a number.
//
//go:embed index.json
var indexBody []byte

// CreateIndex creates the index with its mapping; an index that exists
// already is left as it is.
func (e *Engine) CreateIndex(ctx context.Context) error {
	_, err := e.client.Indices.Create(ctx, opensearchapi.IndicesCreateReq{Index: e.index, Body: bytes.NewReader(indexBody)})
	var se *osgo.StructError
	if errors.As(err, &se) && se.Err.Type == "resource_already_exists_exception" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create index %s: %w", e.index, err)
	}
	return nil
}

// document is a book as the index holds it.
type document struct {
	BookID  string   `json:"bookId"`
	ISBN13  string   `json:"isbn13"`
	ISBN10  string   `json:"isbn10,omitempty"`
	Title   string   `json:"title"`
	Authors []string `json:"authors"`
	// Popularity is reviews plus lines, the signal books.RankOf buckets
	// for the table's index.
	Popularity int `json:"popularity"`
}

func documentOf(b *books.Book) document {
	authors := b.Authors
	if authors == nil {
		authors = []string{}
	}
	return document{BookID: b.ID, ISBN13: b.ISBN13, ISBN10: b.ISBN10, Title: b.Title, Authors: authors,
		Popularity: max(0, b.TotalReviews+b.TotalLines)}
}

// Index writes a book's document under its id, replacing the one there:
// writing the same book twice (a change event delivered again) leaves
// one document.
func (e *Engine) Index(ctx context.Context, b *books.Book) error {
	body, err := json.Marshal(documentOf(b))
	if err != nil {
		return err
	}
	if _, err := e.client.Index(ctx, opensearchapi.IndexReq{Index: e.index, DocumentID: b.ID, Body: bytes.NewReader(body)}); err != nil {
		return fmt.Errorf("index book %s: %w", b.ID, err)
	}
	return nil
}

// Delete removes a book's document; one already gone is no error.
func (e *Engine) Delete(ctx context.Context, id string) error {
	resp, err := e.client.Document.Delete(ctx, opensearchapi.DocumentDeleteReq{Index: e.index, DocumentID: id})
	if err != nil && resp != nil && resp.Inspect().Response != nil && resp.Inspect().Response.StatusCode == http.StatusNotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete book %s: %w", id, err)
	}
	return nil
}

// ErrIndexMissing is in the error of a write that OpenSearch refused
// because the index does not exist (its documented
// index_not_found_exception, status 404): the caller may CreateIndex
// and write again (the search feed does, so that a deployment whose
// backfill has not run yet does not fail every catalog change).
var ErrIndexMissing = errors.New("the index does not exist")

// indexMissing reports whether an error object OpenSearch answered (the
// request's or a bulk item's) says the index does not exist.
func indexMissing(errType string, status int) bool {
	return errType == "index_not_found_exception" && status == http.StatusNotFound
}

// IndexBooks writes many books' documents with one bulk request (a
// backfill, local/searchindex), each under its id as Index writes it. A
// document OpenSearch refuses does not stop the others: the error names
// how many were refused and the first one's reason. A write refused
// because the index does not exist, as the whole request or as any
// document, gives an error that is ErrIndexMissing.
func (e *Engine) IndexBooks(ctx context.Context, bs []*books.Book) error {
	if len(bs) == 0 {
		return nil
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	for _, b := range bs {
		if err := enc.Encode(map[string]map[string]string{"index": {"_id": b.ID}}); err != nil {
			return err
		}
		if err := enc.Encode(documentOf(b)); err != nil {
			return err
		}
	}
	resp, err := e.client.Bulk(ctx, opensearchapi.BulkReq{Index: e.index, Body: &body})
	var se *osgo.StructError
	if errors.As(err, &se) && indexMissing(se.Err.Type, se.Status) {
		return fmt.Errorf("index %d books: %w: %w", len(bs), ErrIndexMissing, err)
	}
	if err != nil {
		return fmt.Errorf("index %d books: %w", len(bs), err)
	}
	if !resp.Errors {
		return nil
	}
	var refused int
	var first string
	var missing bool
	for _, item := range resp.Items {
		for _, it := range item {
			if it.Error != nil {
				if refused == 0 {
					first = fmt.Sprintf("book %s: %s: %s", it.ID, it.Error.Type, it.Error.Reason)
				}
				refused++
				missing = missing || indexMissing(it.Error.Type, it.Status)
			}
		}
	}
	if missing {
		return fmt.Errorf("index %d books: %d refused, the first %s: %w", len(bs), refused, first, ErrIndexMissing)
	}
	return fmt.Errorf("index %d books: %d refused, the first %s", len(bs), refused, first)
}
