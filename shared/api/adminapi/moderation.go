package adminapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
)

// moderationRoutes are the back office's routes of this area and the table actions
// their calls make (to be built: issue 22).
func moderationRoutes(d api.Deps, a *auditor) ([]httpapi.Route, []string) {
	return nil, nil
}
