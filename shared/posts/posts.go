// Package posts holds what lines and reviews share as posts by a reader
// about a book: the readers of accounts and books they need, and the
// page context, which reads, for a page of posts, the authors, the books
// and the viewer's likes the page shows beside each post.
package posts

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Users reads the accounts a post service needs: the poster again, for
// the quota's re-read, and the owner of a list by name.
type Users interface {
	// GetUser reads an account, strongly consistent. Errors: users.ErrNotFound.
	GetUser(ctx context.Context, id string) (*users.User, error)
	// UserIDByUsername resolves a username, in any case, to its account
	// id. Errors: users.ErrNotFound.
	UserIDByUsername(ctx context.Context, username string) (string, error)
}

// Books reads the book a post is about. Errors: books.ErrNotFound.
type Books interface {
	GetBook(ctx context.Context, id string) (*books.Book, error)
}

// Ref names one post of a page: its id, author and book.
type Ref struct {
	ID, UserID, BookID string
	// Unliked is set when the post was read with a likeCount of 0:
	// nobody likes it, the viewer included, so its like is not looked
	// up. Most posts of a page have no like, and a like looked up costs
	// a read whether it exists or not. The count and the like then
	// agree even while the list's index has not caught up with a new
	// like: both show it not there yet.
	Unliked bool
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

// Known is the account a request has read already: its caller's, which
// the router reads strongly consistent for every signed-in request
// (httpapi.CallerOf(r)). ID is there at once ("" when anonymous); User
// returns the record, waiting for the router's read in an early GET's
// handler, which a refused request stops inside User by a panic that
// only the handler's own goroutine recovers: so reads leave the account
// out (Skip), from any goroutine, and the handler's goroutine puts it
// back once they are done (Add).
type Known struct {
	ID   string
	User func() *users.User
}

// Skip returns r reading every account it is asked for but k's. Its
// caller adds that one with Add: the caller's own wishlist, club or posts
// show their record as the router read it, never older than a batch read
// of it would be, and the batch has one key fewer (none at all, when
// that account was all it would read).
func (k Known) Skip(r Reader) Reader {
	if k.ID == "" || k.User == nil {
		return r
	}
	return skipping{r: r, id: k.ID}
}

// Add puts k's account in us when one of ids (the accounts a read asked
// for) is it, and returns us. It calls User: call it on the handler's
// goroutine only (Known).
func (k Known) Add(us map[string]*users.User, ids ...string) map[string]*users.User {
	if k.ID == "" || k.User == nil || !slices.Contains(ids, k.ID) {
		return us
	}
	if us == nil {
		us = map[string]*users.User{}
	}
	if u := k.User(); u != nil {
		us[u.ID] = u
	}
	return us
}

type skipping struct {
	r  Reader
	id string
}

func (s skipping) GetUsersAndBooks(ctx context.Context, userIDs, bookIDs []string) (map[string]*users.User, map[string]*books.Book, error) {
	rest := make([]string, 0, len(userIDs))
	for _, id := range userIDs {
		if id != s.id {
			rest = append(rest, id)
		}
	}
	return s.r.GetUsersAndBooks(ctx, rest, bookIDs)
}

// Accounts reads the accounts of items, userID naming each one's, in one
// batch (r.GetUsersAndBooks): the members, participants or repliers of
// a page beside their records. Unknown ids are absent.
func Accounts[T any](ctx context.Context, r Reader, items []T, userID func(T) string) (map[string]*users.User, error) {
	userIDs := make([]string, len(items))
	for i, it := range items {
		userIDs[i] = userID(it)
	}
	us, _, err := r.GetUsersAndBooks(ctx, userIDs, nil)
	return us, err
}

// LikedBy reports which of the posts (by id) the viewer likes; no viewer,
// no call.
type LikedBy func(ctx context.Context, viewerID string, ids []string) (map[string]bool, error)

// Load reads a page's context: one batch read for the authors and for the
// books not in known (a book page has read its book already), and beside
// it, concurrently, one for the viewer's likes of the posts someone likes
// (Ref.Unliked); none when no post of the page has a like.
func Load(ctx context.Context, r Reader, likedBy LikedBy, viewerID string, refs []Ref, known map[string]*books.Book) (Context, error) {
	c := Context{Authors: map[string]*users.User{}, Books: map[string]*books.Book{}, Liked: map[string]bool{}}
	if len(refs) > 0 {
		var ids, userIDs, bookIDs []string
		for _, p := range refs {
			if !p.Unliked {
				ids = append(ids, p.ID)
			}
			userIDs = append(userIDs, p.UserID)
			if known[p.BookID] == nil {
				bookIDs = append(bookIDs, p.BookID)
			}
		}
		var g errgroup.Group
		g.Go(func() (err error) { c.Authors, c.Books, err = r.GetUsersAndBooks(ctx, userIDs, bookIDs); return err })
		g.Go(func() (err error) { c.Liked, err = likedBy(ctx, viewerID, ids); return err })
		if err := g.Wait(); err != nil {
			return Context{}, err
		}
	}
	maps.Copy(c.Books, known)
	return c, nil
}

// Deps are what every post service (lines, reviews) reads beside its own
// store; each service's Deps embeds them.
type Deps struct {
	Users  Users  // the poster's re-read for the quota; a list's owner by name
	Books  Books  // a post's book
	Briefs Reader // a page's authors and books
	Quota  quota.Policy
	Now    func() time.Time
}

// maxUsernameBytes bounds a username looked up from a path: longer ones
// cannot exist (users.ValidateUsername allows 30 characters).
const maxUsernameBytes = 120

// OwnerID resolves the owner of a reader's list by username, in any case.
// Errors: users.ErrNotFound (also for a name no account can have).
func OwnerID(ctx context.Context, u Users, username string) (string, error) {
	if username == "" || len(username) > maxUsernameBytes {
		return "", users.ErrNotFound
	}
	id, err := u.UserIDByUsername(ctx, username)
	if err != nil {
		return "", fmt.Errorf("owner of %q: %w", username, err)
	}
	return id, nil
}

// BookPage reads a book and a page of its posts side by side: the book
// for its 404 and its brief (and statistics), list for the page. Errors:
// books.ErrNotFound (also for an id that is not a UUID), and list's.
func BookPage[T any](ctx context.Context, b Books, bookID string, list func(ctx context.Context, bookID string) (page.Page[T], error)) (*books.Book, page.Page[T], error) {
	bookID, ok := ids.Parse(bookID)
	if !ok {
		return nil, page.Page[T]{}, books.ErrNotFound
	}
	var (
		book *books.Book
		p    page.Page[T]
		g    errgroup.Group
	)
	g.Go(func() (err error) { book, err = b.GetBook(ctx, bookID); return err })
	g.Go(func() (err error) { p, err = list(ctx, bookID); return err })
	if err := g.Wait(); err != nil {
		return nil, page.Page[T]{}, fmt.Errorf("posts of book %s: %w", bookID, err)
	}
	return book, p, nil
}

// Post is what a page needs of each of its posts: its id, author and
// book (a line, a review).
type Post interface {
	Ref() Ref
}

// View is a post as a viewer sees it: with its author and its book as
// they are now (nil when the record is missing: an account deleted later,
// or when a method says it does not read them) and whether the viewer
// likes it.
type View[T Post] struct {
	Post    T
	Author  *users.User
	Book    *books.Book
	IsLiked bool
	// TakenDown is set only on content an operator took down, as its
	// author alone still sees it (TakenDown).
	TakenDown *TakenDown
}

// TakenDown marks content an operator took down from a report (the back
// office's moderation): it has left every public list and counter and
// answers 404 to everyone but its author, who still reads it with the
// operator's reason and the time.
type TakenDown struct {
	Reason string
	At     time.Time
}

// Views turns a page of posts into what the viewer sees: the page
// context is read once (Load: the authors and the books not known yet in
// one batch, the viewer's likes beside it). book, when not nil, is the
// page's one book, already read; the viewer's own account, when they
// wrote posts of the page, is not read again (Known). Call it on the
// handler's goroutine.
func Views[T Post](ctx context.Context, r Reader, likedBy LikedBy, viewer Known, p page.Page[T], book *books.Book) (page.Page[View[T]], error) {
	refs := make([]Ref, len(p.Items))
	for i, it := range p.Items {
		refs[i] = it.Ref()
	}
	var known map[string]*books.Book
	if book != nil {
		known = map[string]*books.Book{book.ID: book}
	}
	c, err := Load(ctx, viewer.Skip(r), likedBy, viewer.ID, refs, known)
	if err != nil {
		return page.Page[View[T]]{}, err
	}
	authors := make([]string, len(refs))
	for i, ref := range refs {
		authors[i] = ref.UserID
	}
	c.Authors = viewer.Add(c.Authors, authors...)
	out := page.Page[View[T]]{Items: make([]View[T], len(p.Items)), Next: p.Next}
	for i, it := range p.Items {
		ref := refs[i]
		out.Items[i] = View[T]{Post: it, Author: c.Authors[ref.UserID], Book: c.Books[ref.BookID], IsLiked: c.Liked[ref.ID]}
	}
	return out, nil
}

// UserPage reads a page of the posts of the account named username: its
// id from the name (OwnerID), then list's page of that account. Errors:
// users.ErrNotFound, and list's.
func UserPage[T any](ctx context.Context, u Users, username string, list func(ctx context.Context, userID string) (page.Page[T], error)) (page.Page[T], error) {
	userID, err := OwnerID(ctx, u, username)
	if err != nil {
		return page.Page[T]{}, err
	}
	p, err := list(ctx, userID)
	if err != nil {
		return page.Page[T]{}, fmt.Errorf("posts of user %s: %w", userID, err)
	}
	return p, nil
}
