// Package healthapi is the health endpoint group. Its function also
// serves API Gateway's $default route (api.Group.Fallback).
package healthapi

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
)

// Group is the health group.
func Group(api.Deps) api.Group {
	return api.Group{Name: "health", Fallback: true, Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: "/health", Auth: httpapi.AuthNone, Unmetered: true, Handler: get,
			Doc: httpapi.Doc{Summary: "Whether the service runs", Response: health{}}},
	}}
}

// health is the body of GET /health.
type health struct {
	Status    string `json:"status"`
	Timestamp string `json:"timestamp"`
}

// get serves GET /health. It touches no backend: it says the function runs.
func get(w http.ResponseWriter, r *http.Request) error {
	return httpapi.JSON(w, http.StatusOK, health{Status: "ok", Timestamp: httpapi.Now(r).UTC().Format(time.RFC3339)})
}
