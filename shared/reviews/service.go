package reviews

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/likes"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/users"
)

// Storer is the storage reviews need. Implementations return the errors
// named on each method wrapped with context, never (nil, nil), and keep
// each book's rating statistics exact: a review and the counters it
// changes are written in one transaction.
type Storer interface {
	// GetBookForReview reads, consistently, a book and the id of userID's
	// review of it ("" when there is none). Errors: books.ErrNotFound.
	GetBookForReview(ctx context.Context, bookID, userID string) (*books.Book, string, error)
	// GetReview reads a review consistently and whether viewerID ("" for
	// none) likes it. Errors: ErrNotFound.
	GetReview(ctx context.Context, id, viewerID string) (*Review, bool, error)
	// TakenDownReview reads a review an operator took down, as it was,
	// and the takedown. Errors: ErrNotFound (no review of the id was
	// taken down).
	TakenDownReview(ctx context.Context, id string) (*Review, *posts.TakenDown, error)
	// CreateReview stores a new review, claims its (book, user) pair,
	// counts it in the book's statistics and charges c, all or nothing.
	// Errors: books.ErrNotFound, ErrExists (the pair is claimed),
	// quota.ErrStale (the charge's condition failed).
	CreateReview(ctx context.Context, r *Review, c quota.Charge) error
	// UpdateReview writes next's rating, content and updatedAt over prev,
	// moving the book's statistics from prev's rating to next's, all or
	// nothing. Errors: ErrChanged (the stored rating is no longer prev's,
	// or the review is gone).
	UpdateReview(ctx context.Context, prev, next *Review) error
	// DeleteReview removes the review and its claim, takes it out of the
	// book's statistics, then removes its likes. Errors: ErrChanged.
	DeleteReview(ctx context.Context, r *Review) error
	// Like records userID's like of a review; Unlike removes it. Errors:
	// ErrNotFound, likes.ErrAlreadyLiked, likes.ErrNotLiked.
	Like(ctx context.Context, id, userID string) (likes.Result, error)
	Unlike(ctx context.Context, id, userID string) (likes.Result, error)
	// LikedBy reports which of the reviews userID ("" for none) likes.
	LikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error)
	// ListBookReviews reads a page of a book's reviews in the given order,
	// ListUserReviews one of a user's, newest first. Errors:
	// page.ErrInvalidCursor.
	ListBookReviews(ctx context.Context, bookID string, sort Sort, c page.Cursor) (page.Page[*Review], error)
	ListUserReviews(ctx context.Context, userID string, c page.Cursor) (page.Page[*Review], error)
}

// Deps are the service's collaborators: its store and what every post
// service reads (posts.Deps).
type Deps struct {
	Store Storer
	posts.Deps
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

// CreateResult is what POST /reviews did.
type CreateResult struct {
	View
	// Created is true for a new review, false when the caller's existing
	// review of the book was updated.
	Created bool
	// Usage is the caller's reviews quota after the request.
	Usage quota.Usage
}

// Create creates caller's review of a book, or updates caller's existing
// review of it (same id, createdAt kept). Only a creation counts against
// the monthly reviews quota. Two concurrent posts by one user for one
// book make one review: the second finds the first's claim and updates
// it. Errors: ValidationError (fields), books.ErrNotFound, Forbidden
// (monthly_limit_reached), apperr.ErrContention.
func (s *Service) Create(ctx context.Context, caller *users.User, in NewReview) (CreateResult, error) {
	var f apperr.Fields
	bookID, msg := ids.Required(in.BookID)
	f.Add("bookId", msg)
	f.Add("rating", ValidateRating(in.Rating))
	content, msg := normalizeContent(in.Content)
	f.Add("content", msg)
	if err := f.Err(); err != nil {
		return CreateResult{}, err
	}

	now := s.d.Now().UTC()
	var res CreateResult
	// Each lost race is one the other change won: the claim read was of a
	// review deleted since (ErrNotFound, from reading it or from changing
	// it), or a concurrent POST of the same user claimed the book first
	// (ErrExists, then its review is updated). Neither answers POST
	// /reviews for itself (its only 404 is an unknown book), so every
	// attempt lost is contention.
	err := optimistic.Retry(maxAttempts, func(int) error {
		book, reviewID, err := s.d.Store.GetBookForReview(ctx, bookID, caller.ID)
		if err != nil {
			return fmt.Errorf("post review of book %s: %w", bookID, err)
		}
		if reviewID != "" {
			prev, liked, err := s.d.Store.GetReview(ctx, reviewID, caller.ID)
			if err != nil {
				return fmt.Errorf("post review of book %s: %w", bookID, err)
			}
			r, err := s.change(ctx, caller.ID, prev, &in.Rating, &content, now)
			if err != nil {
				return err
			}
			res = CreateResult{
				View:  View{Post: r, Author: caller, Book: book, IsLiked: liked},
				Usage: s.d.Quota.Usage(caller, quota.Reviews, now),
			}
			return nil
		}
		r := &Review{ID: ids.New(), UserID: caller.ID, BookID: book.ID, Rating: in.Rating, Content: content, CreatedAt: now, UpdatedAt: now}
		use, err := s.d.Quota.Do(ctx, s.d.Users, caller, quota.Reviews, now, func(c quota.Charge) error {
			return s.d.Store.CreateReview(ctx, r, c)
		})
		if err != nil {
			return fmt.Errorf("create review of book %s: %w", bookID, err)
		}
		res = CreateResult{View: View{Post: r, Author: caller, Book: book}, Created: true, Usage: use}
		return nil
	}, ErrNotFound, ErrExists)
	if err != nil {
		return CreateResult{}, err
	}
	return res, nil
}

// Get returns a review with its author, its book and whether viewerID
// likes it. Errors: ErrNotFound (also for an id that is not a UUID).
//
// A review an operator took down is its author's alone to read, with the
// takedown (its likes were removed with it); it is looked up only after
// a signed-in viewer found no review, so a review that is there costs
// nothing more.
func (s *Service) Get(ctx context.Context, viewerID, id string) (*View, error) {
	r, liked, err := s.get(ctx, viewerID, id)
	var td *posts.TakenDown
	if errors.Is(err, ErrNotFound) && viewerID != "" {
		r, td, err = s.takenDown(ctx, viewerID, id)
	}
	if err != nil {
		return nil, err
	}
	us, bs, err := s.d.Briefs.GetUsersAndBooks(ctx, []string{r.UserID}, []string{r.BookID})
	if err != nil {
		return nil, fmt.Errorf("get review %s: %w", r.ID, err)
	}
	return &View{Post: r, Author: us[r.UserID], Book: bs[r.BookID], IsLiked: liked, TakenDown: td}, nil
}

// Update changes callerID's own review: the fields given, nil ones kept.
// The view has the caller's like but not the author and book (the answer
// to an edit lists the review's own fields). Errors: ValidationError,
// ErrNotFound, ErrNotAuthor.
func (s *Service) Update(ctx context.Context, callerID, id string, in UpdateReview) (*View, error) {
	var f apperr.Fields
	if in.Rating != nil {
		f.Add("rating", ValidateRating(*in.Rating))
	}
	if in.Content != nil {
		c, msg := normalizeContent(*in.Content)
		f.Add("content", msg)
		in.Content = &c
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	prev, liked, err := s.authored(ctx, callerID, id)
	if err != nil {
		return nil, err
	}
	r, err := s.change(ctx, callerID, prev, in.Rating, in.Content, s.d.Now().UTC())
	if err != nil {
		return nil, err
	}
	return &View{Post: r, IsLiked: liked}, nil
}

// Delete removes callerID's own review, its likes, and its share of the
// book's statistics. Errors: ErrNotFound, ErrNotAuthor.
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	r, _, err := s.authored(ctx, callerID, id)
	if err != nil {
		return err
	}
	return optimistic.Retry(maxAttempts, func(n int) error {
		if n > 1 {
			// Changed meanwhile (the statistics must lose the rating now
			// stored), or gone: a concurrent delete won, and this one is 404.
			if r, _, err = s.d.Store.GetReview(ctx, r.ID, ""); err != nil {
				return fmt.Errorf("delete review %s: %w", id, err)
			}
		}
		err := s.d.Store.DeleteReview(ctx, r)
		if err != nil && !errors.Is(err, ErrChanged) {
			return fmt.Errorf("delete review %s: %w", r.ID, err)
		}
		return err
	}, ErrChanged)
}

// Like records callerID's like of a review. Errors: ErrNotFound,
// likes.ErrAlreadyLiked.
func (s *Service) Like(ctx context.Context, callerID, id string) (likes.Result, error) {
	return likes.Apply(ctx, s.d.Store.Like, id, callerID, ErrNotFound)
}

// Unlike removes callerID's like of a review. Errors: ErrNotFound,
// likes.ErrNotLiked.
func (s *Service) Unlike(ctx context.Context, callerID, id string) (likes.Result, error) {
	return likes.Apply(ctx, s.d.Store.Unlike, id, callerID, ErrNotFound)
}

// ListByBook returns a page of a book's reviews in the given order, each
// with its author and whether viewer (ID "" when anonymous) likes it, and
// the book, whose counters are the rating statistics. The book and the
// page are read at once. Errors: books.ErrNotFound, page.ErrInvalidCursor.
func (s *Service) ListByBook(ctx context.Context, bookID string, viewer posts.Known, sort Sort, c page.Cursor) (BookPage, error) {
	book, p, err := posts.BookPage(ctx, s.d.Books, bookID, func(ctx context.Context, bookID string) (page.Page[*Review], error) {
		return s.d.Store.ListBookReviews(ctx, bookID, sort, c)
	})
	if err != nil {
		return BookPage{}, err
	}
	views, err := posts.Views(ctx, s.d.Briefs, s.d.Store.LikedBy, viewer, p, book)
	if err != nil {
		return BookPage{}, fmt.Errorf("reviews of book %s: %w", book.ID, err)
	}
	return BookPage{Page: views, Book: book}, nil
}

// ListByUser returns a page of the reviews of the account named username,
// newest first, each with its book and whether viewer likes it.
// Errors: users.ErrNotFound, page.ErrInvalidCursor.
func (s *Service) ListByUser(ctx context.Context, username string, viewer posts.Known, c page.Cursor) (page.Page[View], error) {
	p, err := posts.UserPage(ctx, s.d.Users, username, func(ctx context.Context, userID string) (page.Page[*Review], error) {
		return s.d.Store.ListUserReviews(ctx, userID, c)
	})
	if err != nil {
		return page.Page[View]{}, err
	}
	return posts.Views(ctx, s.d.Briefs, s.d.Store.LikedBy, viewer, p, nil)
}

// get reads a review and whether viewerID likes it. Errors: ErrNotFound.
func (s *Service) get(ctx context.Context, viewerID, id string) (*Review, bool, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, false, ErrNotFound
	}
	r, liked, err := s.d.Store.GetReview(ctx, id, viewerID)
	if err != nil {
		return nil, false, fmt.Errorf("get review %s: %w", id, err)
	}
	return r, liked, nil
}

// takenDown reads the review id an operator took down, for its author
// viewerID alone. Errors: ErrNotFound.
func (s *Service) takenDown(ctx context.Context, viewerID, id string) (*Review, *posts.TakenDown, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, nil, ErrNotFound
	}
	r, td, err := s.d.Store.TakenDownReview(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("get review %s: %w", id, err)
	}
	if r.UserID != viewerID {
		return nil, nil, ErrNotFound
	}
	return r, td, nil
}

// authored reads a review callerID wants to change, and whether callerID
// likes it, and checks that callerID wrote it.
func (s *Service) authored(ctx context.Context, callerID, id string) (*Review, bool, error) {
	r, liked, err := s.get(ctx, callerID, id)
	if err != nil {
		return nil, false, err
	}
	if r.UserID != callerID {
		return nil, false, ErrNotAuthor
	}
	return r, liked, nil
}

// change writes a new rating and/or content over prev. A rating that
// changed meanwhile (ErrChanged) is re-read and the change applied to it,
// so the statistics move from the rating actually stored. Nothing is
// written when nothing changes.
func (s *Service) change(ctx context.Context, callerID string, prev *Review, rating *int, content *string, now time.Time) (*Review, error) {
	var out *Review
	id := prev.ID
	err := optimistic.Retry(maxAttempts, func(n int) error {
		if n > 1 {
			// Changed meanwhile, or gone (then this is 404).
			var err error
			if prev, _, err = s.d.Store.GetReview(ctx, id, callerID); err != nil {
				return fmt.Errorf("update review %s: %w", id, err)
			}
		}
		next := *prev
		if rating != nil {
			next.Rating = *rating
		}
		if content != nil {
			next.Content = *content
		}
		if next == *prev {
			out = prev
			return nil
		}
		next.UpdatedAt = now
		err := s.d.Store.UpdateReview(ctx, prev, &next)
		if err != nil && !errors.Is(err, ErrChanged) {
			return fmt.Errorf("update review %s: %w", prev.ID, err)
		}
		out = &next
		return err
	}, ErrChanged)
	if err != nil {
		return nil, err
	}
	return out, nil
}
