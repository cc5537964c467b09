// Package wishlists is the wishlists domain: a reader's lists of books
// they want, public or private, with a priority and notes per book; the
// per-tier limit on how many a reader keeps; who may see and change
// them; and the service behind the wishlists endpoint group. It imports
// no AWS and no HTTP package; storage is reached through Storer.
// docs/decisions.md ("Wishlists") records the choices the spec leaves
// open.
package wishlists

import (
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/users"
)

// Limits of what a wishlist holds (the spec shows none).
const (
	MaxNameRunes        = 100
	MaxDescriptionRunes = 1000
	MaxNotesRunes       = 1000
	// Priority 1 is the highest (spec); a book added without one gets
	// DefaultPriority, the middle of the range.
	MinPriority     = 1
	MaxPriority     = 10
	DefaultPriority = 5
	// DefaultMaxItems bounds a wishlist (Limits.Items, configuration), so
	// that its single view, which the spec gives with every item in one
	// array, is one bounded read.
	DefaultMaxItems = 500
)

// Wishlist is a stored wishlist.
type Wishlist struct {
	ID          string
	UserID      string // the owner
	Name        string
	Description string
	IsPublic    bool
	ItemCount   int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Item is one book on a wishlist. A book is on a wishlist at most once,
// so the item's id is its book's id: unique within the wishlist, known
// to the client, and the key that makes a second add of the book fail.
type Item struct {
	ID         string // = BookID
	WishlistID string
	UserID     string // the wishlist's owner, the only one who may change it
	BookID     string
	Priority   int
	Notes      string
	AddedAt    time.Time
	UpdatedAt  time.Time
}

// View is a wishlist as its single view shows it: with its owner and its
// items, each with its book (nil when the record is missing), in
// priority order (1 first), then oldest first.
type View struct {
	*Wishlist
	Owner *users.User
	Items []ItemView
}

// ItemView is an item with its book.
type ItemView struct {
	*Item
	Book *books.Book
}

// Limits is how many wishlists a reader of each tier may keep (0 is
// unlimited) and how many books one wishlist may hold (0:
// DefaultMaxItems). Configuration (WISHLIST_LIMIT_*, WISHLIST_MAX_ITEMS).
type Limits struct {
	Free, Premium, Bookstore int
	Items                    int
}

// MaxItems is how many books one wishlist may hold.
func (l Limits) MaxItems() int {
	if l.Items <= 0 {
		return DefaultMaxItems
	}
	return l.Items
}

// For returns the limit of tier t (0: unlimited). An unknown tier gets
// the free tier's.
func (l Limits) For(t users.Tier) int {
	switch t {
	case users.TierPremium:
		return l.Premium
	case users.TierBookstore:
		return l.Bookstore
	}
	return l.Free
}

// NewWishlist is a request to create a wishlist.
type NewWishlist struct {
	Name        string
	Description string
	IsPublic    bool
}

// UpdateWishlist is a partial update of a wishlist: nil fields keep their value.
type UpdateWishlist struct {
	Name        *string
	Description *string
	IsPublic    *bool
}

// NewItem is a request to add a book to a wishlist.
type NewItem struct {
	BookID   string
	Priority *int // nil: DefaultPriority
	Notes    string
}

// UpdateItem is a partial update of an item: nil fields keep their value.
type UpdateItem struct {
	Priority *int
	Notes    *string
}

// Errors of wishlists. Storage returns them wrapped with context.
var (
	ErrNotFound     = apperr.NotFound("Wishlist not found")
	ErrItemNotFound = apperr.NotFound("Wishlist item not found")
	ErrNotOwner     = apperr.Forbidden("Only the owner can change this wishlist")
	// ErrPrivate: a private wishlist asked for by another account.
	ErrPrivate = apperr.Forbidden("This wishlist is private")
	// ErrSignInRequired: a private wishlist asked for without a token.
	ErrSignInRequired = apperr.Unauthorized("This wishlist is private: sign in as its owner")
	// ErrAlreadyListed: the book is on the wishlist already (the spec's
	// 400).
	ErrAlreadyListed = apperr.Validation("Book already in wishlist", map[string]string{"bookId": "is already in this wishlist"})
	// ErrFull: the wishlist holds as many books as it may (storage's
	// sentinel; the service answers it with the figure, full).
	ErrFull = apperr.Validation("This wishlist is full", nil)
	// ErrLimitReached is what storage returns when the owner's wishlist
	// count is at the tier's limit; the service answers it with the
	// limit's details (limitReached).
	ErrLimitReached = apperr.Forbidden("Wishlist limit reached")
)

// full is the 400 of a book added to a full wishlist.
func full(max int) error {
	return apperr.Validation(fmt.Sprintf("A wishlist holds at most %d books", max),
		map[string]string{"bookId": fmt.Sprintf("this wishlist holds %d books already, the most it can", max)})
}

// limitReached is the 403 of a create at the tier's limit, with what a
// client needs to explain it.
func limitReached(tier users.Tier, limit, current int) error {
	plural := "s"
	if limit == 1 {
		plural = ""
	}
	return apperr.Forbidden("Wishlist limit reached: %s accounts can keep %d wishlist%s", tier, limit, plural).
		WithDetails(map[string]any{"error": "wishlist_limit_reached", "tier": string(tier), "limit": limit, "current": current})
}

// checkPriority returns a message when p is out of range.
func checkPriority(p int) string {
	if p < MinPriority || p > MaxPriority {
		return fmt.Sprintf("must be an integer from %d (highest) to %d", MinPriority, MaxPriority)
	}
	return ""
}
