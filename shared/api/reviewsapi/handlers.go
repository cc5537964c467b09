package reviewsapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/reviews"
)

// review is the spec's Review. The items of a reader's list are listed
// with fewer fields; they get this superset, the shape of every review a
// client reads. user and book are null only when the account or book
// record is missing.
type review struct {
	ID        string              `json:"id"`
	UserID    string              `json:"userId"`
	User      *userjson.Brief     `json:"user"`
	BookID    string              `json:"bookId"`
	Book      *bookjson.Brief     `json:"book"`
	Rating    int                 `json:"rating"`
	Content   string              `json:"content"`
	LikeCount int                 `json:"likeCount"`
	IsLiked   bool                `json:"isLiked"`
	CreatedAt string              `json:"createdAt"`
	UpdatedAt string              `json:"updatedAt"`
	TakenDown *userjson.TakenDown `json:"takenDown,omitempty"`
}

func newReview(v reviews.View) review {
	r := v.Post
	out := review{
		ID: r.ID, UserID: r.UserID, BookID: r.BookID,
		Rating: r.Rating, Content: r.Content, LikeCount: r.LikeCount, IsLiked: v.IsLiked,
		CreatedAt: userjson.Time(r.CreatedAt), UpdatedAt: userjson.Time(r.UpdatedAt),
		TakenDown: userjson.TakenDownOf(v.TakenDown),
	}
	out.User, out.Book = userjson.BriefOf(v.Author, false), bookjson.BriefOf(v.Book)
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
	r := v.Post
	return edited{
		ID: r.ID, UserID: r.UserID, BookID: r.BookID,
		Rating: r.Rating, Content: r.Content, LikeCount: r.LikeCount, IsLiked: v.IsLiked,
		CreatedAt: userjson.Time(r.CreatedAt), UpdatedAt: userjson.Time(r.UpdatedAt),
	}
}

// bookPage is a book's review list with its rating statistics.
type bookPage struct {
	httpapi.CursorBody[review]
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

// postRequest is the body of POST /v1/reviews. rating is read raw to tell
// an integer from anything else.
type postRequest struct {
	BookID  string          `json:"bookId"`
	Rating  json.RawMessage `json:"rating" openapi:"integer"`
	Content string          `json:"content,omitempty"`
}

// updateRequest is the body of PUT /v1/reviews/{id}: a field left out
// keeps its value.
type updateRequest struct {
	Rating  json.RawMessage `json:"rating,omitempty" openapi:"integer"`
	Content *string         `json:"content,omitempty"`
}

// post serves POST /v1/reviews: the caller's review of a book, created
// (201) or, when the caller has reviewed the book already, updated (200,
// same id). The X-Monthly-* headers report the reviews quota.
func (h *handler) post(w http.ResponseWriter, r *http.Request) error {
	var body postRequest
	if err := httpapi.Decode(w, r, &body); err != nil {
		return err
	}
	rating, err := parseRating(body.Rating, true)
	if err != nil {
		return err
	}
	res, err := h.reviews.Create(r.Context(), httpapi.CallerOf(r).User(), reviews.NewReview{BookID: body.BookID, Rating: *rating, Content: body.Content})
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
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	v, err := h.reviews.Get(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newReview(*v))
}

// update serves PUT /v1/reviews/{id}: the author changes the rating, the
// content or both; a field left out keeps its value.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var body updateRequest
	if err := httpapi.Decode(w, r, &body); err != nil {
		return err
	}
	rating, err := parseRating(body.Rating, false)
	if err != nil {
		return err
	}
	v, err := h.reviews.Update(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), reviews.UpdateReview{Rating: rating, Content: body.Content})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newEdited(*v))
}

// delete serves DELETE /v1/reviews/{id}: the author removes the review
// and its likes.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.reviews.Delete(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Review deleted"})
}

// like serves POST /v1/reviews/{id}/like.
func (h *handler) like(w http.ResponseWriter, r *http.Request) error {
	res, err := h.reviews.Like(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewLiked(res))
}

// unlike serves DELETE /v1/reviews/{id}/like.
func (h *handler) unlike(w http.ResponseWriter, r *http.Request) error {
	res, err := h.reviews.Unlike(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewLiked(res))
}

// listByBook serves GET /v1/books/{id}/reviews?sort=&limit=&cursor=: a
// page of the book's reviews with its rating statistics. A cursor is
// bound to the book and the sort order it was issued for.
func (h *handler) listByBook(w http.ResponseWriter, r *http.Request) error {
	sort, err := reviews.ParseSort(r.URL.Query().Get("sort"))
	if err != nil {
		return err
	}
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	caller := httpapi.CallerOf(r)
	p, err := h.reviews.ListByBook(r.Context(), r.PathValue("id"), posts.Known{ID: caller.ID, User: caller.User}, sort, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, bookPage{
		CursorBody:    httpapi.NewCursorBody(r, p.Page, newReview),
		AverageRating: p.Book.AverageRating(), TotalReviews: p.Book.TotalReviews,
		RatingDistribution: newDistribution(p.Book),
	})
}

// listByUser serves GET /v1/users/{username}/reviews?limit=&cursor=: a page
// of a reader's reviews, newest first. The cursor is bound to the user's
// id, so it stays valid across a rename and cannot page another user who
// takes the old name.
func (h *handler) listByUser(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	caller := httpapi.CallerOf(r)
	p, err := h.reviews.ListByUser(r.Context(), r.PathValue("username"), posts.Known{ID: caller.ID, User: caller.User}, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, newReview))
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
