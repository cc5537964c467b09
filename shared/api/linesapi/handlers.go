package linesapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/bookplatform/backend/shared/api/linejson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/posts"
)

// newLineRequest is the body of POST /v1/lines. pageNumber is read raw to
// tell a number from anything else (its range is the service's).
type newLineRequest struct {
	BookID      string          `json:"bookId"`
	Content     string          `json:"content"`
	PageNumber  json.RawMessage `json:"pageNumber,omitempty" openapi:"integer,null"`
	ClubID      *string         `json:"clubId,omitempty"`
	ChallengeID *string         `json:"challengeId,omitempty"`
}

// editLineRequest is the body of PUT /v1/lines/{id}: pageNumber left out
// keeps the page, null clears it.
type editLineRequest struct {
	Content    string          `json:"content"`
	PageNumber json.RawMessage `json:"pageNumber,omitempty" openapi:"integer,null"`
}

// replyRequest is the body of POST /v1/lines/{id}/replies.
type replyRequest struct {
	Content string `json:"content"`
}

// create serves POST /v1/lines: 201 Line, counted against the monthly
// post quota.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req newLineRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	pageNumber, _, err := parsePage(req.PageNumber)
	if err != nil {
		return err
	}
	v, use, err := h.lines.Create(r.Context(), httpapi.CallerOf(r).User(), lines.NewLine{
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
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	caller := httpapi.CallerOf(r)
	v, err := h.lines.Get(r.Context(), posts.Known{ID: caller.ID, User: caller.User}, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, linejson.NewLine(*v))
}

// update serves PUT /v1/lines/{id}: { content, pageNumber? } by the
// author.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req editLineRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	pageNumber, set, err := parsePage(req.PageNumber)
	if err != nil {
		return err
	}
	l, err := h.lines.Update(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), lines.UpdateLine{
		Content: req.Content, SetPage: set, PageNumber: pageNumber,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, linejson.NewEdited(l))
}

// delete serves DELETE /v1/lines/{id} by the author: the line, its
// replies and its likes.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.lines.Delete(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Line deleted"})
}

// like serves POST /v1/lines/{id}/like.
func (h *handler) like(w http.ResponseWriter, r *http.Request) error {
	res, err := h.lines.Like(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewLiked(res))
}

// unlike serves DELETE /v1/lines/{id}/like.
func (h *handler) unlike(w http.ResponseWriter, r *http.Request) error {
	res, err := h.lines.Unlike(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewLiked(res))
}

// createReply serves POST /v1/lines/{id}/replies: { content } → 201
// Reply, counted against the monthly post quota.
func (h *handler) createReply(w http.ResponseWriter, r *http.Request) error {
	var req replyRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	v, use, err := h.lines.CreateReply(r.Context(), httpapi.CallerOf(r).User(), r.PathValue("id"), req.Content)
	if err != nil {
		return err
	}
	httpapi.SetMonthlyHeaders(w, use)
	return httpapi.JSON(w, http.StatusCreated, linejson.NewReply(*v))
}

// listReplies serves GET /v1/lines/{id}/replies?cursor=&limit=: oldest
// first.
func (h *handler) listReplies(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.lines.ListReplies(r.Context(), r.PathValue("id"), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, linejson.NewReply))
}

// deleteReply serves DELETE /v1/lines/{lineId}/replies/{replyId} by the
// reply's author.
func (h *handler) deleteReply(w http.ResponseWriter, r *http.Request) error {
	if err := h.lines.DeleteReply(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("lineId"), r.PathValue("replyId")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Reply deleted"})
}

// listByBook serves GET /v1/books/{id}/lines?cursor=&limit=: newest first.
func (h *handler) listByBook(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	caller := httpapi.CallerOf(r)
	p, err := h.lines.ListByBook(r.Context(), r.PathValue("id"), posts.Known{ID: caller.ID, User: caller.User}, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, linejson.NewLine))
}

// listByUser serves GET /v1/users/{username}/lines?cursor=&limit=:
// newest first.
func (h *handler) listByUser(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	caller := httpapi.CallerOf(r)
	p, err := h.lines.ListByUser(r.Context(), r.PathValue("username"), posts.Known{ID: caller.ID, User: caller.User}, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, linejson.NewLine))
}

// listByClub serves GET /v1/lines/club/{clubId} and GET
// /v1/clubs/{id}/lines?cursor=&limit=: newest first.
func (h *handler) listByClub(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	clubID := r.PathValue("clubId")
	if clubID == "" {
		clubID = r.PathValue("id")
	}
	caller := httpapi.CallerOf(r)
	p, err := h.lines.ListByClub(r.Context(), clubID, posts.Known{ID: caller.ID, User: caller.User}, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, linejson.NewCommunityLine))
}

// listByChallenge serves GET /v1/lines/challenge/{challengeId}?cursor=&limit=:
// newest first.
func (h *handler) listByChallenge(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	caller := httpapi.CallerOf(r)
	p, err := h.lines.ListByChallenge(r.Context(), r.PathValue("challengeId"), posts.Known{ID: caller.ID, User: caller.User}, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, linejson.NewCommunityLine))
}

// parsePage reads an optional pageNumber: absent (set false), null (set,
// nil) or a whole number written without fraction or exponent. Its range
// is the service's to check.
func parsePage(raw json.RawMessage) (*int, bool, error) {
	return httpapi.IntField(raw, "pageNumber", fmt.Sprintf("must be an integer from 1 to %d", lines.MaxPageNumber))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
