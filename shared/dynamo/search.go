package dynamo

import (
	"context"
	"fmt"

	"github.com/bookplatform/backend/shared/books"
	"github.com/guregu/dynamo/v2"
)

// postingItem is one word of one book in the search index: PK
// TOK#<first three characters of the word>, SK <word>#<bookId>. It carries
// the folded title and author text so that a search matches and ranks
// candidates from the posting list alone, and nothing else (no type
// attribute either): the lists of common words are long, and a Query pays
// for every byte of every item it reads.
type postingItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	TitleKey  string `dynamo:"titleKey"`
	AuthorKey string `dynamo:"authorKey"`
}

func postingItems(bookID string, ix books.Indexing) []postingItem {
	out := make([]postingItem, len(ix.Tokens))
	for i, w := range ix.Tokens {
		k := PostingKey(w, bookID)
		out[i] = postingItem{PK: k.PK, SK: k.SK, TitleKey: ix.TitleKey, AuthorKey: ix.AuthorKey}
	}
	return out
}

// Postings reads one posting list whole: a Query of the word's partition
// with begins_with on the sort key (the word and "#" for an exact word,
// the bare word for a prefix), projected to the sort key and the two text
// attributes, paged until done. Eventually consistent: a book imported a
// moment ago may be missing from a search for that moment.
func (s *Books) Postings(ctx context.Context, t books.Term) ([]books.Posting, error) {
	var items []postingItem
	err := s.t.table.Get(AttrPK, PostingKey(t.Word, "").PK).
		Range(AttrSK, dynamo.BeginsWith, postingRange(t)).
		Project(AttrSK, "titleKey", "authorKey").
		All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("query postings of %q (prefix %t): %w", t.Word, t.Prefix, err)
	}
	out := make([]books.Posting, len(items))
	for i, it := range items {
		out[i] = books.Posting{BookID: postingBookID(it.SK), TitleKey: it.TitleKey, AuthorKey: it.AuthorKey}
	}
	return out, nil
}
