// Package posts holds what lines and reviews share as posts by a reader
// about a book: reading, for a page of them, the authors, the books and the
// viewer's likes that the page shows beside each post.
package posts

import (
	"context"
	"sync"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/users"
)

// Ref names one post of a page: its id, author and book.
type Ref struct {
	ID, UserID, BookID string
}

// Context is what a page shows beside its posts. Unknown ids are absent.
type Context struct {
	Authors map[string]*users.User
	Books   map[string]*books.Book
	Liked   map[string]bool // by post id, for the viewer
}

// Reader reads accounts and books by id in one batch; unknown ids are
// absent from the maps, repeated ids are read once.
type Reader interface {
	GetUsersAndBooks(ctx context.Context, userIDs, bookIDs []string) (map[string]*users.User, map[string]*books.Book, error)
}

// LikedBy reports which of the posts (by id) the viewer likes; no viewer,
// no call.
type LikedBy func(ctx context.Context, viewerID string, ids []string) (map[string]bool, error)

// Load reads a page's context: one batch read for the authors and for the
// books not in known (a book page has read its book already), and beside
// it, concurrently, one for the viewer's likes.
func Load(ctx context.Context, r Reader, likedBy LikedBy, viewerID string, refs []Ref, known map[string]*books.Book) (Context, error) {
	if len(refs) == 0 {
		return Context{Authors: map[string]*users.User{}, Books: map[string]*books.Book{}, Liked: map[string]bool{}}, nil
	}
	ids := make([]string, len(refs))
	var userIDs, bookIDs []string
	for i, p := range refs {
		ids[i] = p.ID
		userIDs = append(userIDs, p.UserID)
		if known[p.BookID] == nil {
			bookIDs = append(bookIDs, p.BookID)
		}
	}
	var (
		c                Context
		readErr, likeErr error
		wg               sync.WaitGroup
	)
	wg.Go(func() { c.Authors, c.Books, readErr = r.GetUsersAndBooks(ctx, userIDs, bookIDs) })
	wg.Go(func() { c.Liked, likeErr = likedBy(ctx, viewerID, ids) })
	wg.Wait()
	if readErr != nil {
		return Context{}, readErr
	}
	if likeErr != nil {
		return Context{}, likeErr
	}
	for id, b := range known {
		c.Books[id] = b
	}
	return c, nil
}
