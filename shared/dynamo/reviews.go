package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/guregu/dynamo/v2"
)

// Reviews stores reviews, the claims that make them one per reader and
// book, the books' rating statistics they change, and their likes.
type Reviews struct {
	t *table
	likeStore
}

var _ reviews.Storer = (*Reviews)(nil)

var reviewsLikeTarget = likeTarget{key: ReviewKey, notFound: reviews.ErrNotFound}

// reviewItem is a review as stored (ReviewKey), in three lists at once:
// bookReviews by time (GSI1), bookReviewsByRating (GSI2), userReviews by
// time (GSI3).
type reviewItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	GSI1PK    string    `dynamo:"GSI1PK"`
	GSI1SK    string    `dynamo:"GSI1SK"`
	GSI2PK    string    `dynamo:"GSI2PK"`
	GSI2SK    string    `dynamo:"GSI2SK"`
	GSI3PK    string    `dynamo:"GSI3PK"`
	GSI3SK    string    `dynamo:"GSI3SK"`
	Type      string    `dynamo:"type"`
	ID        string    `dynamo:"id"`
	UserID    string    `dynamo:"userId"`
	BookID    string    `dynamo:"bookId"`
	Rating    int       `dynamo:"rating"`
	Content   string    `dynamo:"content"`
	LikeCount int       `dynamo:"likeCount"`
	CreatedAt time.Time `dynamo:"createdAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
}

// reviewClaimItem makes a user's review of a book unique
// (ReviewClaimKey): put only if absent, in the review's creating
// transaction, and deleted in its deleting one.
type reviewClaimItem struct {
	PK       string `dynamo:"PK"`
	SK       string `dynamo:"SK"`
	Type     string `dynamo:"type"`
	ReviewID string `dynamo:"reviewId"`
	UserID   string `dynamo:"userId"`
}

func toReviewItem(r *reviews.Review) reviewItem {
	k, sk := ReviewKey(r.ID), timeIDKey(r.CreatedAt, r.ID)
	return reviewItem{
		PK: k.PK, SK: k.SK,
		GSI1PK: bookReviews(r.BookID).pk, GSI1SK: sk,
		GSI2PK: bookReviewsByRating(r.BookID).pk, GSI2SK: reviewRatingSK(r.Rating, r.CreatedAt, r.ID),
		GSI3PK: userReviews(r.UserID).pk, GSI3SK: sk,
		Type: typeReview, ID: r.ID, UserID: r.UserID, BookID: r.BookID, Rating: r.Rating, Content: r.Content,
		LikeCount: r.LikeCount, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

func (it reviewItem) toReview() *reviews.Review {
	return &reviews.Review{
		ID: it.ID, UserID: it.UserID, BookID: it.BookID, Rating: it.Rating, Content: it.Content, LikeCount: it.LikeCount,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

// ratingAttr is the book's counter of reviews rating it n.
func ratingAttr(n int) string { return "rating" + strconv.Itoa(n) }

// bookStats is the update of a book's rating statistics by a review
// change; the book must exist, so a counter never creates a stray item.
func bookStats(t *table, bookID string) *dynamo.Update {
	return t.update(BookKey(bookID)).If("attribute_exists(PK)")
}

// GetBookForReview reads the book and the caller's review claim of it in
// one consistent BatchGetItem: the claim decides between creating and
// updating, and must not be a stale view. Errors: books.ErrNotFound.
func (s *Reviews) GetBookForReview(ctx context.Context, bookID, userID string) (*books.Book, string, error) {
	type bookOrClaim struct {
		bookItem
		ReviewID string `dynamo:"reviewId"`
	}
	bk, ck := BookKey(bookID), ReviewClaimKey(bookID, userID)
	items, err := batchAll[bookOrClaim](ctx, s.t.batch(bk.keyed(), ck.keyed()).Consistent(true))
	if err != nil {
		return nil, "", fmt.Errorf("get book %s and review claim of %s: %w", bookID, userID, err)
	}
	var (
		book     *books.Book
		reviewID string
	)
	for _, it := range items {
		switch it.SK {
		case bk.SK:
			book = it.toBook()
		case ck.SK:
			reviewID = it.ReviewID
		}
	}
	if book == nil {
		return nil, "", fmt.Errorf("get book %s for a review: %w", bookID, books.ErrNotFound)
	}
	return book, reviewID, nil
}

// GetReview reads the review and, for a viewer, the viewer's like record
// of it in one consistent BatchGetItem (both keys are known from the id):
// one round trip, and a like made a moment ago shows. Errors:
// reviews.ErrNotFound.
func (s *Reviews) GetReview(ctx context.Context, id, viewerID string) (*reviews.Review, bool, error) {
	k := ReviewKey(id)
	keys := []dynamo.Keyed{k.keyed()}
	if viewerID != "" {
		keys = append(keys, LikeKey(k, viewerID).keyed())
	}
	// A like record decodes into the review type too: PK, SK and userId.
	items, err := batchAll[reviewItem](ctx, s.t.batch(keys...).Consistent(true))
	if err != nil {
		return nil, false, fmt.Errorf("get review %s: %w", id, err)
	}
	var (
		r     *reviews.Review
		liked bool
	)
	for _, it := range items {
		if it.SK == k.SK {
			r = it.toReview()
		} else {
			liked = true
		}
	}
	if r == nil {
		return nil, false, fmt.Errorf("get review %s: %w", id, reviews.ErrNotFound)
	}
	return r, liked, nil
}

// CreateReview writes, in one transaction: the book's statistics (the
// book must exist), the claim (only if the user has no review of the
// book), the quota charge on the user item and the review. Errors:
// books.ErrNotFound, reviews.ErrExists, quota.ErrStale.
func (s *Reviews) CreateReview(ctx context.Context, r *reviews.Review, c quota.Charge) error {
	ck := ReviewClaimKey(r.BookID, r.UserID)
	claim := reviewClaimItem{PK: ck.PK, SK: ck.SK, Type: typeReviewClaim, ReviewID: r.ID, UserID: r.UserID}
	err := s.t.tx().
		update(bookStats(s.t, r.BookID).Add("totalReviews", 1).Add("ratingSum", r.Rating).Add(ratingAttr(r.Rating), 1), books.ErrNotFound).
		put(s.t.put(claim).If("attribute_not_exists(PK)"), reviews.ErrExists).
		update(quotaCharge(s.t, c), quota.ErrStale).
		put(s.t.put(toReviewItem(r)).If("attribute_not_exists(PK)"), errIDTaken).
		run(ctx)
	if err != nil {
		return fmt.Errorf("create review %s of book %s by %s: %w", r.ID, r.BookID, r.UserID, err)
	}
	return nil
}

// UpdateReview sets next's rating, content and updatedAt on the review if
// its rating is still prev's. A rating change also moves the review in
// the rating order (GSI2SK) and the book's statistics from the old rating
// to the new, in the same transaction; otherwise it is one UpdateItem.
// Errors: reviews.ErrChanged (changed or deleted since prev was read).
func (s *Reviews) UpdateReview(ctx context.Context, prev, next *reviews.Review) error {
	upd := s.t.update(ReviewKey(prev.ID)).
		Set("rating", next.Rating).
		Set("updatedAt", next.UpdatedAt.UTC())
	upd = setOrRemove(upd, "content", next.Content)
	// A missing review fails the comparison too: the service re-reads and
	// reports it missing.
	upd = upd.If("rating = ?", prev.Rating)

	var err error
	if next.Rating == prev.Rating {
		err = upd.Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			err = reviews.ErrChanged
		}
	} else {
		upd = upd.Set(GSI2.SortKey, reviewRatingSK(next.Rating, prev.CreatedAt, prev.ID))
		stats := bookStats(s.t, prev.BookID).
			Add("ratingSum", next.Rating-prev.Rating).Add(ratingAttr(prev.Rating), -1).Add(ratingAttr(next.Rating), 1)
		err = s.t.tx().update(upd, reviews.ErrChanged).update(stats, books.ErrNotFound).run(ctx)
	}
	if err != nil {
		return fmt.Errorf("update review %s: %w", prev.ID, err)
	}
	return nil
}

// DeleteReview removes the review (if its rating is still r's), its claim
// and its share of the book's statistics in one transaction, then its
// like records. Errors: reviews.ErrChanged.
func (s *Reviews) DeleteReview(ctx context.Context, r *reviews.Review) error {
	if err := reviewDeletion(s.t.tx(), r).run(ctx); err != nil {
		return fmt.Errorf("delete review %s: %w", r.ID, err)
	}
	if err := s.deleteAll(ctx, r.ID); err != nil {
		return fmt.Errorf("delete likes of review %s: %w", r.ID, err)
	}
	return nil
}

// reviewDeletion adds to x the removal of r, if its rating is still r's
// (else reviews.ErrChanged), of its claim and of its share of the book's
// statistics: the author's delete and an operator's takedown remove a
// review the same way.
func reviewDeletion(x *tx, r *reviews.Review) *tx {
	t := x.t
	return x.
		delete(t.del(ReviewKey(r.ID)).If("rating = ?", r.Rating), reviews.ErrChanged).
		delete(t.del(ReviewClaimKey(r.BookID, r.UserID)).If("reviewId = ?", r.ID), reviews.ErrChanged).
		update(bookStats(t, r.BookID).Add("totalReviews", -1).Add("ratingSum", -r.Rating).Add(ratingAttr(r.Rating), -1), books.ErrNotFound)
}

// ListBookReviews reads a page of a book's reviews: newest first (GSI1),
// or by rating, highest first, then newest (GSI2).
func (s *Reviews) ListBookReviews(ctx context.Context, bookID string, sort reviews.Sort, c page.Cursor) (page.Page[*reviews.Review], error) {
	l := bookReviews(bookID)
	if sort == reviews.SortRating {
		l = bookReviewsByRating(bookID)
	}
	return s.list(ctx, l, c)
}

// ListUserReviews reads a page of a user's reviews, newest first (GSI3).
func (s *Reviews) ListUserReviews(ctx context.Context, userID string, c page.Cursor) (page.Page[*reviews.Review], error) {
	return s.list(ctx, userReviews(userID), c)
}

func (s *Reviews) list(ctx context.Context, l list, c page.Cursor) (page.Page[*reviews.Review], error) {
	return queryMapped(ctx, s.t, l, c, reviewItem.toReview)
}
