package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bookplatform/backend/shared/books"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// TotalHitsCap is how far OpenSearch counts matches (track_total_hits):
// past it, total is this and flagged as a lower bound, as the table's
// index flags a list it did not read to its end.
const TotalHitsCap = 10000

// maxWindow is the deepest place a search reaches (from + size), the
// index's default max_result_window: a page past it is cut short, and
// there total is a lower bound anyway.
const maxWindow = 10000

// Fields searched: a word matches the folded title or authors; the last
// word of a type-ahead matches their prefix subfields.
var (
	wordFields   = []string{"title", "authors"}
	prefixFields = []string{"title.prefix", "authors.prefix"}
)

// Scores are constant (a filter decides what matches, constant_score
// what ranks first), so one query ranks the same on every shard and
// replica, and a page's neighbours are the same on the next request: a
// book whose title holds every query word scores titleBoost, one whose
// title also starts with the query's words (folded, in order) adds
// titleStartBoost, as the table's index puts a title's first word first.
const (
	titleBoost      = 2
	titleStartBoost = 1
)

// Search answers q from the index (books.Searcher): an ISBN matches that
// book's isbn13 only; otherwise every word must match the title or
// authors, the last as a prefix when q.PrefixLast; books whose title
// holds every word come first (those it starts with before the others),
// then by popularity, then by title, then by book id, a key unique to the
// book, so offset pages neither repeat nor skip while
// the index is unchanged. The page's books are read from the table.
func (e *Engine) Search(ctx context.Context, q books.Query) (books.SearchResult, error) {
	if q.ISBN13 == "" && len(q.Words) == 0 {
		return books.SearchResult{Items: []*books.Book{}}, nil
	}
	body, err := json.Marshal(searchBody(q))
	if err != nil {
		return books.SearchResult{}, err
	}
	resp, err := e.client.Search(ctx, &opensearchapi.SearchReq{Indices: []string{e.index}, Body: bytes.NewReader(body)})
	if err != nil {
		return books.SearchResult{}, fmt.Errorf("search %q in %s: %w", q.Text, e.index, err)
	}
	res := books.SearchResult{Items: []*books.Book{}, Total: resp.Hits.Total.Value, TotalIsLowerBound: resp.Hits.Total.Relation == "gte"}
	if len(resp.Hits.Hits) == 0 {
		return res, nil
	}
	ids := make([]string, len(resp.Hits.Hits))
	for i, h := range resp.Hits.Hits {
		ids[i] = h.ID
	}
	page, err := e.books.GetBooks(ctx, ids)
	if err != nil {
		return books.SearchResult{}, fmt.Errorf("search %q: read page: %w", q.Text, err)
	}
	res.Items = page
	return res, nil
}

// obj is a JSON object of the query DSL.
type obj = map[string]any

// searchBody is the request body of q's search.
func searchBody(q books.Query) obj {
	from := min(q.Offset, maxWindow)
	body := obj{
		"from":             from,
		"size":             min(q.Limit, maxWindow-from),
		"track_total_hits": TotalHitsCap,
		"_source":          false,
		"sort": []obj{
			{"_score": obj{"order": "desc"}},
			{"popularity": obj{"order": "desc"}},
			{"title.sort": obj{"order": "asc"}},
			{"bookId": obj{"order": "asc"}},
		},
	}
	if q.ISBN13 != "" {
		body["query"] = obj{"bool": obj{"filter": []obj{{"term": obj{"isbn13": q.ISBN13}}}}}
		return body
	}
	var all, title []obj
	for i, w := range q.Words {
		fields, titleField := wordFields, "title"
		if q.PrefixLast && i == len(q.Words)-1 {
			fields, titleField = prefixFields, "title.prefix"
		}
		all = append(all, obj{"multi_match": obj{"query": w, "fields": fields, "operator": "and"}})
		title = append(title, obj{"match": obj{titleField: obj{"query": w, "operator": "and"}}})
	}
	body["query"] = obj{"bool": obj{
		"filter": all,
		"should": []obj{
			{"constant_score": obj{"filter": obj{"bool": obj{"filter": title}}, "boost": titleBoost}},
			{"constant_score": obj{"filter": titleStart(q), "boost": titleStartBoost}},
		},
	}}
	return body
}

// titleStart matches a title that starts with q's words: their prefix
// when the last word is one, else the words whole (the title itself, or
// followed by a space), so "it" does not count "Italy" as starting with it.
func titleStart(q books.Query) obj {
	key := strings.Join(q.Words, " ")
	if q.PrefixLast {
		return obj{"prefix": obj{"title.sort": key}}
	}
	return obj{"bool": obj{"should": []obj{
		{"term": obj{"title.sort": key}},
		{"prefix": obj{"title.sort": key + " "}},
	}}}
}
