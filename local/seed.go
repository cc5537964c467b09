package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/users"
)

// DemoPassword is the password of every demo account.
const DemoPassword = "demo-password"

// demoAccount is one account a developer can sign in with at once.
type demoAccount struct {
	Email, Username, DisplayName string
	Tier                         users.Tier
}

// demoAccounts cover the three tiers, whose quotas and rate limits differ.
var demoAccounts = []demoAccount{
	{Email: "reader@example.com", Username: "reader", DisplayName: "Demo Reader", Tier: users.TierFree},
	{Email: "premium@example.com", Username: "premium", DisplayName: "Demo Premium Reader", Tier: users.TierPremium},
	{Email: "owner@example.com", Username: "owner", DisplayName: "Demo Bookstore Owner", Tier: users.TierBookstore},
}

// seedDemo creates the demo accounts that are missing, through the user
// service, so they are stored exactly as a sign-up stores them. An existing
// account is left as it is (its password may have been changed on
// purpose) except for its tier, which the demo relies on. Running it on
// every start is therefore safe.
func seedDemo(ctx context.Context, a *app.App) error {
	for _, d := range demoAccounts {
		u, err := a.Stores.Users.GetUserByEmail(ctx, d.Email)
		if errors.Is(err, users.ErrNotFound) {
			res, serr := a.Users.Signup(ctx, users.SignupInput{
				Username: d.Username, Email: d.Email, Password: DemoPassword, DisplayName: d.DisplayName,
			})
			if serr != nil {
				return fmt.Errorf("demo account %s: %w", d.Email, serr)
			}
			u, err = res.User, nil
		}
		if err != nil {
			return fmt.Errorf("demo account %s: %w", d.Email, err)
		}
		if u.Tier != d.Tier {
			if _, err := a.Users.SetTier(ctx, u.ID, d.Tier); err != nil {
				return fmt.Errorf("demo account %s: set tier %s: %w", d.Email, d.Tier, err)
			}
		}
	}
	return nil
}
