package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/bookplatform/backend/shared/dynamo"
	"time"

	"github.com/bookplatform/backend/shared/api/challengesapi"
	"github.com/bookplatform/backend/shared/api/clubsapi"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
)

// DemoPassword is the password of every demo account.
const DemoPassword = "demo-password"

// demoAccount is one account a developer can sign in with at once.
type demoAccount struct {
	Email, Username, DisplayName string
	Tier                         users.Tier
	Operator                     bool // an operator: the back office (/v1/admin)
}

// demoAccounts cover the three tiers, whose quotas and rate limits
// differ, and the roles of stores (DESIGN.md, "Demo data").
var demoAccounts = []demoAccount{
	{Email: "reader@example.com", Username: "reader", DisplayName: "Demo Reader", Tier: users.TierFree},
	{Email: "premium@example.com", Username: "premium", DisplayName: "Demo Premium Reader", Tier: users.TierPremium},
	{Email: "owner@example.com", Username: "owner", DisplayName: "Demo Bookstore Owner", Tier: users.TierBookstore},
	{Email: "owner2@example.com", Username: "owner2", DisplayName: "Demo Second Bookstore Owner", Tier: users.TierBookstore},
	{Email: "staff@example.com", Username: "staff_member", DisplayName: "Demo Store Staff", Tier: users.TierFree},
	{Email: "bookseller@example.com", Username: "bookseller", DisplayName: "Demo Bookseller Without A Store", Tier: users.TierBookstore},
	{Email: "admin@example.com", Username: "demo_operator", DisplayName: "Demo Operator", Tier: users.TierFree, Operator: true},
}

// demoStore is a store a demo owner has, with the demo accounts that are
// its staff and what its owner hosts for it.
type demoStore struct {
	OwnerEmail string
	Profile    stores.Profile
	Staff      []string // emails
	Clubs      []clubs.NewClub
	Challenges []challenges.NewChallenge
}

// demoStores: two real street addresses in two cities (the stores are
// made up), with coordinates, opening hours and the local sales tax rate.
var demoStores = []demoStore{
	{
		OwnerEmail: "owner@example.com",
		Profile: profile(map[string]string{
			"name": "Demo Corner Books", "slug": "demo-corner-books",
			"description":  "New and used books on Capitol Hill, with a reading room upstairs.",
			"addressLine1": "1521 10th Ave", "city": "Seattle", "state": "WA", "postalCode": "98122", "country": "US",
			"phone": "+1 206-624-6600", "email": "hello@demo-corner-books.example", "website": "https://demo-corner-books.example",
			"primaryColor": "#2E5E4E",
		}, 47.6147, -122.3193, 0.1035, stores.Hours{
			"monday": "10:00-20:00", "tuesday": "10:00-20:00", "wednesday": "10:00-20:00", "thursday": "10:00-20:00",
			"friday": "10:00-22:00", "saturday": "10:00-22:00", "sunday": "11:00-18:00",
		}),
		Staff: []string{"staff@example.com"},
		Clubs: []clubs.NewClub{{
			Name: "Capitol Hill Readers", IsPublic: true,
			Description: "The store's monthly book club: one novel a month, upstairs in the reading room.",
		}},
		Challenges: []challenges.NewChallenge{{
			Name: "Twelve in 2026", Goal: new(12), StartDate: "2026-01-01", EndDate: "2026-12-31",
			Description: "A book a month with Demo Corner Books.",
		}},
	},
	{
		OwnerEmail: "owner2@example.com",
		Profile: profile(map[string]string{
			"name": "Demo Harbor Books", "slug": "demo-harbor-books",
			"description":  "A North Beach shop for poetry, politics and paperbacks.",
			"addressLine1": "261 Columbus Ave", "city": "San Francisco", "state": "CA", "postalCode": "94133", "country": "US",
			"phone": "+1 415-362-8193", "email": "hello@demo-harbor-books.example", "primaryColor": "#8C2F39",
		}, 37.7976, -122.4066, 0.08625, stores.Hours{
			"monday": "10:00-22:00", "tuesday": "10:00-22:00", "wednesday": "10:00-22:00", "thursday": "10:00-22:00",
			"friday": "10:00-23:00", "saturday": "10:00-23:00", "sunday": "10:00-21:00",
		}),
	},
}

func profile(f map[string]string, lat, lng, tax float64, hours stores.Hours) stores.Profile {
	str := func(k string) *string {
		if v, ok := f[k]; ok {
			return &v
		}
		return nil
	}
	return stores.Profile{
		Name: str("name"), Slug: str("slug"), Description: str("description"), AddressLine1: str("addressLine1"),
		City: str("city"), State: str("state"), PostalCode: str("postalCode"), Country: str("country"),
		Phone: str("phone"), Email: str("email"), Website: str("website"), PrimaryColor: str("primaryColor"),
		Hours: hours, HoursGiven: true, Latitude: &lat, Longitude: &lng, TaxRate: &tax,
	}
}

// seedDemo creates the demo accounts that are missing, through the user
// service, so they are stored exactly as a sign-up stores them. An existing
// account is left as it is (its password may have been changed on
// purpose) except for its tier, which the demo relies on. Running it on
// every start is therefore safe.
func seedDemo(ctx context.Context, a *app.App) error {
	// A data directory from before the working operators' count gets it
	// first (the demo operator of an earlier run is counted), so the
	// count is right before the demo operator is granted.
	if n, err := dynamo.NewUsers(a.Table).RecountOperators(ctx); err != nil {
		return err
	} else if n > 0 {
		a.Logger.Info("operators counted", "operators", n)
	}
	for _, d := range demoAccounts {
		u, err := dynamo.NewUsers(a.Table).GetUserByEmail(ctx, d.Email)
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
		if d.Operator && !u.Operator {
			// As the first operator's command does: the role and its
			// audit entry in one transaction, by the command's actor.
			octx, _ := audit.With(ctx, audit.Entry{
				ActorID: audit.ActorCLI + "demo-data", Action: audit.ActionUserOperator,
				TargetType: audit.TargetUser, TargetID: u.ID, Reason: "the demo operator",
				Detail: map[string]string{"operator": "true"},
			}, time.Now(), ids.New)
			if err := dynamo.NewUsers(a.Table).SetOperator(octx, u, true, time.Now()); err != nil {
				return fmt.Errorf("demo account %s: operator: %w", d.Email, err)
			}
		}
	}
	return seedStores(ctx, a)
}

// seedStores creates the demo stores whose owners have none, through the
// store service, makes their staff staff and has their owners host their
// clubs and challenges for them. A store that exists is left as it is
// (its owner may have changed it on purpose).
func seedStores(ctx context.Context, a *app.App) error {
	// A data directory from before the position list and the directory's
	// count item gets both first.
	if n, err := dynamo.NewBookstores(a.Table).Reindex(ctx); err != nil {
		return err
	} else if n > 0 {
		a.Logger.Info("stores reindexed: position list and directory count written", "stores", n)
	}
	deps := a.Deps()
	svc := storesapi.Service(deps)
	for _, d := range demoStores {
		owner, err := dynamo.NewUsers(a.Table).GetUserByEmail(ctx, d.OwnerEmail)
		if err != nil {
			return fmt.Errorf("demo store of %s: %w", d.OwnerEmail, err)
		}
		if owner.StoreID != "" {
			continue
		}
		st, err := svc.Create(ctx, owner, d.Profile)
		if err != nil {
			return fmt.Errorf("demo store of %s: %w", d.OwnerEmail, err)
		}
		for _, email := range d.Staff {
			if _, err := svc.CreateStaff(ctx, st.ID, st.Slug, owner.ID, stores.NewStaff{Email: email}); err != nil && !errors.Is(err, stores.ErrAlreadyStaff) {
				return fmt.Errorf("demo staff %s at %s: %w", email, st.Slug, err)
			}
		}
		for _, c := range d.Clubs {
			c.StoreID = st.ID
			if _, err := clubsapi.Service(deps).Create(ctx, owner, c); err != nil {
				return fmt.Errorf("demo club %q of %s: %w", c.Name, st.Slug, err)
			}
		}
		for _, c := range d.Challenges {
			c.StoreID = st.ID
			if _, err := challengesapi.Service(deps).Create(ctx, owner, c); err != nil {
				return fmt.Errorf("demo challenge %q of %s: %w", c.Name, st.Slug, err)
			}
		}
	}
	return nil
}
