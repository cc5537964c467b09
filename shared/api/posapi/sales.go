package posapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
)

// saleRoutes: SKELETON, the sales helper replaces this file.
func saleRoutes(d api.Deps) []httpapi.Route { return nil }
