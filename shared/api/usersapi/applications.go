package usersapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/applicationjson"
	"github.com/bookplatform/backend/shared/httpapi"
)

// apply serves POST /v1/users/me/bookstore-application: the caller asks
// for the bookstore tier (shared/applications).
func (h *handler) apply(w http.ResponseWriter, r *http.Request) error {
	var req applicationjson.Request
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	a, err := h.applications.Apply(r.Context(), httpapi.CallerOf(r).User(), req.Input())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, applicationjson.New(a))
}

// application serves GET /v1/users/me/bookstore-application: the
// caller's latest application, read beside the router's admission (its
// key needs only the caller's id).
func (h *handler) application(w http.ResponseWriter, r *http.Request) error {
	a, err := h.applications.Latest(r.Context(), httpapi.CallerOf(r).ID)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, applicationjson.New(a))
}
