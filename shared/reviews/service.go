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
	// GetUserByUsername reads a user by username; NotFound.
	GetUserByUsername(ctx context.Context, username string) (*users.User, error)

	// GetBookForReview reads, consistently, a book and the id of userID's
	// review of it ("" when there is none). NotFound when the book is unknown.
	GetBookForReview(ctx context.Context, bookID, userID string) (*books.Book, string, error)
	// GetReview reads a review consistently, with IsLiked set for viewerID
	// ("" for none). NotFound when there is none.
	GetReview(ctx context.Context, id, viewerID string) (*Review, error)
	// CreateReview stores a new review, claims its (book, user) pair,
	// counts it in the book's statistics and charges c, all or nothing.
	// Errors: ErrExists (the pair is claimed), NotFound (book),
	// quota.ErrStale (the charge's condition failed).
	CreateReview(ctx context.Context, r *Review, c quota.Charge) error
	// UpdateReview writes next's rating, content, author snapshot and
	// updatedAt over prev, moving the book's statistics from prev's
	// rating to next's, all or nothing. Errors: ErrChanged (the stored
	// rating is no longer prev's), NotFound (deleted).
	UpdateReview(ctx context.Context, prev, next *Review) error
	// DeleteReview removes the review and its claim, takes it out of the
	// book's statistics, then removes its likes. Errors: ErrChanged (the
	// stored rating is no longer r's), NotFound (deleted already).
	DeleteReview(ctx context.Context, r *Review) error
	// LikeReview records userID's like and returns the new likeCount.
	// Errors: NotFound, ValidationError "Already liked".
	LikeReview(ctx context.Context, id, userID string) (int, error)
	// UnlikeReview removes userID's like and returns the new likeCount.
	// Errors: NotFound, ValidationError "Not liked".
	UnlikeReview(ctx context.Context, id, userID string) (int, error)
	// ReviewsLikedBy reports which of the reviews userID has liked.
	ReviewsLikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error)
	// ListBookReviews reads up to limit reviews of a book in the given
	// order, after the token of an earlier page ("" for the first).
	ListBookReviews(ctx context.Context, bookID string, sort Sort, limit int, after string) (Page, error)
	// ListUserReviews reads up to limit reviews by a user, newest first.
	ListUserReviews(ctx context.Context, userID string, limit int, after string) (Page, error)
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
	Review *Review
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
// updates it. Errors: ValidationError (fields), NotFound (book),
// Forbidden (monthly_limit_reached).
func (s *Service) Post(ctx context.Context, caller *users.User, in PostInput) (PostResult, error) {
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
		book, reviewID, err := s.d.Store.GetBookForReview(ctx, in.BookID, caller.ID)
		if err != nil {
			return PostResult{}, fmt.Errorf("post review of book %s: %w", in.BookID, err)
		}
		if reviewID != "" {
			prev, err := s.d.Store.GetReview(ctx, reviewID, caller.ID)
			if apperr.Is(err, apperr.CodeNotFound) && attempt < maxAttempts {
				continue // deleted since the claim was read; the claim went with it
			}
			if err != nil {
				return PostResult{}, fmt.Errorf("post review of book %s: %w", in.BookID, err)
			}
			r, err := s.change(ctx, caller, prev, &in.Rating, &content, book, now)
			if err != nil {
				return PostResult{}, err
			}
			return PostResult{Review: r, Usage: s.d.Quota.Usage(caller, quota.Reviews, now)}, nil
		}

		r := &Review{
			ID: uuid.NewString(), UserID: caller.ID, BookID: book.ID, Rating: in.Rating, Content: content,
			Author: brief(caller), Book: bookBrief(book), CreatedAt: now, UpdatedAt: now,
		}
		reload := func(ctx context.Context) (*users.User, error) { return s.d.Store.GetUser(ctx, caller.ID) }
		use, err := s.d.Quota.Do(ctx, caller, quota.Reviews, now, reload, func(c quota.Charge) error {
			return s.d.Store.CreateReview(ctx, r, c)
		})
		if errors.Is(err, ErrExists) && attempt < maxAttempts {
			continue // a concurrent POST of the same user won: update its review
		}
		if err != nil {
			return PostResult{}, fmt.Errorf("create review of book %s: %w", in.BookID, err)
		}
		return PostResult{Review: r, Created: true, Usage: use}, nil
	}
}

// Get returns a review with the viewer's isLiked. Errors: NotFound (also
// for an id that is not a UUID).
func (s *Service) Get(ctx context.Context, viewer *users.User, id string) (*Review, error) {
	id = strings.ToLower(id)
	if !validID(id) {
		return nil, errReviewNotFound
	}
	r, err := s.d.Store.GetReview(ctx, id, userID(viewer))
	if err != nil {
		return nil, fmt.Errorf("get review %s: %w", id, err)
	}
	return r, nil
}

// Update changes the caller's own review: the fields given, nil ones kept.
// Errors: ValidationError, NotFound, Forbidden (not the author).
func (s *Service) Update(ctx context.Context, caller *users.User, id string, in UpdateInput) (*Review, error) {
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
	prev, err := s.authored(ctx, caller, id, "edit")
	if err != nil {
		return nil, err
	}
	return s.change(ctx, caller, prev, in.Rating, in.Content, nil, s.d.Now().UTC())
}

// Delete removes the caller's own review, its likes, and its share of the
// book's statistics. Errors: NotFound, Forbidden (not the author).
func (s *Service) Delete(ctx context.Context, caller *users.User, id string) error {
	r, err := s.authored(ctx, caller, id, "delete")
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
		// The author changed the rating meanwhile: the statistics must
		// lose the current one.
		if r, err = s.d.Store.GetReview(ctx, r.ID, ""); err != nil {
			return fmt.Errorf("delete review %s: %w", id, err)
		}
	}
}

// Like records the caller's like of a review and returns its likeCount.
// Errors: NotFound, ValidationError "Already liked".
func (s *Service) Like(ctx context.Context, caller *users.User, id string) (int, error) {
	id = strings.ToLower(id)
	if !validID(id) {
		return 0, errReviewNotFound
	}
	return s.d.Store.LikeReview(ctx, id, caller.ID)
}

// Unlike removes the caller's like of a review and returns its likeCount.
// Errors: NotFound, ValidationError "Not liked".
func (s *Service) Unlike(ctx context.Context, caller *users.User, id string) (int, error) {
	id = strings.ToLower(id)
	if !validID(id) {
		return 0, errReviewNotFound
	}
	return s.d.Store.UnlikeReview(ctx, id, caller.ID)
}

// ListByBook returns a page of a book's reviews in the given order, with
// the book (its rating statistics). The book and the page are read at
// once. Items carry the book's current BookBrief; IsLiked is set by
// SetLiked. Errors: NotFound (book).
func (s *Service) ListByBook(ctx context.Context, bookID string, sort Sort, limit int, after string) (BookPage, error) {
	bookID = strings.ToLower(bookID)
	if !validID(bookID) {
		return BookPage{}, apperr.NotFound("Book not found")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		book    *books.Book
		bookErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if book, bookErr = s.d.Store.GetBook(ctx, bookID); bookErr != nil {
			cancel() // an unknown book needs no page
		}
	}()
	page, err := s.d.Store.ListBookReviews(ctx, bookID, sort, limit, after)
	wg.Wait()
	if bookErr != nil {
		return BookPage{}, fmt.Errorf("list reviews of book %s: %w", bookID, bookErr)
	}
	if err != nil {
		return BookPage{}, fmt.Errorf("list reviews of book %s: %w", bookID, err)
	}
	b := bookBrief(book)
	for _, r := range page.Items {
		r.Book = b
	}
	return BookPage{Page: page, Book: book}, nil
}

// UserByUsername resolves the owner of a review list. Errors: NotFound.
func (s *Service) UserByUsername(ctx context.Context, username string) (*users.User, error) {
	if username == "" || len(username) > 64 {
		return nil, apperr.NotFound("User not found")
	}
	return s.d.Store.GetUserByUsername(ctx, username)
}

// ListByUser returns a page of a user's reviews, newest first; IsLiked is
// set by SetLiked.
func (s *Service) ListByUser(ctx context.Context, userID string, limit int, after string) (Page, error) {
	page, err := s.d.Store.ListUserReviews(ctx, userID, limit, after)
	if err != nil {
		return Page{}, fmt.Errorf("list reviews of user %s: %w", userID, err)
	}
	return page, nil
}

// SetLiked sets IsLiked on each review from the viewer's likes (one read
// for the page); with no viewer every review stays not liked.
func (s *Service) SetLiked(ctx context.Context, viewer *users.User, items []*Review) error {
	if viewer == nil || len(items) == 0 {
		return nil
	}
	ids := make([]string, len(items))
	for i, r := range items {
		ids[i] = r.ID
	}
	liked, err := s.d.Store.ReviewsLikedBy(ctx, viewer.ID, ids)
	if err != nil {
		return fmt.Errorf("likes of %s: %w", viewer.ID, err)
	}
	for _, r := range items {
		r.IsLiked = liked[r.ID]
	}
	return nil
}

// authored reads a review the caller wants to change and checks that the
// caller wrote it.
func (s *Service) authored(ctx context.Context, caller *users.User, id, verb string) (*Review, error) {
	r, err := s.Get(ctx, caller, id)
	if err != nil {
		return nil, err
	}
	if r.UserID != caller.ID {
		return nil, apperr.Forbidden("Only the author can %s this review", verb)
	}
	return r, nil
}

// change writes a new rating and/or content over prev. A rating that
// changed meanwhile (ErrChanged) is re-read and the change applied to it,
// so the statistics move from the rating actually stored. book, when
// given, refreshes the review's BookBrief. Nothing is written when
// nothing changes.
func (s *Service) change(ctx context.Context, caller *users.User, prev *Review, rating *int, content *string, book *books.Book, now time.Time) (*Review, error) {
	for attempt := 1; ; attempt++ {
		next := *prev
		if rating != nil {
			next.Rating = *rating
		}
		if content != nil {
			next.Content = *content
		}
		next.Author = brief(caller)
		if book != nil {
			next.Book = bookBrief(book)
		}
		if next.Rating == prev.Rating && next.Content == prev.Content && *next.Author == *prev.Author {
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
		if prev, err = s.d.Store.GetReview(ctx, next.ID, caller.ID); err != nil {
			return nil, fmt.Errorf("update review %s: %w", next.ID, err)
		}
	}
}

func userID(u *users.User) string {
	if u == nil {
		return ""
	}
	return u.ID
}
