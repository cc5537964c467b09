package posapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
)

// lookupRoutes: SKELETON, the receipt helper replaces this file.
func lookupRoutes(d api.Deps) []httpapi.Route { return nil }
