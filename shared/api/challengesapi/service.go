package challengesapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/dynamo"
)

// EnvCreatorTiers names the tiers that may create reading challenges:
// comma-separated tier names, default premium,bookstore (spec: Other
// limits). The challenges group reads it (api.CreatorTiers).
const EnvCreatorTiers = "CHALLENGE_CREATOR_TIERS"

// Service is the challenges service of the challenges group (and of the
// demo data), built from the table and the group's own setting.
func Service(d api.Deps) *challenges.Service {
	h := d.Table
	return challenges.NewService(challenges.Deps{
		Store: dynamo.NewChallenges(h), Users: dynamo.NewUsers(h), Briefs: dynamo.NewBriefs(h),
		Stores: d.StoreHosts, CreatorTiers: api.CreatorTiers(d.Env, EnvCreatorTiers), Now: d.Now,
	})
}
