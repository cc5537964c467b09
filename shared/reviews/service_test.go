package reviews_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a book, a reader, and the reviews service over a store of the
// test's choosing.
type world struct {
	env    *testenv.Env
	table  dynamo.Handle
	book   *books.Book
	reader *users.User
}

func newWorld(t *testing.T) world {
	env := testenv.New(t)
	_, err := env.App.Books.Import(t.Context(), []books.Record{{ISBN: "9780306406157", Title: "A Book", Authors: []string{"B. Author"}}})
	require.NoError(t, err)
	b, err := env.App.Books.GetByISBN(t.Context(), "9780306406157")
	require.NoError(t, err)
	signed, err := env.App.Users.Signup(t.Context(), users.SignupInput{Username: "ann", Email: "ann@example.com", Password: "long-enough-pw"})
	require.NoError(t, err)
	return world{env: env, table: env.App.Table, book: b, reader: signed.User}
}

func (w world) service(store reviews.Storer) *reviews.Service {
	h := w.table
	return reviews.NewService(reviews.Deps{Store: store, Deps: posts.Deps{Users: dynamo.NewUsers(h), Books: dynamo.NewBooks(h), Briefs: dynamo.NewBriefs(h), Quota: quota.Policy{FreePosts: 50, FreeReviews: 50}}})
}

// deletingStore deletes the review between Create's read and its write, as
// a concurrent DELETE of the caller's own review would.
type deletingStore struct {
	*dynamo.Reviews
	armed bool
}

func (s *deletingStore) UpdateReview(ctx context.Context, prev, next *reviews.Review) error {
	if s.armed {
		s.armed = false
		if err := s.Reviews.DeleteReview(ctx, prev); err != nil {
			return err
		}
	}
	return s.Reviews.UpdateReview(ctx, prev, next)
}

// A POST racing a DELETE of the same review creates a new one: the spec's
// only 404 for POST /reviews is an unknown book.
func TestPost_RacingDeleteCreatesAnew(t *testing.T) {
	w := newWorld(t)
	b, u := w.book, w.reader
	store := &deletingStore{Reviews: dynamo.NewReviews(w.table)}
	svc := w.service(store)
	first, err := svc.Create(t.Context(), u, reviews.NewReview{BookID: b.ID, Rating: 3})
	require.NoError(t, err)

	store.armed = true
	second, err := svc.Create(t.Context(), u, reviews.NewReview{BookID: b.ID, Rating: 5, Content: "second thoughts"})
	require.NoError(t, err)
	assert.True(t, second.Created)
	assert.NotEqual(t, first.Post.ID, second.Post.ID)

	got, err := w.env.App.Books.Get(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.TotalReviews, "the deleted review left the statistics, the new one entered them")
	assert.EqualValues(t, 5, got.AverageRating())
}

// losingStore loses one of Create's races on every attempt, as a store
// whose review a concurrent DELETE or POST keeps winning against would.
type losingStore struct {
	*dynamo.Reviews
	race                   string // "claimed", "read", "write"
	reviewID               string // the claim reported, for "read" and "write"
	creates, reads, writes int
}

func (s *losingStore) GetBookForReview(ctx context.Context, bookID, userID string) (*books.Book, string, error) {
	b, _, err := s.Reviews.GetBookForReview(ctx, bookID, userID)
	if s.race == "claimed" {
		return b, "", err // no claim yet: Create creates
	}
	return b, s.reviewID, err
}

func (s *losingStore) GetReview(ctx context.Context, id, viewerID string) (*reviews.Review, bool, error) {
	s.reads++
	if s.race == "read" {
		return nil, false, reviews.ErrNotFound // deleted since its claim was read
	}
	return s.Reviews.GetReview(ctx, id, viewerID)
}

func (s *losingStore) UpdateReview(ctx context.Context, prev, next *reviews.Review) error {
	s.writes++
	return fmt.Errorf("update review %s: %w", prev.ID, reviews.ErrNotFound) // deleted since it was read
}

func (s *losingStore) CreateReview(ctx context.Context, r *reviews.Review, c quota.Charge) error {
	s.creates++
	return reviews.ErrExists // a concurrent POST of the same user claimed the book
}

// A POST that keeps losing one of its races (the review read is gone,
// the review changed is gone, the book was claimed meanwhile) tries four
// times and answers contention, 503 with Retry-After, whichever race it
// lost: not the 404 the spec keeps for an unknown book, nor a 500. An
// unknown book is no race: one read, and its 404.
func TestCreate_LosingEveryRaceIsContention(t *testing.T) {
	w := newWorld(t)
	b, u, h, service := w.book, w.reader, w.table, w.service
	first, err := service(dynamo.NewReviews(h)).Create(t.Context(), u, reviews.NewReview{BookID: b.ID, Rating: 3})
	require.NoError(t, err)

	for _, race := range []string{"claimed", "read", "write"} {
		t.Run(race, func(t *testing.T) {
			store := &losingStore{Reviews: dynamo.NewReviews(h), race: race, reviewID: first.Post.ID}
			_, err := service(store).Create(t.Context(), u, reviews.NewReview{BookID: b.ID, Rating: 5})
			require.ErrorIs(t, err, apperr.ErrContention)
			assert.Equal(t, 4, map[string]int{"claimed": store.creates, "read": store.reads, "write": store.writes}[race], "attempts")
		})
	}

	store := &losingStore{Reviews: dynamo.NewReviews(h), race: "read", reviewID: first.Post.ID}
	_, err = service(store).Create(t.Context(), u, reviews.NewReview{BookID: "00000000-0000-4000-8000-000000000000", Rating: 5})
	require.ErrorIs(t, err, books.ErrNotFound)
	assert.Zero(t, store.reads, "an unknown book is answered at once")
}
