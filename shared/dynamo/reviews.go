package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/guregu/dynamo/v2"
)

var _ reviews.Storer = (*Store)(nil)

// reviewItem is a review as stored: PK REVIEW#<id>, SK REVIEW, in three
// lists at once: GSI1 BOOKREVIEWS#<bookId> by time, GSI2
// BOOKREVIEWSR#<bookId> by rating then time, GSI3 USERREVIEWS#<userId> by
// time.
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

// reviewClaimItem makes a user's review of a book unique: PK BOOK#<bookId>,
// SK REVIEWBY#<userId>, put only if absent, in the review's creating
// transaction and deleted in its deleting one.
type reviewClaimItem struct {
	PK       string `dynamo:"PK"`
	SK       string `dynamo:"SK"`
	Type     string `dynamo:"type"`
	ReviewID string `dynamo:"reviewId"`
	UserID   string `dynamo:"userId"`
}

func toReviewItem(r *reviews.Review) reviewItem {
	return reviewItem{
		PK: reviewPK(r.ID), SK: reviewSK,
		GSI1PK: bookReviewsPK(r.BookID), GSI1SK: reviewTimeSK(r.CreatedAt, r.ID),
		GSI2PK: bookReviewsRatingPK(r.BookID), GSI2SK: reviewRatingSK(r.Rating, r.CreatedAt, r.ID),
		GSI3PK: userReviewsPK(r.UserID), GSI3SK: reviewTimeSK(r.CreatedAt, r.ID),
		Type: "Review", ID: r.ID, UserID: r.UserID, BookID: r.BookID, Rating: r.Rating, Content: r.Content,
		LikeCount: r.LikeCount, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

func (it reviewItem) toReview() *reviews.Review {
	return &reviews.Review{
		ID: it.ID, UserID: it.UserID, BookID: it.BookID, Rating: it.Rating, Content: it.Content, LikeCount: it.LikeCount,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

// pagingKey is the exclusive start key of the page after this item in
// index: the table's key and the index's.
func (it reviewItem) pagingKey(index string) dynamo.PagingKey {
	k := dynamo.PagingKey{AttrPK: str(it.PK), AttrSK: str(it.SK)}
	switch index {
	case gsiBookReviews:
		k[AttrGSI1PK], k[AttrGSI1SK] = str(it.GSI1PK), str(it.GSI1SK)
	case gsiBookReviewsRating:
		k[AttrGSI2PK], k[AttrGSI2SK] = str(it.GSI2PK), str(it.GSI2SK)
	case gsiUserReviews:
		k[AttrGSI3PK], k[AttrGSI3SK] = str(it.GSI3PK), str(it.GSI3SK)
	}
	return k
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// ratingAttr is the book's counter of reviews rating it n.
func ratingAttr(n int) string { return "rating" + strconv.Itoa(n) }

// bookStats is the update of a book's rating statistics by a review
// change; the book must exist, so a counter never creates a stray item.
func (s *Store) bookStats(bookID string) *dynamo.Update {
	return s.table.Update(AttrPK, bookPK(bookID)).Range(AttrSK, bookSK).If("attribute_exists(PK)")
}

// GetBookForReview reads the book and the caller's review claim of it in
// one consistent BatchGetItem: the claim decides between creating and
// updating, and must not be a stale view.
func (s *Store) GetBookForReview(ctx context.Context, bookID, userID string) (*books.Book, string, error) {
	var items []struct {
		bookItem
		ReviewID string `dynamo:"reviewId"`
	}
	err := s.table.Batch(AttrPK, AttrSK).
		Get(dynamo.Keys{bookPK(bookID), bookSK}, dynamo.Keys{bookPK(bookID), reviewClaimSK(userID)}).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, "", fmt.Errorf("get book %s and review claim of %s: %w", bookID, userID, err)
	}
	var (
		book     *books.Book
		reviewID string
	)
	for _, it := range items {
		switch it.SK {
		case bookSK:
			book = it.toBook()
		case reviewClaimSK(userID):
			reviewID = it.ReviewID
		}
	}
	if book == nil {
		return nil, "", apperr.NotFound("Book not found")
	}
	return book, reviewID, nil
}

// GetReview reads the review and, for a viewer, the viewer's like record
// of it in one consistent BatchGetItem (both keys are known from the id):
// one round trip, and a like made a moment ago shows.
func (s *Store) GetReview(ctx context.Context, id, viewerID string) (*reviews.Review, bool, error) {
	keys := []dynamo.Keyed{dynamo.Keys{reviewPK(id), reviewSK}}
	if viewerID != "" {
		keys = append(keys, dynamo.Keys{reviewPK(id), likeSK(viewerID)})
	}
	// A like record decodes into the review type too: PK, SK and userId.
	var items []reviewItem
	err := s.table.Batch(AttrPK, AttrSK).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, false, fmt.Errorf("get review %s: %w", id, err)
	}
	var (
		r     *reviews.Review
		liked bool
	)
	for _, it := range items {
		if it.SK == reviewSK {
			r = it.toReview()
		} else {
			liked = true
		}
	}
	if r == nil {
		return nil, false, apperr.NotFound("Review not found")
	}
	return r, liked, nil
}

// CreateReview writes, in one transaction: the claim (only if the user has
// no review of the book), the review, the book's statistics (the book must
// exist) and the quota charge on the user item.
func (s *Store) CreateReview(ctx context.Context, r *reviews.Review, c quota.Charge) error {
	claim := reviewClaimItem{PK: bookPK(r.BookID), SK: reviewClaimSK(r.UserID), Type: "ReviewClaim", ReviewID: r.ID, UserID: r.UserID}
	err := s.db.WriteTx().
		Put(s.table.Put(claim).If("attribute_not_exists(PK)")).
		Put(s.table.Put(toReviewItem(r)).If("attribute_not_exists(PK)")).
		Update(s.bookStats(r.BookID).Add("totalReviews", 1).Add("ratingSum", r.Rating).Add(ratingAttr(r.Rating), 1)).
		Update(s.quotaCharge(c)).
		Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case failedCondition(codes, 0):
			return reviews.ErrExists
		case failedCondition(codes, 2):
			return apperr.NotFound("Book not found")
		case failedCondition(codes, 3):
			return quota.ErrStale
		case failedCondition(codes, 1):
			return apperr.Conflict("Review id %s already exists", r.ID)
		}
	}
	if err != nil {
		return fmt.Errorf("create review %s of book %s by %s: %w", r.ID, r.BookID, r.UserID, err)
	}
	return nil
}

// UpdateReview sets next's rating, content and updatedAt on the review if
// its rating is still prev's. A rating change also moves the review in the rating order
// (GSI2SK) and the book's statistics from the old rating to the new, in
// the same transaction; otherwise it is one UpdateItem.
func (s *Store) UpdateReview(ctx context.Context, prev, next *reviews.Review) error {
	upd := s.table.Update(AttrPK, reviewPK(prev.ID)).Range(AttrSK, reviewSK).
		Set("rating", next.Rating).
		Set("updatedAt", next.UpdatedAt.UTC())
	upd = setOrRemove(upd, "content", next.Content)
	// A missing review fails the comparison too: the service re-reads and
	// reports NotFound.
	upd = upd.If("rating = ?", prev.Rating)

	var err error
	if next.Rating == prev.Rating {
		err = upd.Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			return reviews.ErrChanged
		}
	} else {
		upd = upd.Set(AttrGSI2SK, reviewRatingSK(next.Rating, prev.CreatedAt, prev.ID))
		stats := s.bookStats(prev.BookID).
			Add("ratingSum", next.Rating-prev.Rating).Add(ratingAttr(prev.Rating), -1).Add(ratingAttr(next.Rating), 1)
		err = s.db.WriteTx().Update(upd).Update(stats).Run(ctx)
		if codes, ok := cancelReasons(err); ok && failedCondition(codes, 0) {
			return reviews.ErrChanged
		}
	}
	if err != nil {
		return fmt.Errorf("update review %s: %w", prev.ID, err)
	}
	return nil
}

// DeleteReview removes the review (if its rating is still r's), its claim
// and its share of the book's statistics in one transaction, then its
// like records (dynamo.deleteLikes).
func (s *Store) DeleteReview(ctx context.Context, r *reviews.Review) error {
	err := s.db.WriteTx().
		Delete(s.table.Delete(AttrPK, reviewPK(r.ID)).Range(AttrSK, reviewSK).If("rating = ?", r.Rating)).
		Delete(s.table.Delete(AttrPK, bookPK(r.BookID)).Range(AttrSK, reviewClaimSK(r.UserID)).If("reviewId = ?", r.ID)).
		Update(s.bookStats(r.BookID).Add("totalReviews", -1).Add("ratingSum", -r.Rating).Add(ratingAttr(r.Rating), -1)).
		Run(ctx)
	if codes, ok := cancelReasons(err); ok && failedCondition(codes, 0) {
		return reviews.ErrChanged // changed, or deleted by a concurrent request
	}
	if err != nil {
		return fmt.Errorf("delete review %s: %w", r.ID, err)
	}
	if err := s.deleteLikes(ctx, reviewPK(r.ID)); err != nil {
		return fmt.Errorf("delete likes of review %s: %w", r.ID, err)
	}
	return nil
}

// LikeReview records userID's like of the review (dynamo.like).
func (s *Store) LikeReview(ctx context.Context, id, userID string) (int, error) {
	return s.like(ctx, "Review", reviewPK(id), reviewSK, userID)
}

// UnlikeReview removes userID's like of the review (dynamo.unlike).
func (s *Store) UnlikeReview(ctx context.Context, id, userID string) (int, error) {
	return s.unlike(ctx, "Review", reviewPK(id), reviewSK, userID)
}

// ReviewsLikedBy reports which of the reviews userID has liked, in one
// BatchGetItem (dynamo.likedBy).
func (s *Store) ReviewsLikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error) {
	return s.likedBy(ctx, userID, ids, reviewPK)
}

// ListBookReviews reads a page of a book's reviews: GSI1 newest first, or
// GSI2 by rating, highest first, then newest.
func (s *Store) ListBookReviews(ctx context.Context, bookID string, sort reviews.Sort, limit int, after string) ([]*reviews.Review, string, error) {
	if sort == reviews.SortRating {
		return s.reviewPage(ctx, gsiBookReviewsRating, AttrGSI2PK, bookReviewsRatingPK(bookID), limit, after)
	}
	return s.reviewPage(ctx, gsiBookReviews, AttrGSI1PK, bookReviewsPK(bookID), limit, after)
}

// ListUserReviews reads a page of a user's reviews, newest first (GSI3).
func (s *Store) ListUserReviews(ctx context.Context, userID string, limit int, after string) ([]*reviews.Review, string, error) {
	return s.reviewPage(ctx, gsiUserReviews, AttrGSI3PK, userReviewsPK(userID), limit, after)
}

// reviewPage reads one page of a review list in descending order. It
// asks for one item more than the page: only when that item exists is
// there a next page, which starts after the page's last item. So the last
// page has no next token (nextCursor null) rather than pointing at an
// empty page, as a bare LastEvaluatedKey would when a list ends exactly
// at a page boundary.
func (s *Store) reviewPage(ctx context.Context, index, pkAttr, pk string, limit int, after string) ([]*reviews.Review, string, error) {
	start, err := pagingKey(after)
	if err != nil {
		return nil, "", err
	}
	q := s.table.Get(pkAttr, pk).Index(index).Order(dynamo.Descending).Limit(limit + 1)
	if start != nil {
		q = q.StartFrom(start)
	}
	var items []reviewItem
	if err := q.All(ctx, &items); err != nil {
		return nil, "", fmt.Errorf("query %s %s: %w", index, pk, err)
	}
	next := ""
	if len(items) > limit {
		items = items[:limit]
		if next, err = pagingToken(items[limit-1].pagingKey(index)); err != nil {
			return nil, "", err
		}
	}
	out := make([]*reviews.Review, len(items))
	for i, it := range items {
		out[i] = it.toReview()
	}
	return out, next, nil
}
