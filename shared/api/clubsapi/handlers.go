package clubsapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
)

// list serves GET /v1/clubs?scope=&storeId=&isPublic=&limit=&offset=.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	o, err := httpapi.OffsetPage(r, listLimits)
	if err != nil {
		return err
	}
	f, err := filterOf(r)
	if err != nil {
		return err
	}
	c := httpapi.CallerOf(r)
	items, total, err := h.clubs.List(r.Context(), posts.Known{ID: c.ID, User: c.User}, f, o)
	if err != nil {
		return err
	}
	body := clubsPage{Clubs: make([]club, len(items)), OffsetMeta: httpapi.NewOffsetMeta(o, total)}
	for i, it := range items {
		body.Clubs[i] = newClub(it, false)
	}
	return httpapi.JSON(w, http.StatusOK, body)
}

// ofStore serves GET /v1/stores/{slug}/clubs?isPublic=&cursor=&limit=:
// the store's clubs as GET /clubs lists them, newest first; 404 for an
// unknown store.
func (h *handler) ofStore(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	public, err := publicOf(r)
	if err != nil {
		return err
	}
	p, err := h.clubs.ListByStore(r.Context(), r.PathValue("slug"), public, c)
	if err != nil {
		return err
	}
	items := page.Map(p, func(l clubs.Listed) club { return newClub(l, false) }).Items
	return httpapi.JSON(w, http.StatusOK, storeClubList{Clubs: items, More: httpapi.NewMore(r, p.Next)})
}

// publicOf reads the isPublic filter: true, false, or none (nil).
func publicOf(r *http.Request) (*bool, error) {
	q := r.URL.Query()
	if !q.Has("isPublic") {
		return nil, nil
	}
	switch q.Get("isPublic") {
	case "true":
		return new(true), nil
	case "false":
		return new(false), nil
	}
	return nil, apperr.Validation("isPublic must be true or false", map[string]string{"isPublic": "must be true or false"})
}

// filterOf reads GET /clubs' filters: scope all (default), store or user;
// storeId, which implies scope store; isPublic true or false.
func filterOf(r *http.Request) (clubs.Filter, error) {
	q := r.URL.Query()
	var fields apperr.Fields
	f := clubs.Filter{Scope: clubs.ScopeAll, StoreID: q.Get("storeId")}
	switch s := clubs.Scope(q.Get("scope")); {
	case !q.Has("scope") && f.StoreID != "":
		f.Scope = clubs.ScopeStore
	case !q.Has("scope"):
	case s == clubs.ScopeAll || s == clubs.ScopeStore || s == clubs.ScopeUser:
		f.Scope = s
	default:
		fields.Add("scope", "must be all, store or user")
	}
	if q.Has("storeId") && f.StoreID == "" {
		fields.Add("storeId", "must be a UUID")
	}
	if f.StoreID != "" && f.Scope != clubs.ScopeStore && fields["scope"] == "" {
		fields.Add("storeId", "selects a store's clubs: use it with scope=store or without scope")
	}
	public, err := publicOf(r)
	if err != nil {
		fields.Add("isPublic", "must be true or false")
	}
	f.Public = public
	if err := fields.Err(); err != nil {
		return clubs.Filter{}, err
	}
	return f, nil
}

// create serves POST /v1/clubs: 201 with the single view.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	public := req.IsPublic == nil || *req.IsPublic
	v, err := h.clubs.Create(r.Context(), httpapi.CallerOf(r).User(), clubs.NewClub{
		Name: req.Name, Description: req.Description, IsPublic: public, StoreID: deref(req.StoreID),
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newClubView(v))
}

// joined serves GET /v1/clubs/me/joined?cursor=&limit=.
func (h *handler) joined(w http.ResponseWriter, r *http.Request) error {
	p, err := h.mineOf(r)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, joinedClubList{Clubs: page.Map(p, newJoinedClub).Items, More: httpapi.NewMore(r, p.Next)})
}

// mine serves GET /v1/users/me/clubs?cursor=&limit=.
func (h *handler) mine(w http.ResponseWriter, r *http.Request) error {
	p, err := h.mineOf(r)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, myClubList{Clubs: page.Map(p, newMyClub).Items, More: httpapi.NewMore(r, p.Next)})
}

func (h *handler) mineOf(r *http.Request) (page.Page[clubs.Membership], error) {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return page.Page[clubs.Membership]{}, err
	}
	return h.clubs.ListJoined(r.Context(), httpapi.CallerOf(r).ID, c)
}

// ofUser serves GET /v1/users/{username}/clubs?cursor=&limit=: public
// clubs only.
func (h *handler) ofUser(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, err := h.clubs.ListByUser(r.Context(), r.PathValue("username"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userClubList{Clubs: page.Map(p, newUserClub).Items, More: httpapi.NewMore(r, p.Next)})
}

// get serves GET /v1/clubs/{id}: the single view.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	c := httpapi.CallerOf(r)
	v, err := h.clubs.Get(r.Context(), posts.Known{ID: c.ID, User: c.User}, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newClubView(v))
}

// update serves PUT /v1/clubs/{id} by the host.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	c, err := h.clubs.Update(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), clubs.UpdateClub{
		Name: req.Name, Description: req.Description, IsPublic: req.IsPublic,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newEditedClub(c))
}

// delete serves DELETE /v1/clubs/{id} by the host.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.clubs.Delete(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Club deleted"})
}

// addBook serves POST /v1/clubs/{id}/books: 201 Club book.
func (h *handler) addBook(w http.ResponseWriter, r *http.Request) error {
	var req addBookRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	v, err := h.clubs.CreateBook(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), clubs.NewBook{
		BookID: req.BookID, Status: req.Status, StartDate: deref(req.StartDate), EndDate: deref(req.EndDate), Notes: req.Notes,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newClubBook(*v))
}

// updateBook serves PUT /v1/clubs/{id}/books/{bookId}.
func (h *handler) updateBook(w http.ResponseWriter, r *http.Request) error {
	var req updateBookRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	e := clubs.UpdateBook{Status: req.Status, Notes: req.Notes}
	var err error
	if e.SetStart, e.StartDate, err = optionalDate("startDate", req.StartDate); err != nil {
		return err
	}
	if e.SetEnd, e.EndDate, err = optionalDate("endDate", req.EndDate); err != nil {
		return err
	}
	b, err := h.clubs.UpdateBook(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), r.PathValue("bookId"), e)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newEditedClubBook(b))
}

// removeBook serves DELETE /v1/clubs/{id}/books/{bookId}.
func (h *handler) removeBook(w http.ResponseWriter, r *http.Request) error {
	if err := h.clubs.DeleteBook(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), r.PathValue("bookId")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Book removed from the reading list"})
}

// join serves POST /v1/clubs/{id}/join: 201 with the membership.
func (h *handler) join(w http.ResponseWriter, r *http.Request) error {
	m, err := h.clubs.Join(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newJoined(m))
}

// leave serves DELETE /v1/clubs/{id}/leave.
func (h *handler) leave(w http.ResponseWriter, r *http.Request) error {
	if err := h.clubs.Leave(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Left the club"})
}

// members serves GET /v1/clubs/{id}/members?cursor=&limit=.
func (h *handler) members(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, total, err := h.clubs.ListMembers(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, membersPage{Members: page.Map(p, newMember).Items, Total: total, More: httpapi.NewMore(r, p.Next)})
}

// addMember serves POST /v1/clubs/{id}/members: { userId } → 201 with the
// membership.
func (h *handler) addMember(w http.ResponseWriter, r *http.Request) error {
	var req addMemberRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	m, err := h.clubs.CreateMember(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), req.UserID)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newJoined(m))
}

// setRole serves PUT /v1/clubs/{id}/members/{memberId}/role: { role }.
func (h *handler) setRole(w http.ResponseWriter, r *http.Request) error {
	var req roleRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	m, err := h.clubs.SetRole(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), r.PathValue("memberId"), req.Role)
	if err != nil {
		return err
	}
	var out roleChange
	out.Success = true
	out.Membership.UserID, out.Membership.Role, out.Membership.UpdatedAt = m.UserID, string(m.Role), userjson.Time(m.UpdatedAt)
	return httpapi.JSON(w, http.StatusOK, out)
}
