package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/events"
	"github.com/guregu/dynamo/v2"
)

// Books stores the catalog: books, their ISBN claims and their search
// index postings (search.go).
type Books struct{ t *table }

var _ books.Storer = (*Books)(nil)

// bookItem is a book as stored (BookKey), with GSI1 keyed by its ISBN-13
// (bookISBNIndexKey) for reads by ISBN. The counters are
// written here only when the book is created (all 0); afterwards only the
// social features change them (ADD in their own transactions) and catalog
// updates never name them.
type bookItem struct {
	PK            string    `dynamo:"PK"`
	SK            string    `dynamo:"SK"`
	GSI1PK        string    `dynamo:"GSI1PK"`
	GSI1SK        string    `dynamo:"GSI1SK"`
	Type          string    `dynamo:"type"`
	ID            string    `dynamo:"id"`
	ISBN13        string    `dynamo:"isbn13"`
	ISBN10        string    `dynamo:"isbn10"`
	Title         string    `dynamo:"title"`
	Authors       []string  `dynamo:"authors"`
	Publisher     string    `dynamo:"publisher"`
	PublishedDate string    `dynamo:"publishedDate"`
	Description   string    `dynamo:"description"`
	PageCount     int       `dynamo:"pageCount"`
	Language      string    `dynamo:"language"`
	Categories    []string  `dynamo:"categories"`
	TotalLines    int       `dynamo:"totalLines"`
	TotalReviews  int       `dynamo:"totalReviews"`
	RatingSum     int       `dynamo:"ratingSum"`
	Rating1       int       `dynamo:"rating1"`
	Rating2       int       `dynamo:"rating2"`
	Rating3       int       `dynamo:"rating3"`
	Rating4       int       `dynamo:"rating4"`
	Rating5       int       `dynamo:"rating5"`
	CreatedAt     time.Time `dynamo:"createdAt"`
	UpdatedAt     time.Time `dynamo:"updatedAt"`
	Version       int       `dynamo:"catalogVersion"`
	SearchTokens  []string  `dynamo:"searchTokens"`
	SearchRank    int       `dynamo:"searchRank"`
	IndexVersion  int       `dynamo:"searchIndex"`
}

// isbnClaimItem reserves an ISBN-13 for one book: PK ISBN#<isbn13>, SK ISBN.
type isbnClaimItem struct {
	PK     string `dynamo:"PK"`
	SK     string `dynamo:"SK"`
	Type   string `dynamo:"type"`
	BookID string `dynamo:"bookId"`
}

func toBookItem(b *books.Book) bookItem {
	k, ix := BookKey(b.ID), bookISBNIndexKey(b.ISBN13)
	return bookItem{
		PK: k.PK, SK: k.SK, GSI1PK: ix.PK, GSI1SK: ix.SK, Type: typeBook,
		ID: b.ID, ISBN13: b.ISBN13, ISBN10: b.ISBN10, Title: b.Title, Authors: b.Authors,
		Publisher: b.Publisher, PublishedDate: b.PublishedDate, Description: b.Description,
		PageCount: b.PageCount, Language: b.Language, Categories: b.Categories,
		TotalLines: b.TotalLines, TotalReviews: b.TotalReviews, RatingSum: b.RatingSum,
		Rating1: b.RatingCounts[0], Rating2: b.RatingCounts[1], Rating3: b.RatingCounts[2],
		Rating4: b.RatingCounts[3], Rating5: b.RatingCounts[4],
		CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(),
		Version: b.Version, SearchTokens: b.SearchTokens, SearchRank: b.SearchRank, IndexVersion: b.IndexVersion,
	}
}

// indexedBookItem is a new book as stored with the index ix written
// beside it: its search tokens, rank and index version are ix's, so a
// later update finds the postings (books.PriorIndexing) whatever the
// caller set.
func indexedBookItem(b *books.Book, ix books.Indexing) bookItem {
	it := toBookItem(b)
	it.SearchTokens, it.SearchRank, it.IndexVersion = ix.Tokens, ix.Rank, books.IndexVersion
	return it
}

func (it bookItem) toBook() *books.Book {
	return &books.Book{
		ID: it.ID, ISBN13: it.ISBN13, ISBN10: it.ISBN10, Title: it.Title, Authors: it.Authors,
		Publisher: it.Publisher, PublishedDate: it.PublishedDate, Description: it.Description,
		PageCount: it.PageCount, Language: it.Language, Categories: it.Categories,
		TotalLines: it.TotalLines, TotalReviews: it.TotalReviews, RatingSum: it.RatingSum,
		RatingCounts: [5]int{it.Rating1, it.Rating2, it.Rating3, it.Rating4, it.Rating5},
		CreatedAt:    it.CreatedAt, UpdatedAt: it.UpdatedAt,
		Version: it.Version, SearchTokens: it.SearchTokens, SearchRank: it.SearchRank, IndexVersion: it.IndexVersion,
	}
}

// GetBook reads a book by id. Catalog reads are eventually consistent:
// half the cost, and a book changes only when the catalog is imported or
// a review or line lands.
func (s *Books) GetBook(ctx context.Context, id string) (*books.Book, error) {
	var it bookItem
	err := s.t.get(BookKey(id)).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, fmt.Errorf("get book %s: %w", id, books.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get book %s: %w", id, err)
	}
	return it.toBook(), nil
}

// GetBookByISBN reads a book by ISBN-13 with one Query of GSI1 (the book
// item carries GSI1PK ISBN#<isbn13>), rather than the claim and then the
// book: one round trip instead of two.
func (s *Books) GetBookByISBN(ctx context.Context, isbn13 string) (*books.Book, error) {
	var it bookItem
	k := bookISBNIndexKey(isbn13)
	err := s.t.table.Get(GSI1.PartitionKey, k.PK).Range(GSI1.SortKey, dynamo.Equal, k.SK).Index(GSI1.Name).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, fmt.Errorf("get book by ISBN %s: %w", isbn13, books.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get book by ISBN %s: %w", isbn13, err)
	}
	return it.toBook(), nil
}

// GetBooksConsistent is GetBooks with strongly consistent reads (twice
// the read units): the search feed reads a changed book's state as of
// its change's event, never an older copy.
func (s *Books) GetBooksConsistent(ctx context.Context, ids []string) ([]*books.Book, error) {
	byID, err := s.batchGetBooks(ctx, ids, true)
	if err != nil {
		return nil, err
	}
	return inOrder(ids, byID), nil
}

// GetBooks reads books by id with BatchGetItem (100 keys per call,
// unprocessed keys retried) and returns them in the order of ids, leaving
// out unknown ones.
func (s *Books) GetBooks(ctx context.Context, ids []string) ([]*books.Book, error) {
	byID, err := s.batchGetBooks(ctx, ids, false)
	if err != nil {
		return nil, err
	}
	return inOrder(ids, byID), nil
}

func (s *Books) batchGetBooks(ctx context.Context, ids []string, consistent bool) (map[string]*books.Book, error) {
	out := make(map[string]*books.Book, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	items, err := batchAll[bookItem](ctx, s.t.batch(keysOf(ids, BookKey)...).Consistent(consistent))
	if err != nil {
		return nil, fmt.Errorf("batch get %d books: %w", len(ids), err)
	}
	for _, it := range items {
		out[it.ID] = it.toBook()
	}
	return out, nil
}

// FindBooksByISBN reads the ISBN claims (one consistent BatchGetItem per
// 100), then the books they name (likewise): the import's view of what
// exists, consistent so that a book created a moment ago is updated, not
// claimed again.
func (s *Books) FindBooksByISBN(ctx context.Context, isbn13s []string) (map[string]*books.Book, error) {
	out := map[string]*books.Book{}
	if len(isbn13s) == 0 {
		return out, nil
	}
	keys := make([]dynamo.Keyed, len(isbn13s))
	for i, isbn := range isbn13s {
		keys[i] = ISBNClaimKey(isbn).keyed()
	}
	claims, err := batchAll[isbnClaimItem](ctx, s.t.batch(keys...).Consistent(true))
	if err != nil {
		return nil, fmt.Errorf("batch get %d ISBN claims: %w", len(isbn13s), err)
	}
	if len(claims) == 0 {
		return out, nil
	}
	ids := make([]string, len(claims))
	for i, c := range claims {
		ids[i] = c.BookID
	}
	byID, err := s.batchGetBooks(ctx, ids, true)
	if err != nil {
		return nil, err
	}
	for _, b := range byID {
		out[b.ISBN13] = b
	}
	return out, nil
}

// errBookIDTaken is a new book's id colliding with a stored one.
var errBookIDTaken = errors.New("book id already exists")

// CreateBook writes the book (new id), its ISBN claim, its posting
// items and its book.changed event in one TransactWriteItems
// (books.MaxIndexTokens keeps it within 100 items): a crash or a lost
// race leaves nothing behind. The claim is conditional on the ISBN being
// free. Errors: books.ErrChanged (another import claimed the ISBN first).
func (s *Books) CreateBook(ctx context.Context, b *books.Book, ix books.Indexing) error {
	ev, err := books.Changed(b.CreatedAt, []string{b.ID})
	if err != nil {
		return err
	}
	claim := ISBNClaimKey(b.ISBN13)
	x := s.t.tx().
		put(s.t.put(isbnClaimItem{PK: claim.PK, SK: claim.SK, Type: typeISBNClaim, BookID: b.ID}).If("attribute_not_exists(PK)"), books.ErrChanged).
		put(s.t.put(indexedBookItem(b, ix)).If("attribute_not_exists(PK)"), errBookIDTaken)
	for _, p := range postingItems(b.ID, ix) {
		x.put(s.t.put(p), nil)
	}
	if err := x.emit(ev).run(ctx); err != nil {
		return fmt.Errorf("create book %s (ISBN %s): %w", b.ID, b.ISBN13, err)
	}
	return nil
}

// CreateBooks writes new books, their ISBN claims and their postings with
// BatchWriteItem (putItems: 25 items a call, many calls at once), without
// conditions: a bulk load is bounded by write throughput, and a
// transaction per book (which DynamoDB prices at twice the writes) runs a
// tenth as fast. The ids derive from the ISBNs (books.BookIDOf), so a
// book written twice (a resumed import, two imports racing) is the same
// items written twice. The claims and postings go first and the book
// items only once all of them landed (the importer has written the
// words before): a stored book always has its whole index. A write cut
// short (a crash, Ctrl-C, a failed call) leaves at most postings without
// their book, which search leaves out of its pages, and claims without
// their book, which FindBooksByISBN treats as absent, so the next import
// of the ISBN creates the book again. A book found by ISBN with a missing
// posting would instead read as unchanged and stay out of search.
//
// The books' book.changed events (one per books.MaxChangedBooks books)
// are put once the book items were written (putEvents), never before: an
// event names only books a consumer can read; they are put even when some
// book items failed, and past the caller's end. Only a crash between the
// book items and their events leaves books no event names, which the
// next import finds unchanged; the search feed's backfill
// (local/searchindex) repairs that (docs/decisions.md, "The search
// index's feed").
func (s *Books) CreateBooks(ctx context.Context, bs []books.NewBook) error {
	var index, bookItems []any
	for _, nb := range bs {
		b := nb.Book
		claim := ISBNClaimKey(b.ISBN13)
		bookItems = append(bookItems, indexedBookItem(b, nb.Index))
		index = append(index, isbnClaimItem{PK: claim.PK, SK: claim.SK, Type: typeISBNClaim, BookID: b.ID})
		for _, p := range postingItems(b.ID, nb.Index) {
			index = append(index, p)
		}
	}
	if err := s.t.putItems(ctx, index); err != nil {
		return fmt.Errorf("create %d books: index: %w", len(bs), err)
	}
	// The events go out after the book items were tried, even when some
	// failed: a consumer reads each named book as it is (one absent it
	// leaves out), and a book that landed must not stay unnamed, since
	// the retry of a failed import finds it unchanged and names it
	// nowhere. They are written on a context the caller's end does not
	// cancel (a client hanging up after its books landed), for a bounded
	// time.
	booksErr := s.t.putItems(ctx, bookItems)
	var evs []events.Event
	for start := 0; start < len(bs); start += books.MaxChangedBooks {
		chunk := bs[start:min(start+books.MaxChangedBooks, len(bs))]
		ids := make([]string, len(chunk))
		at := chunk[0].Book.CreatedAt
		for i, nb := range chunk {
			ids[i] = nb.Book.ID
			if nb.Book.CreatedAt.After(at) {
				at = nb.Book.CreatedAt
			}
		}
		ev, err := books.Changed(at, ids)
		if err != nil {
			return err
		}
		evs = append(evs, ev)
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eventsAfterBooksTimeout)
	defer cancel()
	evErr := s.t.putEvents(ectx, evs)
	if booksErr != nil {
		return fmt.Errorf("create %d books: %w", len(bs), errors.Join(booksErr, evErr))
	}
	if evErr != nil {
		return fmt.Errorf("create %d books: events: %w", len(bs), evErr)
	}
	return nil
}

// eventsAfterBooksTimeout bounds the writing of a bulk creation's events
// once its book items were written, past the caller's own end.
const eventsAfterBooksTimeout = 30 * time.Second

// UpdateBook sets next's catalog fields on the stored book, conditional on
// its version still being prev's, and, when ix is given, puts the posting
// items of ix and deletes those of prev's index whose keys changed (a lost
// word, a new title or rank moves a posting), or all of prev's postings of
// the first layout, and the book's book.changed event, all in one
// TransactWriteItems (at most 1 + 2 × books.MaxIndexTokens + 1 items).
// The counters are not in the update expression, so a review or line
// counted meanwhile is kept. Errors: books.ErrChanged (another import
// changed the book since prev was read).
func (s *Books) UpdateBook(ctx context.Context, prev, next *books.Book, ix *books.Indexing) error {
	ev, err := books.Changed(next.UpdatedAt, []string{prev.ID})
	if err != nil {
		return err
	}
	upd := s.t.update(BookKey(prev.ID)).
		Set("isbn10", next.ISBN10).
		Set("title", next.Title).
		Set("authors", next.Authors).
		Set("publisher", next.Publisher).
		Set("publishedDate", next.PublishedDate).
		Set("description", next.Description).
		Set("pageCount", next.PageCount).
		Set("language", next.Language).
		Set("categories", next.Categories).
		Set("updatedAt", next.UpdatedAt.UTC()).
		Set("catalogVersion", next.Version).
		Set("searchTokens", next.SearchTokens).
		Set("searchRank", next.SearchRank).
		Set("searchIndex", next.IndexVersion).
		If("attribute_exists(PK) AND catalogVersion = ?", prev.Version)
	x := s.t.tx().update(upd, books.ErrChanged)
	if ix != nil {
		keep := map[Key]bool{}
		for _, p := range postingItems(prev.ID, *ix) {
			x.put(s.t.put(p), nil)
			keep[Key{p.PK, p.SK}] = true
		}
		if prevIx := books.PriorIndexing(prev); prevIx != nil {
			for _, p := range postingItems(prev.ID, *prevIx) {
				if k := (Key{p.PK, p.SK}); !keep[k] {
					x.delete(s.t.del(k), nil)
				}
			}
		} else {
			for _, w := range prev.SearchTokens {
				x.delete(s.t.del(legacyPostingKey(w, prev.ID)), nil)
			}
		}
	}
	if err := x.emit(ev).run(ctx); err != nil {
		return fmt.Errorf("update book %s: %w", prev.ID, err)
	}
	return nil
}
