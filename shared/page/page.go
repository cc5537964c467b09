// Package page is the vocabulary of lists: what a client asks for (a
// cursor page or an offset page) and what a list answers. Storage makes
// and reads the next-page tokens; the HTTP adapter seals them into the
// opaque cursors clients see. Every list of every group uses these types.
package page

import "github.com/bookplatform/backend/shared/apperr"

// Cursor-list limits (spec: Limits, "Cursor lists limit").
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// MaxOffset is the largest offset of an offset list: a page at offset n
// reads n entries it then skips, so the offset is bounded like the limit
// (Elasticsearch's max_result_window is the same figure). A client goes
// further with the list's filters, not its offset.
const MaxOffset = 10000

// Cursor asks for one page of a cursor list: at most Limit items after
// the position After, a token the storage issued with the previous page
// ("" for the first page).
type Cursor struct {
	Limit int
	After string
}

// First is the first page of Limit items.
func First(limit int) Cursor { return Cursor{Limit: limit} }

// Page is one page of a list and the token of the next page ("" when this
// page is the last).
type Page[T any] struct {
	Items []T
	Next  string
}

// Map converts a page's items, keeping its token.
func Map[T, U any](p Page[T], f func(T) U) Page[U] {
	out := Page[U]{Items: make([]U, len(p.Items)), Next: p.Next}
	for i, it := range p.Items {
		out.Items[i] = f(it)
	}
	return out
}

// Offset asks for one page of an offset list: Limit items from Offset.
type Offset struct {
	Limit  int
	Offset int
}

// ErrInvalidCursor is a cursor that was not issued for the list it is
// used with: altered, from another list or sort order, or malformed.
var ErrInvalidCursor = apperr.Validation("Invalid cursor", map[string]string{"cursor": "is malformed, altered or from another list"})
