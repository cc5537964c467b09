package linesapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGroup_actions checks which per-action limits each route counts
// against (the router tests cover how a limit is enforced).
func TestGroup_actions(t *testing.T) {
	want := map[string][]string{
		"POST /v1/lines":                              {"create_line", "create_line_hourly"},
		"GET /v1/lines/{id}":                          nil,
		"PUT /v1/lines/{id}":                          nil,
		"DELETE /v1/lines/{id}":                       nil,
		"POST /v1/lines/{id}/like":                    {"like"},
		"DELETE /v1/lines/{id}/like":                  {"like"},
		"POST /v1/lines/{id}/replies":                 {"create_line", "create_line_hourly"},
		"GET /v1/lines/{id}/replies":                  {"feed"},
		"DELETE /v1/lines/{lineId}/replies/{replyId}": nil,
		"GET /v1/books/{id}/lines":                    {"feed"},
		"GET /v1/users/{username}/lines":              {"feed"},
	}
	got := map[string][]string{}
	for _, r := range (&Handler{}).Group().Routes {
		got[r.Method+" "+r.Path] = r.Actions
	}
	assert.Equal(t, want, got)
}
