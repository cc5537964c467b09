package reviews

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/users"
	"github.com/google/uuid"
)

// Storer is the storage reviews need. Implementations return apperr
// NotFound errors, never (nil, nil), and keep each book's rating
// statistics exact: a review and the counters it changes are written in
// one transaction.
type Storer interface {
	// GetBook reads a book (its counters are the rating statistics);
	// NotFound when there is none.
	GetBook(ctx context.Context, id string) (*books.Book, error)
	// GetUser reads a user consistently (the quota's re-read); NotFound.
	GetUser(ctx context.Context, id string) (*users.User, error)
	// UserIDByUsername resolves a username, in any case; NotFound.
	UserIDByUsername(ctx context.Context, username string) (string, error)
	// posts.Reader reads a page's authors and books in one batch.
	posts.Reader

	// GetBookForReview reads, consistently, a book and the id of userID's
	// review of it ("" when there is none). NotFound when the book is unknown.
	GetBookForReview(ctx context.Context, bookID, userID string) (*books.Book, string, error)
	// GetReview reads a review consistently and whether viewerID ("" for
	// none) likes it. NotFound when there is none.
	GetReview(ctx context.Context, id, viewerID string) (*Review, bool, error)
	// CreateReview stores a new review, claims its (book, user) pair,
	// counts it in the book's statistics and charges c, all or nothing.
	// Errors: ErrExists (the pair is claimed), NotFound (book),
	// quota.ErrStale (the charge's condition failed).
	CreateReview(ctx context.Context, r *Review, c quota.Charge) error
	// UpdateReview writes next's rating, content and updatedAt over prev,
	// moving the book's statistics from prev's rating to next's, all or
	// nothing. Errors: ErrChanged (the stored rating is no longer prev's,
	// or the review is gone).
	UpdateReview(ctx context.Context, prev, next *Review) error
	// DeleteReview removes the review and its claim, takes it out of the
	// book's statistics, then removes its likes. Errors: ErrChanged (the
	// stored rating is no longer r's, or the review is gone).
	DeleteReview(ctx context.Context, r *Review) error
	// LikeReview records userID's like and returns the new likeCount.
	// Errors: NotFound, ValidationError "Already liked".
	LikeReview(ctx context.Context, id, userID string) (int, error)
	// UnlikeReview removes userID's like and returns the new likeCount.
	// Errors: NotFound, ValidationError "Not liked".
	UnlikeReview(ctx context.Context, id, userID string) (int, error)
	// ReviewsLikedBy reports which of the reviews userID ("" for none) likes.
	ReviewsLikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error)
	// ListBookReviews reads up to limit reviews of a book in the given
	// order, after the token of an earlier page ("" for the first), and
	// the token of the next page ("" when there is none).
	ListBookReviews(ctx context.Context, bookID string, sort Sort, limit int, after string) ([]*Review, string, error)
	// ListUserReviews reads up to limit reviews by a user, newest first.
	ListUserReviews(ctx context.Context, userID string, limit int, after string) ([]*Review, string, error)
}

// Deps are the service's collaborators.
type Deps struct {
	Store Storer
	// Quota is the free tier's monthly quota; a review creation is
	// charged against quota.Reviews.
	Quota quota.Policy
	Now   func() time.Time
}

// Service is the reviews feature.
type Service struct {
	d Deps
}

// NewService returns the reviews service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// maxAttempts bounds the retries of a change that lost a race with
// another change of the same review; each lost race means the other
// change went through.
const maxAttempts = 4

// PostResult is what POST /reviews did.
type PostResult struct {
	View
	// Created is true for a new review, false when the caller's existing
	// review of the book was updated.
	Created bool
	// Usage is the caller's reviews quota after the request.
	Usage quota.Usage
}

// Post creates the caller's review of a book, or updates the caller's
// existing review of it (same id, createdAt kept). Only a creation counts
// against the monthly reviews quota. Two concurrent posts by one user for
// one book make one review: the second finds the first's claim and
// updates it. The book and the caller's claim are read by callerID while
// the caller's record is being read; caller returns that record, waiting
// for the read, and is called only when the tier and quota counts are
// needed. Errors: ValidationError (fields), NotFound (book), Forbidden
// (monthly_limit_reached).
func (s *Service) Post(ctx context.Context, callerID string, caller func() *users.User, in PostInput) (PostResult, error) {
	in.BookID = strings.ToLower(strings.TrimSpace(in.BookID))
	f := fieldErrors{}
	switch {
	case in.BookID == "":
		f["bookId"] = "is required"
	case !validID(in.BookID):
		f["bookId"] = "must be a UUID"
	}
	if m := ValidateRating(in.Rating); m != "" {
		f["rating"] = m
	}
	content, m := normalizeContent(in.Content)
	if m != "" {
		f["content"] = m
	}
	if err := f.err(); err != nil {
		return PostResult{}, err
	}

	now := s.d.Now().UTC()
	for attempt := 1; ; attempt++ {
		book, reviewID, err := s.d.Store.GetBookForReview(ctx, in.BookID, callerID)
		if err != nil {
			return PostResult{}, fmt.Errorf("post review of book %s: %w", in.BookID, err)
		}
		if reviewID != "" {
			prev, liked, err := s.d.Store.GetReview(ctx, reviewID, callerID)
			if apperr.Is(err, apperr.CodeNotFound) && attempt < maxAttempts {
				continue // deleted since the claim was read; the claim went with it
			}
			if err != nil {
				return PostResult{}, fmt.Errorf("post review of book %s: %w", in.BookID, err)
			}
			r, err := s.change(ctx, callerID, prev, &in.Rating, &content, now)
			if apperr.Is(err, apperr.CodeNotFound) && attempt < maxAttempts {
				continue // deleted between the read and the write: create anew
			}
			if err != nil {
				return PostResult{}, err
			}
			u := caller()
			return PostResult{
				View:  View{Review: r, Author: u, Book: book, IsLiked: liked},
				Usage: s.d.Quota.Usage(u, quota.Reviews, now),
			}, nil
		}

		u := caller()
		r := &Review{ID: uuid.NewString(), UserID: callerID, BookID: book.ID, Rating: in.Rating, Content: content, CreatedAt: now, UpdatedAt: now}
		reload := func(ctx context.Context) (*users.User, error) { return s.d.Store.GetUser(ctx, callerID) }
		use, err := s.d.Quota.Do(ctx, u, quota.Reviews, now, reload, func(c quota.Charge) error {
			return s.d.Store.CreateReview(ctx, r, c)
		})
		if errors.Is(err, ErrExists) && attempt < maxAttempts {
			continue // a concurrent POST of the same user won: update its review
		}
		if err != nil {
			return PostResult{}, fmt.Errorf("create review of book %s: %w", in.BookID, err)
		}
		return PostResult{View: View{Review: r, Author: u, Book: book}, Created: true, Usage: use}, nil
	}
}

// Get returns a review with its author, its book and whether viewerID
// likes it. Errors: NotFound (also for an id that is not a UUID).
func (s *Service) Get(ctx context.Context, viewerID, id string) (*View, error) {
	r, liked, err := s.get(ctx, viewerID, id)
	if err != nil {
		return nil, err
	}
	us, bs, err := s.d.Store.GetUsersAndBooks(ctx, []string{r.UserID}, []string{r.BookID})
	if err != nil {
		return nil, fmt.Errorf("get review %s: %w", r.ID, err)
	}
	return &View{Review: r, Author: us[r.UserID], Book: bs[r.BookID], IsLiked: liked}, nil
}

// Update changes callerID's own review: the fields given, nil ones kept.
// The view has the caller's like but not the author and book (the answer
// to an edit lists the review's own fields). Errors: ValidationError,
// NotFound, Forbidden (not the author).
func (s *Service) Update(ctx context.Context, callerID, id string, in UpdateInput) (*View, error) {
	f := fieldErrors{}
	if in.Rating != nil {
		if m := ValidateRating(*in.Rating); m != "" {
			f["rating"] = m
		}
	}
	if in.Content != nil {
		c, m := normalizeContent(*in.Content)
		if m != "" {
			f["content"] = m
		}
		in.Content = &c
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	prev, liked, err := s.authored(ctx, callerID, id, "edit")
	if err != nil {
		return nil, err
	}
	r, err := s.change(ctx, callerID, prev, in.Rating, in.Content, s.d.Now().UTC())
	if err != nil {
		return nil, err
	}
	return &View{Review: r, IsLiked: liked}, nil
}

// Delete removes callerID's own review, its likes, and its share of the
// book's statistics. Errors: NotFound, Forbidden (not the author).
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	r, _, err := s.authored(ctx, callerID, id, "delete")
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err := s.d.Store.DeleteReview(ctx, r)
		if !errors.Is(err, ErrChanged) {
			if err != nil {
				return fmt.Errorf("delete review %s: %w", r.ID, err)
			}
			return nil
		}
		if attempt == maxAttempts {
			return apperr.Conflict("Review %s keeps changing; retry", r.ID)
		}
		// Changed meanwhile (the statistics must lose the rating now
		// stored), or gone: a concurrent delete won, and this one is 404.
		if r, _, err = s.d.Store.GetReview(ctx, r.ID, ""); err != nil {
			return fmt.Errorf("delete review %s: %w", id, err)
		}
	}
}

// Like records callerID's like of a review and returns its likeCount.
// Errors: NotFound, ValidationError "Already liked".
func (s *Service) Like(ctx context.Context, callerID, id string) (int, error) {
	id, ok := parseID(id)
	if !ok {
		return 0, errReviewNotFound
	}
	return s.d.Store.LikeReview(ctx, id, callerID)
}

// Unlike removes callerID's like of a review and returns its likeCount.
// Errors: NotFound, ValidationError "Not liked".
func (s *Service) Unlike(ctx context.Context, callerID, id string) (int, error) {
	id, ok := parseID(id)
	if !ok {
		return 0, errReviewNotFound
	}
	return s.d.Store.UnlikeReview(ctx, id, callerID)
}

// ListByBook returns a page of a book's reviews in the given order, each
// with its author and whether viewerID ("" when anonymous) likes it, and
// the book, whose counters are the rating statistics. The book and the
// page are read at once. Errors: NotFound (book).
func (s *Service) ListByBook(ctx context.Context, bookID, viewerID string, sort Sort, limit int, after string) (BookPage, error) {
	bookID, ok := parseID(bookID)
	if !ok {
		return BookPage{}, apperr.NotFound("Book not found")
	}
	var (
		book             *books.Book
		items            []*Review
		next             string
		bookErr, listErr error
		wg               sync.WaitGroup
	)
	wg.Go(func() { book, bookErr = s.d.Store.GetBook(ctx, bookID) })
	wg.Go(func() { items, next, listErr = s.d.Store.ListBookReviews(ctx, bookID, sort, limit, after) })
	wg.Wait()
	if bookErr != nil {
		return BookPage{}, fmt.Errorf("reviews of book %s: %w", bookID, bookErr)
	}
	if listErr != nil {
		return BookPage{}, fmt.Errorf("reviews of book %s: %w", bookID, listErr)
	}
	views, err := s.views(ctx, items, viewerID, book)
	if err != nil {
		return BookPage{}, fmt.Errorf("reviews of book %s: %w", bookID, err)
	}
	return BookPage{Page: Page{Items: views, Next: next}, Book: book}, nil
}

// maxUsernameBytes bounds a username looked up from a path: longer ones
// cannot exist (users.ValidateUsername allows 30 characters).
const maxUsernameBytes = 120

// UserIDByUsername resolves the owner of a review list (the handler binds
// the list's cursors to the id). Errors: NotFound.
func (s *Service) UserIDByUsername(ctx context.Context, username string) (string, error) {
	if username == "" || len(username) > maxUsernameBytes {
		return "", apperr.NotFound("User not found")
	}
	id, err := s.d.Store.UserIDByUsername(ctx, username)
	if err != nil {
		return "", fmt.Errorf("reviews of user %q: %w", username, err)
	}
	return id, nil
}

// ListByUser returns a page of a user's reviews, newest first, each with
// its book and whether viewerID likes it.
func (s *Service) ListByUser(ctx context.Context, userID, viewerID string, limit int, after string) (Page, error) {
	items, next, err := s.d.Store.ListUserReviews(ctx, userID, limit, after)
	if err != nil {
		return Page{}, fmt.Errorf("reviews of user %s: %w", userID, err)
	}
	views, err := s.views(ctx, items, viewerID, nil)
	if err != nil {
		return Page{}, fmt.Errorf("reviews of user %s: %w", userID, err)
	}
	return Page{Items: views, Next: next}, nil
}

// views turns a page of reviews into views: one batch read for the
// authors and the books (book, when given, is the page's one book,
// already read) and beside it one for the viewer's likes.
func (s *Service) views(ctx context.Context, items []*Review, viewerID string, book *books.Book) ([]View, error) {
	refs := make([]posts.Ref, len(items))
	for i, r := range items {
		refs[i] = posts.Ref{ID: r.ID, UserID: r.UserID, BookID: r.BookID}
	}
	var known map[string]*books.Book
	if book != nil {
		known = map[string]*books.Book{book.ID: book}
	}
	pc, err := posts.Load(ctx, s.d.Store, s.d.Store.ReviewsLikedBy, viewerID, refs, known)
	if err != nil {
		return nil, err
	}
	views := make([]View, len(items))
	for i, r := range items {
		views[i] = View{Review: r, Author: pc.Authors[r.UserID], Book: pc.Books[r.BookID], IsLiked: pc.Liked[r.ID]}
	}
	return views, nil
}

// get reads a review and whether viewerID likes it. Errors: NotFound.
func (s *Service) get(ctx context.Context, viewerID, id string) (*Review, bool, error) {
	id, ok := parseID(id)
	if !ok {
		return nil, false, errReviewNotFound
	}
	r, liked, err := s.d.Store.GetReview(ctx, id, viewerID)
	if err != nil {
		return nil, false, fmt.Errorf("get review %s: %w", id, err)
	}
	return r, liked, nil
}

// authored reads a review callerID wants to change, and whether callerID
// likes it, and checks that callerID wrote it.
func (s *Service) authored(ctx context.Context, callerID, id, verb string) (*Review, bool, error) {
	r, liked, err := s.get(ctx, callerID, id)
	if err != nil {
		return nil, false, err
	}
	if r.UserID != callerID {
		return nil, false, apperr.Forbidden("Only the author can %s this review", verb)
	}
	return r, liked, nil
}

// change writes a new rating and/or content over prev. A rating that
// changed meanwhile (ErrChanged) is re-read and the change applied to it,
// so the statistics move from the rating actually stored. Nothing is
// written when nothing changes.
func (s *Service) change(ctx context.Context, callerID string, prev *Review, rating *int, content *string, now time.Time) (*Review, error) {
	for attempt := 1; ; attempt++ {
		next := *prev
		if rating != nil {
			next.Rating = *rating
		}
		if content != nil {
			next.Content = *content
		}
		if next == *prev {
			return prev, nil
		}
		next.UpdatedAt = now
		err := s.d.Store.UpdateReview(ctx, prev, &next)
		if err == nil {
			return &next, nil
		}
		if !errors.Is(err, ErrChanged) {
			return nil, fmt.Errorf("update review %s: %w", prev.ID, err)
		}
		if attempt == maxAttempts {
			return nil, apperr.Conflict("Review %s keeps changing; retry", prev.ID)
		}
		// Changed meanwhile, or gone (then this is 404).
		if prev, _, err = s.d.Store.GetReview(ctx, next.ID, callerID); err != nil {
			return nil, fmt.Errorf("update review %s: %w", next.ID, err)
		}
	}
}

// parseID returns id in canonical (lower-case) form if it is a UUID;
// anything else can name no review or book and is answered NotFound
// without a read.
func parseID(id string) (string, bool) {
	id = strings.ToLower(id)
	return id, validID(id)
}
