package challengesapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
)

// list serves GET /v1/challenges?storeId=&limit=&offset=.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	o, err := httpapi.OffsetPage(r, listLimits)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if q.Has("storeId") && q.Get("storeId") == "" {
		return apperr.Validation("storeId must be a UUID", map[string]string{"storeId": "must be a UUID"})
	}
	items, total, err := h.challenges.List(r.Context(), q.Get("storeId"), o)
	if err != nil {
		return err
	}
	body := challengesPage{Challenges: make([]challenge, len(items)), OffsetMeta: httpapi.NewOffsetMeta(o, total)}
	for i, c := range items {
		body.Challenges[i] = newChallenge(c)
	}
	return httpapi.JSON(w, http.StatusOK, body)
}

// ofStore serves GET /v1/stores/{slug}/challenges?cursor=&limit=: the
// store's challenges, newest first; 404 for an unknown store.
func (h *handler) ofStore(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, err := h.challenges.ListByStore(r.Context(), r.PathValue("slug"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, storeChallengeList{Challenges: page.Map(p, newChallenge).Items, More: httpapi.NewMore(r, p.Next)})
}

// create serves POST /v1/challenges: 201 with the single view.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	v, err := h.challenges.Create(r.Context(), httpapi.CallerOf(r).User(), challenges.NewChallenge{
		Name: req.Name, Description: req.Description, Goal: req.Goal, StartDate: req.StartDate, EndDate: req.EndDate,
		StoreID: deref(req.StoreID),
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newChallengeView(v))
}

// get serves GET /v1/challenges/{id}.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	v, err := h.challenges.Get(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newChallengeView(v))
}

// update serves PUT /v1/challenges/{id} by the host.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	c, err := h.challenges.Update(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), challenges.UpdateChallenge{
		Name: req.Name, Description: req.Description, Goal: req.Goal, StartDate: req.StartDate, EndDate: req.EndDate,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newChallenge(c))
}

// delete serves DELETE /v1/challenges/{id} by the host.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.challenges.Delete(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Challenge deleted"})
}

// join serves POST /v1/challenges/{id}/join: 201 with the participation.
func (h *handler) join(w http.ResponseWriter, r *http.Request) error {
	p, err := h.challenges.Join(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, joinedChallenge{Success: true, Participation: newParticipation(p)})
}

// leave serves DELETE /v1/challenges/{id}/leave.
func (h *handler) leave(w http.ResponseWriter, r *http.Request) error {
	if err := h.challenges.Leave(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Left the challenge"})
}

// progress serves PUT /v1/challenges/{id}/progress: { progress }.
func (h *handler) progress(w http.ResponseWriter, r *http.Request) error {
	var req progressRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	p, c, err := h.challenges.SetProgress(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), req.Progress)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, progressed{
		Success: true, Participation: newParticipation(p), Goal: c.Goal, Completed: p.Completed(c.Goal),
	})
}

// participants serves GET /v1/challenges/{id}/participants?cursor=&limit=.
func (h *handler) participants(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, ch, err := h.challenges.ListParticipants(r.Context(), r.PathValue("id"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, func(v challenges.ParticipantView) participant {
		return newParticipant(v, ch.Goal)
	}))
}

// mine serves GET /v1/users/me/challenges?cursor=&limit=.
func (h *handler) mine(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, err := h.challenges.ListJoined(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, myChallengeList{Challenges: page.Map(p, newMyChallenge).Items, More: httpapi.NewMore(r, p.Next)})
}

// ofUser serves GET /v1/users/{username}/challenges?cursor=&limit=.
func (h *handler) ofUser(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, err := h.challenges.ListByUser(r.Context(), r.PathValue("username"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userChallengeList{Challenges: page.Map(p, newUserChallenge).Items, More: httpapi.NewMore(r, p.Next)})
}
