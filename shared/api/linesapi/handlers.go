package linesapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/bookplatform/backend/shared/api/linejson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/lines"
)

// create serves POST /v1/lines: { bookId, content, pageNumber?, clubId?,
// challengeId? } → 201 Line, counted against the monthly post quota.
func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		BookID      string          `json:"bookId"`
		Content     string          `json:"content"`
		PageNumber  json.RawMessage `json:"pageNumber"`
		ClubID      *string         `json:"clubId"`
		ChallengeID *string         `json:"challengeId"`
	}
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	pageNumber, _, err := parsePage(req.PageNumber)
	if err != nil {
		return err
	}
	v, use, err := h.Lines.Create(r.Context(), httpapi.Caller(r), lines.NewLine{
		BookID: req.BookID, Content: req.Content, PageNumber: pageNumber,
		ClubID: deref(req.ClubID), ChallengeID: deref(req.ChallengeID),
	})
	if err != nil {
		return err
	}
	httpapi.SetMonthlyHeaders(w, use)
	return httpapi.JSON(w, http.StatusCreated, linejson.NewLine(*v))
}

// get serves GET /v1/lines/{id}: the line with its author, book and the
// caller's isLiked.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	v, err := h.Lines.Get(r.Context(), httpapi.CallerID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, linejson.NewLine(*v))
}

// update serves PUT /v1/lines/{id}: { content, pageNumber? } by the
// author. pageNumber left out keeps the page; null clears it.
func (h *Handler) update(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Content    string          `json:"content"`
		PageNumber json.RawMessage `json:"pageNumber"`
	}
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	pageNumber, set, err := parsePage(req.PageNumber)
	if err != nil {
		return err
	}
	l, err := h.Lines.Update(r.Context(), httpapi.CallerID(r), r.PathValue("id"), lines.Edit{
		Content: req.Content, SetPage: set, PageNumber: pageNumber,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, linejson.NewEdited(l))
}

// delete serves DELETE /v1/lines/{id} by the author: the line, its
// replies and its likes.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.Lines.Delete(r.Context(), httpapi.CallerID(r), r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Line deleted"})
}

// likeResult is the body of both like routes.
type likeResult struct {
	Success   bool `json:"success"`
	LikeCount int  `json:"likeCount"`
	IsLiked   bool `json:"isLiked"`
}

// like serves POST /v1/lines/{id}/like.
func (h *Handler) like(w http.ResponseWriter, r *http.Request) error {
	n, err := h.Lines.Like(r.Context(), httpapi.CallerID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, likeResult{Success: true, LikeCount: n, IsLiked: true})
}

// unlike serves DELETE /v1/lines/{id}/like.
func (h *Handler) unlike(w http.ResponseWriter, r *http.Request) error {
	n, err := h.Lines.Unlike(r.Context(), httpapi.CallerID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, likeResult{Success: true, LikeCount: n, IsLiked: false})
}

// createReply serves POST /v1/lines/{id}/replies: { content } → 201
// Reply, counted against the monthly post quota.
func (h *Handler) createReply(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Content string `json:"content"`
	}
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	v, use, err := h.Lines.CreateReply(r.Context(), httpapi.Caller(r), r.PathValue("id"), req.Content)
	if err != nil {
		return err
	}
	httpapi.SetMonthlyHeaders(w, use)
	return httpapi.JSON(w, http.StatusCreated, linejson.NewReply(*v))
}

// replyPage is the body of GET /v1/lines/{id}/replies.
type replyPage struct {
	Items      []linejson.Reply `json:"items"`
	NextCursor *string          `json:"nextCursor"`
	HasMore    bool             `json:"hasMore"`
}

// listReplies serves GET /v1/lines/{id}/replies?cursor=&limit=: oldest
// first.
func (h *Handler) listReplies(w http.ResponseWriter, r *http.Request) error {
	id := strings.ToLower(r.PathValue("id"))
	scope := "line-replies:" + id
	p, err := page(r, scope)
	if err != nil {
		return err
	}
	res, err := h.Lines.ListReplies(r.Context(), id, p)
	if err != nil {
		return err
	}
	next := httpapi.NextCursor(r, scope, res.Next)
	return httpapi.JSON(w, http.StatusOK, replyPage{Items: linejson.NewReplies(res.Items), NextCursor: next, HasMore: next != nil})
}

// deleteReply serves DELETE /v1/lines/{lineId}/replies/{replyId} by the
// reply's author.
func (h *Handler) deleteReply(w http.ResponseWriter, r *http.Request) error {
	if err := h.Lines.DeleteReply(r.Context(), httpapi.CallerID(r), r.PathValue("lineId"), r.PathValue("replyId")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Reply deleted"})
}

// linePage is the body of both line lists. hasMore is not in the spec for
// these lists; it is the replies list's field, given here too so that one
// client loop serves every cursor list.
type linePage struct {
	Items      []linejson.Line `json:"items"`
	NextCursor *string         `json:"nextCursor"`
	HasMore    bool            `json:"hasMore"`
}

// listByBook serves GET /v1/books/{id}/lines?cursor=&limit=: newest first.
func (h *Handler) listByBook(w http.ResponseWriter, r *http.Request) error {
	id := strings.ToLower(r.PathValue("id"))
	scope := "book-lines:" + id
	p, err := page(r, scope)
	if err != nil {
		return err
	}
	res, err := h.Lines.ListByBook(r.Context(), id, httpapi.CallerID(r), p)
	if err != nil {
		return err
	}
	return writeLines(w, r, scope, res)
}

// listByUser serves GET /v1/users/{username}/lines?cursor=&limit=:
// newest first.
func (h *Handler) listByUser(w http.ResponseWriter, r *http.Request) error {
	username := r.PathValue("username")
	scope := "user-lines:" + strings.ToLower(username)
	p, err := page(r, scope)
	if err != nil {
		return err
	}
	res, err := h.Lines.ListByUser(r.Context(), username, httpapi.CallerID(r), p)
	if err != nil {
		return err
	}
	return writeLines(w, r, scope, res)
}

func writeLines(w http.ResponseWriter, r *http.Request, scope string, res *lines.LinePage) error {
	next := httpapi.NextCursor(r, scope, res.Next)
	return httpapi.JSON(w, http.StatusOK, linePage{Items: linejson.NewLines(res.Items), NextCursor: next, HasMore: next != nil})
}

// page reads a cursor list's limit and cursor for scope.
func page(r *http.Request, scope string) (lines.Page, error) {
	limit, after, err := httpapi.CursorPage(r, scope)
	if err != nil {
		return lines.Page{}, err
	}
	return lines.Page{Limit: limit, After: after}, nil
}

// parsePage reads an optional pageNumber: absent (set false), null (set,
// nil) or a whole number written without fraction or exponent. Its range
// is the service's to check.
func parsePage(raw json.RawMessage) (*int, bool, error) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "":
		return nil, false, nil
	case "null":
		return nil, true, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		msg := fmt.Sprintf("must be an integer from 1 to %d", lines.MaxPageNumber)
		return nil, false, apperr.Validation("Invalid request", map[string]string{"pageNumber": msg})
	}
	return &n, true, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
