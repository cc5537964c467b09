package dynamo

import (
	"context"
	"errors"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// postingItem is one word of one book in the search index: PK
// TERM#<word>, SK the rank order of books.Indexing.SortKey. It carries the
// folded title and author text so that a search verifies the other query
// words from the posting alone, and nothing else (no type attribute
// either): a Query pays for every byte of every item it reads.
type postingItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	TitleKey  string `dynamo:"titleKey"`
	AuthorKey string `dynamo:"authorKey"`
}

func postingItems(bookID string, ix books.Indexing) []postingItem {
	out := make([]postingItem, len(ix.Tokens))
	for i, w := range ix.Tokens {
		k := PostingKey(w, ix.SortKey(i, bookID))
		out[i] = postingItem{PK: k.PK, SK: k.SK, TitleKey: ix.TitleKey, AuthorKey: ix.AuthorKey}
	}
	return out
}

// wordItem is an indexed word, for prefix completion (WordKey).
type wordItem struct {
	PK string `dynamo:"PK"`
	SK string `dynamo:"SK"`
}

// RankedPostings reads up to limit postings of a word in rank order: one
// Query of the word's partition with Limit, starting after the sort key
// after, projected to the sort key and the two text attributes.
// Eventually consistent: a book imported a moment ago may be missing from
// a search for that moment.
func (s *Books) RankedPostings(ctx context.Context, word, after string, limit int) ([]books.Posting, bool, error) {
	q := s.t.table.Get(AttrPK, PostingPartition(word)).Project(AttrSK, "titleKey", "authorKey")
	if after != "" {
		q = q.Range(AttrSK, dynamo.Greater, after)
	}
	var items []postingItem
	next, err := q.Limit(limit).AllWithLastEvaluatedKey(ctx, &items)
	if err != nil {
		return nil, false, fmt.Errorf("query postings of %q after %q: %w", word, after, err)
	}
	out := make([]books.Posting, len(items))
	for i, it := range items {
		out[i] = books.Posting{SortKey: it.SK, TitleKey: it.TitleKey, AuthorKey: it.AuthorKey}
	}
	return out, next != nil && len(items) == limit, nil
}

// MatchingPostings reads up to scan postings of a word after the sort key
// after (one Query: Limit is the number of items read, before the filter)
// and returns those whose titleKey or authorKey contains every one of
// words; DynamoDB bills what it read, not what it returned. The page
// stays under the 1 MB a Query reads at most while scan is within a few
// thousand postings (about 100 bytes each).
func (s *Books) MatchingPostings(ctx context.Context, word, after string, scan int, words []string) ([]books.Posting, string, bool, error) {
	q := s.t.table.Get(AttrPK, PostingPartition(word)).Project(AttrSK, "titleKey", "authorKey").SearchLimit(scan)
	if after != "" {
		q = q.Range(AttrSK, dynamo.Greater, after)
	}
	for _, w := range words {
		q = q.Filter("(contains($, ?) OR contains($, ?))", "titleKey", w, "authorKey", w)
	}
	var items []postingItem
	next, err := q.AllWithLastEvaluatedKey(ctx, &items)
	if err != nil {
		return nil, "", false, fmt.Errorf("query postings of %q matching %q after %q: %w", word, words, after, err)
	}
	out := make([]books.Posting, len(items))
	for i, it := range items {
		out[i] = books.Posting{SortKey: it.SK, TitleKey: it.TitleKey, AuthorKey: it.AuthorKey}
	}
	if next == nil {
		return out, "", false, nil
	}
	var last string
	if v, ok := next[AttrSK].(*types.AttributeValueMemberS); ok {
		last = v.Value
	}
	if last == "" {
		return nil, "", false, fmt.Errorf("query postings of %q: a page key without %s", word, AttrSK)
	}
	return out, last, true, nil
}

// Completions reads the indexed words starting with prefix: one Query of
// the prefix's word partition, begins_with on the sort key.
func (s *Books) Completions(ctx context.Context, prefix string, limit int) ([]string, error) {
	var items []wordItem
	k := WordKey(prefix)
	err := s.t.table.Get(AttrPK, k.PK).Range(AttrSK, dynamo.BeginsWith, prefix).Project(AttrSK).Limit(limit).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("query words starting %q: %w", prefix, err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.SK
	}
	return out, nil
}

// PutWords writes word items (idempotent puts) in batches.
func (s *Books) PutWords(ctx context.Context, words []string) error {
	items := make([]any, len(words))
	for i, w := range words {
		k := WordKey(w)
		items[i] = wordItem{PK: k.PK, SK: k.SK}
	}
	return s.t.putItems(ctx, items)
}

// putItems writes items with BatchWriteItem, 25 a call (the call's
// limit; guregu/dynamo retries unprocessed items), up to
// writeConcurrency calls at once.
func (t *table) putItems(ctx context.Context, items []any) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writeConcurrency)
	for start := 0; start < len(items); start += 25 {
		chunk := items[start:min(start+25, len(items))]
		g.Go(func() error { return t.putBatch(gctx, chunk) })
	}
	return g.Wait()
}

// putBatch writes up to 25 items with one BatchWriteItem (and its
// retries of unprocessed items), each attempt bounded by
// batchWriteTimeout and tried again when it runs out: a request that
// hangs (seen with DynamoDB Local under heavy load; the SDK's HTTP client
// has no timeout of its own) would otherwise stop a bulk import for good.
// Puts are idempotent, so an attempt that did land is harmless to repeat.
func (t *table) putBatch(ctx context.Context, items []any) error {
	var err error
	for attempt := 0; attempt < batchWriteAttempts; attempt++ {
		actx, cancel := context.WithTimeout(ctx, batchWriteTimeout)
		_, err = t.table.Batch(AttrPK, AttrSK).Write().Put(items...).Run(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("write %d items: %w", len(items), err)
	}
	return nil
}

// batchWriteTimeout bounds one BatchWriteItem attempt of putBatch: a call
// takes milliseconds, or seconds when throttled items are retried or
// DynamoDB Local's one writer thread is starved; only a hung one takes
// minutes.
const (
	batchWriteTimeout  = 2 * time.Minute
	batchWriteAttempts = 3
)

// writeConcurrency bounds the BatchWriteItem calls putItems has in
// flight: enough to keep a bulk import's writes overlapping, few enough
// not to trip a provisioned table's throttling all at once (throttled
// items come back unprocessed and are retried).
const writeConcurrency = 16
