package reviews_test

import (
	"context"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
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
	env := testenv.New(t)
	_, err := env.App.Books.Import(t.Context(), []books.Record{{ISBN: "9780306406157", Title: "A Book", Authors: []string{"B. Author"}}})
	require.NoError(t, err)
	b, err := env.App.Books.GetByISBN(t.Context(), "9780306406157")
	require.NoError(t, err)
	signed, err := env.App.Users.Signup(t.Context(), users.SignupInput{Username: "ann", Email: "ann@example.com", Password: "long-enough-pw"})
	require.NoError(t, err)
	u := signed.User

	h := env.App.Table
	store := &deletingStore{Reviews: dynamo.NewReviews(h)}
	svc := reviews.NewService(reviews.Deps{Store: store, Deps: posts.Deps{Users: dynamo.NewUsers(h), Books: dynamo.NewBooks(h), Briefs: dynamo.NewBriefs(h), Quota: quota.Policy{FreePosts: 50, FreeReviews: 50}}})
	first, err := svc.Create(t.Context(), u, reviews.NewReview{BookID: b.ID, Rating: 3})
	require.NoError(t, err)

	store.armed = true
	second, err := svc.Create(t.Context(), u, reviews.NewReview{BookID: b.ID, Rating: 5, Content: "second thoughts"})
	require.NoError(t, err)
	assert.True(t, second.Created)
	assert.NotEqual(t, first.Post.ID, second.Post.ID)

	got, err := env.App.Books.Get(t.Context(), b.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, got.TotalReviews, "the deleted review left the statistics, the new one entered them")
	assert.EqualValues(t, 5, got.AverageRating())
}
