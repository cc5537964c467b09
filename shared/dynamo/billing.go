package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/bookplatform/backend/shared/billing"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/users"
)

// Billing stores each user's premium subscription record: one item in
// the user's partition (PremiumKey), written by UpdateItem alone, and in
// the same transaction as the tier change it makes.
type Billing struct{ t *table }

var _ billing.Storer = (*Billing)(nil)

// NewBilling is the billing store on the table.
func NewBilling(h Handle) *Billing { return &Billing{h.table()} }

// PremiumKey is a user's premium subscription record.
func PremiumKey(userID string) Key { return Key{"USER#" + userID, "PREMIUM"} }

const typePremium = "Premium"

// premiumItem is the record as stored.
type premiumItem struct {
	PK                string     `dynamo:"PK"`
	SK                string     `dynamo:"SK"`
	Type              string     `dynamo:"type"`
	UserID            string     `dynamo:"userId"`
	Status            string     `dynamo:"status"`
	CheckoutSessionID string     `dynamo:"checkoutSessionId"`
	CheckoutURL       string     `dynamo:"checkoutUrl"`
	CheckoutExpiresAt time.Time  `dynamo:"checkoutExpiresAt"`
	SubscriptionID    string     `dynamo:"subscriptionId"`
	CurrentPeriodEnd  *time.Time `dynamo:"currentPeriodEnd"`
	StartedAt         *time.Time `dynamo:"startedAt"`
	CanceledAt        *time.Time `dynamo:"canceledAt"`
	EndedAt           *time.Time `dynamo:"endedAt"`
	// LeavesTier is billing.Premium.LeavesTier: absent on a subscription
	// that made its account premium, so a record from before the
	// attribute ends as it did then (downgrading premium).
	LeavesTier bool `dynamo:"leavesTier,omitempty"`
}

func (it premiumItem) toPremium() *billing.Premium {
	status := billing.Status(it.Status)
	if status == "" {
		status = billing.None
	}
	return &billing.Premium{UserID: it.UserID, Status: status, CheckoutSessionID: it.CheckoutSessionID, CheckoutURL: it.CheckoutURL,
		CheckoutExpiresAt: it.CheckoutExpiresAt, SubscriptionID: it.SubscriptionID, CurrentPeriodEnd: it.CurrentPeriodEnd,
		StartedAt: it.StartedAt, CanceledAt: it.CanceledAt, EndedAt: it.EndedAt, LeavesTier: it.LeavesTier}
}

// GetPremium reads the record (strongly consistent); none is Status None.
func (s *Billing) GetPremium(ctx context.Context, userID string) (*billing.Premium, error) {
	var it premiumItem
	err := s.t.get(PremiumKey(userID)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return &billing.Premium{UserID: userID, Status: billing.None}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get premium of %s: %w", userID, err)
	}
	return it.toPremium(), nil
}

// premiumUpdate starts an update of the record that keeps its identity
// attributes.
func (s *Billing) premiumUpdate(userID string, at time.Time) *dynamo.Update {
	return s.t.update(PremiumKey(userID)).Set("type", typePremium).Set("userId", userID).Set("updatedAt", at.UTC())
}

// PutCheckout records the session started, conditional on the record's
// session being prev still.
func (s *Billing) PutCheckout(ctx context.Context, userID, prev string, c payments.Checkout, at time.Time) error {
	upd := s.premiumUpdate(userID, at).Set("checkoutSessionId", c.ID).Set("checkoutUrl", c.URL).
		Set("checkoutExpiresAt", c.ExpiresAt.UTC()).SetIfNotExists("status", string(billing.None))
	if prev == "" {
		upd = upd.If("attribute_not_exists(checkoutSessionId)")
	} else {
		upd = upd.If("checkoutSessionId = ?", prev)
	}
	if err := s.t.tx().update(upd, billing.ErrChanged).run(ctx); err != nil {
		return fmt.Errorf("put checkout of %s: %w", userID, err)
	}
	return nil
}

// Activate records sub, and upgrades the tier when asked, in one
// transaction conditional on the record holding no subscription, or
// another one that has ended (so the late completion of an old checkout
// never replaces a live subscription): of two concurrent completions
// (the client's confirm and the provider's webhook) one commits, the
// other is ErrAlreadyActivated. The upgrade is conditional on the tier
// being free still: a tier an operator set since it was read (bookstore,
// or premium) is never overwritten (billing.ErrTierChanged). A
// subscription recorded without the upgrade leaves the tier at its end
// (leavesTier).
func (s *Billing) Activate(ctx context.Context, userID, sessionID string, sub payments.Subscription, upgrade bool, at time.Time) error {
	upd := s.premiumUpdate(userID, at).Set("subscriptionId", sub.ID).Set("status", string(statusOf(sub))).
		Set("startedAt", at.UTC()).Set("checkoutSessionId", sessionID).Remove("endedAt").
		If("attribute_not_exists(subscriptionId) OR (subscriptionId <> ? AND $ = ?)", sub.ID, "status", string(billing.Ended))
	if upgrade {
		upd = upd.Remove("leavesTier")
	} else {
		upd = upd.Set("leavesTier", true)
	}
	upd = withPeriod(upd, sub, at)
	x := s.t.tx().update(upd, billing.ErrAlreadyActivated)
	if upgrade {
		x.update(s.t.update(UserKey(userID)).Set("tier", string(users.TierPremium)).Set("updatedAt", at.UTC()).
			If("attribute_exists(PK) AND tier = ?", string(users.TierFree)), billing.ErrTierChanged)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("activate premium of %s: %w", userID, err)
	}
	return nil
}

// Update records sub's period and cancellation if it is the user's
// subscription, not ended.
func (s *Billing) Update(ctx context.Context, userID string, sub payments.Subscription, at time.Time) error {
	upd := s.premiumUpdate(userID, at).Set("status", string(statusOf(sub))).
		If("subscriptionId = ? AND $ <> ?", sub.ID, "status", string(billing.Ended))
	upd = withPeriod(upd, sub, at)
	if err := s.t.tx().update(upd, billing.ErrChanged).run(ctx); err != nil {
		return fmt.Errorf("update premium of %s: %w", userID, err)
	}
	return nil
}

// Release marks the subscription as leaving the tier at its end (an
// operator's tier change took the tier over), if it is the user's
// subscription and not ended.
func (s *Billing) Release(ctx context.Context, userID, subscriptionID string, at time.Time) error {
	upd := s.premiumUpdate(userID, at).Set("leavesTier", true).
		If("subscriptionId = ? AND $ <> ?", subscriptionID, "status", string(billing.Ended))
	if err := s.t.tx().update(upd, billing.ErrChanged).run(ctx); err != nil {
		return fmt.Errorf("release premium of %s: %w", userID, err)
	}
	return nil
}

// End ends sub and, when downgrade, returns a premium tier to free, in
// one transaction; a tier no longer premium (an operator's since it was
// read), or a subscription released since (leavesTier), is
// billing.ErrTierChanged, so that the caller reads them again rather
// than take the end for a replay.
func (s *Billing) End(ctx context.Context, userID, subscriptionID string, downgrade bool, at time.Time) error {
	upd := s.premiumUpdate(userID, at).Set("status", string(billing.Ended)).Set("endedAt", at.UTC())
	x := s.t.tx()
	if downgrade {
		x.update(upd.If("subscriptionId = ? AND $ <> ? AND attribute_not_exists(leavesTier)", subscriptionID, "status", string(billing.Ended)),
			billing.ErrTierChanged)
	} else {
		x.update(upd.If("subscriptionId = ? AND $ <> ?", subscriptionID, "status", string(billing.Ended)), billing.ErrChanged)
	}
	if downgrade {
		x.update(s.t.update(UserKey(userID)).Set("tier", string(users.TierFree)).Set("updatedAt", at.UTC()).
			If("tier = ?", string(users.TierPremium)), billing.ErrTierChanged)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("end premium of %s: %w", userID, err)
	}
	return nil
}

func statusOf(sub payments.Subscription) billing.Status {
	switch {
	case sub.Ended():
		return billing.Ended
	case sub.CancelAtPeriodEnd:
		return billing.Canceling
	case sub.PastDue():
		return billing.PastDue
	}
	return billing.Active
}

func withPeriod(upd *dynamo.Update, sub payments.Subscription, at time.Time) *dynamo.Update {
	if !sub.CurrentPeriodEnd.IsZero() {
		upd = upd.Set("currentPeriodEnd", sub.CurrentPeriodEnd.UTC())
	}
	if sub.CancelAtPeriodEnd {
		upd = upd.SetIfNotExists("canceledAt", at.UTC())
	} else {
		upd = upd.Remove("canceledAt")
	}
	return upd
}
