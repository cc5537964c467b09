package reviewsapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/bookplatform/backend/shared/users"
)

// review is the spec's Review. The items of a reader's list are listed
// with fewer fields; they get this superset, the shape of every review a
// client reads. user and book are null only when the account or book
// record is missing.
type review struct {
	ID        string          `json:"id"`
	UserID    string          `json:"userId"`
	User      *userjson.Brief `json:"user"`
	BookID    string          `json:"bookId"`
	Book      *bookjson.Brief `json:"book"`
	Rating    int             `json:"rating"`
	Content   string          `json:"content"`
	LikeCount int             `json:"likeCount"`
	IsLiked   bool            `json:"isLiked"`
	CreatedAt string          `json:"createdAt"`
	UpdatedAt string          `json:"updatedAt"`
}

func newReview(v reviews.View) review {
	out := review{
		ID: v.ID, UserID: v.UserID, BookID: v.BookID,
		Rating: v.Rating, Content: v.Content, LikeCount: v.LikeCount, IsLiked: v.IsLiked,
		CreatedAt: userjson.Time(v.CreatedAt), UpdatedAt: userjson.Time(v.UpdatedAt),
	}
	if v.Author != nil {
		b := userjson.NewBrief(v.Author, false)
		out.User = &b
	}
	if v.Book != nil {
		b := bookjson.NewBrief(v.Book)
		out.Book = &b
	}
	return out
}

// newReviews converts a page; an empty page is [] on the wire.
func newReviews(vs []reviews.View) []review {
	out := make([]review, len(vs))
	for i, v := range vs {
		out[i] = newReview(v)
	}
	return out
}

// edited is the answer of PUT /reviews/{id}: the spec lists the review's
// own fields and the caller's like.
type edited struct {
	ID        string `json:"id"`
	UserID    string `json:"userId"`
	BookID    string `json:"bookId"`
	Rating    int    `json:"rating"`
	Content   string `json:"content"`
	LikeCount int    `json:"likeCount"`
	IsLiked   bool   `json:"isLiked"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

func newEdited(v reviews.View) edited {
	return edited{
		ID: v.ID, UserID: v.UserID, BookID: v.BookID,
		Rating: v.Rating, Content: v.Content, LikeCount: v.LikeCount, IsLiked: v.IsLiked,
		CreatedAt: userjson.Time(v.CreatedAt), UpdatedAt: userjson.Time(v.UpdatedAt),
	}
}

// page is a cursor list of reviews. hasMore is not in the spec for these
// lists; it is the replies list's field, given on every cursor list (as
// on lines) so that one client loop serves them all.
type page struct {
	Items      []review `json:"items"`
	NextCursor *string  `json:"nextCursor"`
	HasMore    bool     `json:"hasMore"`
}

func newPage(r *http.Request, scope string, p reviews.Page) page {
	next := httpapi.NextCursor(r, scope, p.Next)
	return page{Items: newReviews(p.Items), NextCursor: next, HasMore: next != nil}
}

// bookPage is a book's review list with its rating statistics.
type bookPage struct {
	page
	AverageRating      float64      `json:"averageRating"`
	TotalReviews       int          `json:"totalReviews"`
	RatingDistribution distribution `json:"ratingDistribution"`
}

// distribution counts reviews per rating, keyed "5" down to "1" in the
// order the spec lists them (a struct, because a map's keys are written
// in ascending order).
type distribution struct {
	Five  int `json:"5"`
	Four  int `json:"4"`
	Three int `json:"3"`
	Two   int `json:"2"`
	One   int `json:"1"`
}

func newDistribution(b *books.Book) distribution {
	c := b.RatingCounts
	return distribution{Five: c[4], Four: c[3], Three: c[2], Two: c[1], One: c[0]}
}

// likeResult is the answer of POST and DELETE /reviews/{id}/like.
type likeResult struct {
	Success   bool `json:"success"`
	LikeCount int  `json:"likeCount"`
	IsLiked   bool `json:"isLiked"`
}

// post serves POST /v1/reviews: the caller's review of a book, created
// (201) or, when the caller has reviewed the book already, updated (200,
// same id). The X-Monthly-* headers report the reviews quota.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		BookID  string          `json:"bookId"`
		Rating  json.RawMessage `json:"rating"`
		Content string          `json:"content"`
	}
	if err := httpapi.Decode(w, r, &body); err != nil {
		return err
	}
	rating, err := parseRating(body.Rating, true)
	if err != nil {
		return err
	}
	caller := func() *users.User { return httpapi.Caller(r) }
	res, err := h.Reviews.Post(r.Context(), httpapi.CallerID(r), caller, reviews.PostInput{BookID: body.BookID, Rating: *rating, Content: body.Content})
	if err != nil {
		return err
	}
	httpapi.SetMonthlyHeaders(w, res.Usage)
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	return httpapi.JSON(w, status, newReview(res.View))
}

// get serves GET /v1/reviews/{id}.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	v, err := h.Reviews.Get(r.Context(), httpapi.CallerID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newReview(*v))
}

// update serves PUT /v1/reviews/{id}: the author changes the rating, the
// content or both; a field left out keeps its value.
func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Rating  json.RawMessage `json:"rating"`
		Content *string         `json:"content"`
	}
	if err := httpapi.Decode(w, r, &body); err != nil {
		return err
	}
	rating, err := parseRating(body.Rating, false)
	if err != nil {
		return err
	}
	v, err := h.Reviews.Update(r.Context(), httpapi.CallerID(r), r.PathValue("id"), reviews.UpdateInput{Rating: rating, Content: body.Content})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newEdited(*v))
}

// delete serves DELETE /v1/reviews/{id}: the author removes the review
// and its likes.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.Reviews.Delete(r.Context(), httpapi.CallerID(r), r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Review deleted"})
}

// like serves POST /v1/reviews/{id}/like.
func (h *Handler) like(w http.ResponseWriter, r *http.Request) error {
	n, err := h.Reviews.Like(r.Context(), httpapi.CallerID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, likeResult{Success: true, LikeCount: n, IsLiked: true})
}

// unlike serves DELETE /v1/reviews/{id}/like.
func (h *Handler) unlike(w http.ResponseWriter, r *http.Request) error {
	n, err := h.Reviews.Unlike(r.Context(), httpapi.CallerID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, likeResult{Success: true, LikeCount: n, IsLiked: false})
}

// listByBook serves GET /v1/books/{id}/reviews?sort=&limit=&cursor=: a
// page of the book's reviews with its rating statistics. A cursor is
// bound to the book and the sort order it was issued for.
func (h *Handler) listByBook(w http.ResponseWriter, r *http.Request) error {
	sort, err := reviews.ParseSort(r.URL.Query().Get("sort"))
	if err != nil {
		return err
	}
	bookID := strings.ToLower(r.PathValue("id"))
	scope := "book-reviews:" + string(sort) + ":" + bookID
	limit, after, err := httpapi.CursorPage(r, scope)
	if err != nil {
		return err
	}
	p, err := h.Reviews.ListByBook(r.Context(), bookID, httpapi.CallerID(r), sort, limit, after)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, bookPage{
		page:          newPage(r, scope, p.Page),
		AverageRating: p.Book.AverageRating(), TotalReviews: p.Book.TotalReviews,
		RatingDistribution: newDistribution(p.Book),
	})
}

// listByUser serves GET /v1/users/{username}/reviews?limit=&cursor=: a page
// of a reader's reviews, newest first. The cursor is bound to the user's
// id, so it stays valid across a rename and cannot page another user who
// takes the old name.
func (h *Handler) listByUser(w http.ResponseWriter, r *http.Request) error {
	userID, err := h.Reviews.UserIDByUsername(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	scope := "user-reviews:" + userID
	limit, after, err := httpapi.CursorPage(r, scope)
	if err != nil {
		return err
	}
	p, err := h.Reviews.ListByUser(r.Context(), userID, httpapi.CallerID(r), limit, after)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newPage(r, scope, p))
}

// parseRating reads a rating as sent: only a JSON integer is one (2.5,
// "5" and 5.0 are not), checked before the range so that a client learns
// the type is wrong. Absent or null is "is required" when required; when
// not, absent is nil and null still a 400: null cannot be a rating.
func parseRating(raw json.RawMessage, required bool) (*int, error) {
	raw = bytes.TrimSpace(raw)
	bad := func(msg string) error {
		return apperr.Validation("rating "+msg, map[string]string{"rating": msg})
	}
	switch {
	case len(raw) == 0 && !required:
		return nil, nil
	case len(raw) == 0, string(raw) == "null":
		if required {
			return nil, bad("is required")
		}
		return nil, bad("must be an integer from 1 to 5")
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < reviews.MinRating || n > reviews.MaxRating {
		return nil, bad("must be an integer from 1 to 5")
	}
	return &n, nil
}
