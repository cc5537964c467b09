// Package reviews is the review domain: a reader's rating (1-5) and text
// about a book, one per reader and book, with likes; the rules for
// creating, changing and deleting reviews, and the lists of a book's and a
// reader's reviews. The book's rating statistics (totalReviews, ratingSum,
// rating1..rating5 on books.Book) change in the same storage transaction
// as the review. It imports no AWS and no HTTP package; storage is reached
// through Storer.
package reviews

import (
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/text"
)

// Rating bounds (spec: rating 1-5; 1 Poor ... 5 Excellent).
const (
	MinRating = 1
	MaxRating = 5
)

// MaxContentRunes is the longest review text accepted. The spec gives no
// bound; 5,000 characters is a long review and keeps an item far below
// DynamoDB's 400 KB (docs/decisions.md, "Reviews").
const MaxContentRunes = 5000

// Review is one reader's review of one book, as stored.
type Review struct {
	ID        string
	UserID    string
	BookID    string
	Rating    int // 1-5
	Content   string
	LikeCount int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// View is a review as a client sees it: with its author and book as they
// are now and the viewer's own like (posts.View).
type View = posts.View[*Review]

// Ref names the review's author and book for a page's context.
func (r *Review) Ref() posts.Ref {
	return posts.Ref{ID: r.ID, UserID: r.UserID, BookID: r.BookID, Unliked: r.LikeCount == 0}
}

// Sort is the order of a book's review list.
type Sort string

// Sort orders (spec: sort=recent|rating, default recent).
const (
	SortRecent Sort = "recent" // newest first
	SortRating Sort = "rating" // highest rating first, then newest
)

// ParseSort reads the sort query parameter; "" is SortRecent. Errors:
// ValidationError for any other value.
func ParseSort(s string) (Sort, error) {
	switch Sort(s) {
	case "", SortRecent:
		return SortRecent, nil
	case SortRating:
		return SortRating, nil
	}
	return "", apperr.Validation("sort must be recent or rating", map[string]string{"sort": "must be recent or rating"})
}

// BookPage is a page of a book's reviews with the book, whose counters are
// the rating statistics shown beside the list.
type BookPage struct {
	page.Page[View]
	Book *books.Book
}

// NewReview is the body of POST /reviews.
type NewReview struct {
	BookID  string
	Rating  int
	Content string
}

// UpdateReview is a partial update: nil fields keep their value.
type UpdateReview struct {
	Rating  *int
	Content *string
}

// Errors of reviews. Storage returns them wrapped with context.
var (
	ErrNotFound  = apperr.NotFound("Review not found")
	ErrNotAuthor = apperr.Forbidden("Only the author can change or delete this review")
	// ErrExists: the user has a review of the book already (a concurrent
	// POST created it): the service updates that one instead. It never
	// reaches a client.
	ErrExists = errors.New("reviews: the user has reviewed this book already")
	// ErrChanged: the stored review's rating is no longer the one the
	// change was computed from (a concurrent update), or the review is
	// gone: the service re-reads and tries again, so the book's
	// statistics stay exact. It never reaches a client.
	ErrChanged = errors.New("reviews: review changed since it was read")
)

// ValidateRating checks a rating: an integer from 1 to 5.
func ValidateRating(r int) string {
	if r < MinRating || r > MaxRating {
		return "must be an integer from 1 to 5"
	}
	return ""
}

// normalizeContent trims the text and checks its length. Text with
// nothing visible (text.Blank) is no content: a rating alone.
func normalizeContent(s string) (string, string) {
	if s = strings.TrimSpace(s); text.Blank(s) {
		return "", ""
	}
	if n := utf8.RuneCountInString(s); n > MaxContentRunes {
		return s, "must be at most " + strconv.Itoa(MaxContentRunes) + " characters (got " + strconv.Itoa(n) + ")"
	}
	return s, ""
}
