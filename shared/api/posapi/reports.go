package posapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
)

// reportRoutes: SKELETON, the reports helper replaces this file.
func reportRoutes(d api.Deps) []httpapi.Route { return nil }
