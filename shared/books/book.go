// Package books is the catalog domain: the book type, ISBN rules, the
// text folding and ranking of catalog search, catalog records and their
// import, and the service behind the books endpoint group. It imports no
// AWS and no HTTP package; storage is reached through Storer.
package books

import (
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Book is a catalog entry. The catalog fields come from an import; the
// counters are kept by the social features (reviews and lines change them
// in the same transaction as the review or line) and an import never
// writes them.
type Book struct {
	ID            string
	ISBN13        string // bare digits, always set
	ISBN10        string // bare digits, "" for 979 books
	Title         string
	Authors       []string
	Publisher     string
	PublishedDate string // YYYY-MM-DD, YYYY-MM or YYYY, as precisely as known
	Description   string
	PageCount     int
	Language      string // ISO 639-1, "" when unknown
	Categories    []string

	TotalLines   int
	TotalReviews int
	RatingSum    int
	// RatingCounts[i] is the number of reviews rating the book i+1.
	RatingCounts [5]int

	CreatedAt time.Time
	UpdatedAt time.Time

	// Version counts catalog changes; storage makes an update conditional
	// on it so two imports of one book cannot interleave.
	Version int
	// SearchTokens are the words the book's search index items are
	// stored under, as last written; an update deletes the ones no longer
	// produced.
	SearchTokens []string
	// SearchRank is the popularity bucket (RankOf) the postings were
	// written with: their sort keys hold it, so it finds them again.
	SearchRank int
	// IndexVersion is the index layout the postings were written in
	// (IndexVersion; 0 for the first layout).
	IndexVersion int
}

// NewBook is a book to create with its index entry.
type NewBook struct {
	Book  *Book
	Index Indexing
}

// bookNamespace names the ids BookIDOf derives (a version 5 UUID space).
var bookNamespace = uuid.MustParse("6f1c2a4e-3b7d-5e8f-9a0b-1c2d3e4f5a6b")

// BookIDOf is the id a new book of an ISBN-13 gets: a name-based UUID, so
// an import that is resumed, repeated or raced writes the same book again
// instead of a second one. Books created before ids were derived keep
// their random ids (the ISBN claim names them).
func BookIDOf(isbn13 string) string {
	return uuid.NewSHA1(bookNamespace, []byte(isbn13)).String()
}

// ISBN is the form the API shows as "isbn": the ISBN-13, which every book
// has (979 books have no ISBN-10).
func (b *Book) ISBN() string { return b.ISBN13 }

// CoverURL is the Open Library cover of the book's ISBN-13.
func (b *Book) CoverURL() string { return CoverURL(b.ISBN13) }

// CoverURL returns the Open Library large cover image of an ISBN-13.
func CoverURL(isbn13 string) string {
	return "https://covers.openlibrary.org/b/isbn/" + isbn13 + "-L.jpg"
}

// AverageRating is the mean review rating rounded to two decimals, 0 when
// the book has no review.
func (b *Book) AverageRating() float64 {
	if b.TotalReviews <= 0 {
		return 0
	}
	return math.Round(float64(b.RatingSum)/float64(b.TotalReviews)*100) / 100
}

// sameCatalog reports whether two books have the same catalog fields, the
// ones an import writes.
func sameCatalog(a, b *Book) bool {
	return a.ISBN13 == b.ISBN13 && a.ISBN10 == b.ISBN10 && a.Title == b.Title &&
		slices.Equal(a.Authors, b.Authors) && a.Publisher == b.Publisher &&
		a.PublishedDate == b.PublishedDate && a.Description == b.Description &&
		a.PageCount == b.PageCount && a.Language == b.Language &&
		slices.Equal(a.Categories, b.Categories)
}
