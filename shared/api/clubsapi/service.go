package clubsapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/dynamo"
)

// EnvCreatorTiers names the tiers that may create clubs:
// comma-separated tier names, default premium,bookstore (spec: Other
// limits). The clubs group reads it (api.CreatorTiers).
const EnvCreatorTiers = "CLUB_CREATOR_TIERS"

// Service is the clubs service of the clubs group (and of the demo
// data), built from the table and the group's own setting.
func Service(d api.Deps) *clubs.Service {
	h := d.Table
	return clubs.NewService(clubs.Deps{
		Store: dynamo.NewClubs(h), Users: dynamo.NewUsers(h), Books: dynamo.NewBooks(h), Briefs: dynamo.NewBriefs(h),
		Stores: d.StoreHosts, CreatorTiers: api.CreatorTiers(d.Env, EnvCreatorTiers), Now: d.Now,
	})
}
