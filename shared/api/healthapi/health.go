// Package healthapi is the health endpoint group.
package healthapi

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/httpapi"
)

// Group returns the health group's route table.
func Group() httpapi.Group {
	return httpapi.Group{Name: "health", Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: "/health", Auth: httpapi.AuthNone, Unmetered: true, Handler: get},
	}}
}

// get serves GET /health. It touches no backend: it says the function runs.
func get(w http.ResponseWriter, r *http.Request) error {
	return httpapi.JSON(w, http.StatusOK, map[string]any{
		"status":    "ok",
		"timestamp": httpapi.Now(r).UTC().Format(time.RFC3339),
	})
}
