// Package billing is how a reader buys the premium tier: a monthly
// subscription bought on the payment provider's hosted checkout
// (payments.Subscriptions). The caller becomes premium only when the
// provider says the checkout is complete and paid, whether the client
// confirms it or the provider's signed webhook says so first; both paths
// run the same conditional transaction, so twice (or both at once) is one
// upgrade, and the provider charges once per session. Cancelling stops
// the renewal: the caller stays premium to the end of the paid period,
// and the provider's customer.subscription.deleted webhook returns them
// to free (docs/decisions.md, "Premium by subscription"). A renewal whose
// payment failed (past_due) keeps premium while the provider retries;
// unpaid (the retries failed) or paused ends the subscription at the
// provider and returns the user to free ("What a subscription's status
// means for the tier").
package billing

import (
	"context"
	"errors"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/users"
)

// Status is where a user's premium subscription stands.
type Status string

// The statuses.
const (
	// None: never subscribed (a checkout may be open).
	None Status = "none"
	// Active: paid and renewing.
	Active Status = "active"
	// PastDue: a renewal's payment failed and the provider is retrying
	// it; premium meanwhile.
	PastDue Status = "past_due"
	// Canceling: paid to CurrentPeriodEnd, not renewing.
	Canceling Status = "canceling"
	// Ended: the subscription is over; the user is back to free.
	Ended Status = "ended"
)

// Premium is a user's subscription record (one per user).
type Premium struct {
	UserID string
	Status Status
	// The latest checkout session started, its page and its end.
	CheckoutSessionID string
	CheckoutURL       string
	CheckoutExpiresAt time.Time
	SubscriptionID    string
	CurrentPeriodEnd  *time.Time
	StartedAt         *time.Time
	CanceledAt        *time.Time
	EndedAt           *time.Time
	// LeavesTier: the subscription's end leaves the account's tier as it
	// is, because the subscription did not make it premium (it was
	// completed over a tier an operator set) or an operator's tier
	// change took the tier over since (StopRenewal). Otherwise its end
	// returns a premium account to free.
	LeavesTier bool
}

// Plan is what premium costs: one price a month.
type Plan struct {
	Product     string
	AmountCents int64
	Currency    string
}

// DefaultPlan is premium's price (docs/decisions.md).
var DefaultPlan = Plan{Product: "Premium membership", AmountCents: 499, Currency: "usd"}

// Storer keeps the records (shared/dynamo.Billing).
type Storer interface {
	// GetPremium reads a user's record; none is a zero record with
	// Status None.
	GetPremium(ctx context.Context, userID string) (*Premium, error)
	// PutCheckout records the session started, if the record's session is
	// still prev (ErrChanged otherwise: a concurrent checkout won).
	PutCheckout(ctx context.Context, userID, prev string, c payments.Checkout, at time.Time) error
	// Activate records sub as the user's subscription and, when upgrade,
	// sets the user's tier to premium, in one transaction conditional on
	// the record holding another subscription or none
	// (ErrAlreadyActivated) and, when upgrade, on the tier being free
	// still (ErrTierChanged: an operator set another since it was read).
	// A subscription recorded without the upgrade leaves the tier at its
	// end (LeavesTier).
	Activate(ctx context.Context, userID, sessionID string, sub payments.Subscription, upgrade bool, at time.Time) error
	// Update records sub's period and cancellation, if it is still the
	// user's subscription and not ended (ErrChanged otherwise).
	Update(ctx context.Context, userID string, sub payments.Subscription, at time.Time) error
	// Release sets LeavesTier, if subscriptionID is still the user's
	// subscription and not ended (ErrChanged otherwise).
	Release(ctx context.Context, userID, subscriptionID string, at time.Time) error
	// End ends sub and, when downgrade, sets the tier back to free if it
	// is premium, in one transaction conditional on sub being the user's
	// subscription and not ended (ErrChanged otherwise) and, when
	// downgrade, on the tier being premium still and the record not
	// LeavesTier (ErrTierChanged, also for a sub ended meanwhile: the
	// caller reads again).
	End(ctx context.Context, userID, subscriptionID string, downgrade bool, at time.Time) error
}

// Users reads accounts.
type Users interface {
	GetUser(ctx context.Context, id string) (*users.User, error)
}

// Errors.
var (
	ErrNotFree        = apperr.Conflict("Only a free account can buy premium: this account is premium or bookstore already")
	ErrActive         = apperr.Conflict("This account's premium subscription is active already")
	ErrNoSubscription = apperr.Conflict("This account has no active premium subscription")
	ErrNotPaid        = apperr.Validation("Payment not completed",
		map[string]string{"checkoutSessionId": "the payment of this checkout session is not completed"})
	ErrExpired = apperr.Validation("Checkout session expired",
		map[string]string{"checkoutSessionId": "this checkout session expired unpaid: start another"})
	// ErrChanged, ErrAlreadyActivated and ErrTierChanged are the
	// store's refusals (ErrTierChanged: the account's tier is not the
	// one the caller read, free for an upgrade, premium for a downgrade).
	ErrChanged          = errors.New("billing: the record changed")
	ErrAlreadyActivated = errors.New("billing: the subscription is recorded already")
	ErrTierChanged      = errors.New("billing: the account's tier changed since it was read")
)

// live reports whether the record's subscription still bills its user:
// it renews (active, or past_due while the provider retries a payment).
// A canceling one charges nothing more.
func (p *Premium) live() bool { return p.Status == Active || p.Status == PastDue }

// Deps are what a Service is built from.
type Deps struct {
	Store Storer
	Users Users
	// Provider is nil when payments are not configured (every call is
	// payments.ErrNotConfigured).
	Provider payments.Subscriptions
	Plan     Plan
	// UpgradeURL is the app's premium page: the provider's page sends the
	// buyer back to it (UPGRADE_URL, the monthly-limit answer's upgradeUrl).
	UpgradeURL string
	Now        func() time.Time
}

// Service buys, reads and cancels premium.
type Service struct{ d Deps }

// NewService returns the service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Plan.AmountCents == 0 {
		d.Plan = DefaultPlan
	}
	return &Service{d: d}
}

// Plan is premium's price.
func (s *Service) Plan() Plan { return s.d.Plan }

// Checkout answers the caller's open checkout session, or starts one: a
// free account only. A session open already (or complete and not yet
// recorded) is answered again, so a retried or doubled call makes one
// session; two at once share the provider's idempotency key (the user
// and the session they replace), so they get the same session too.
func (s *Service) Checkout(ctx context.Context, u *users.User) (payments.Checkout, error) {
	if s.d.Provider == nil {
		return payments.Checkout{}, payments.ErrNotConfigured
	}
	if u.Tier != users.TierFree {
		return payments.Checkout{}, ErrNotFree
	}
	p, err := s.d.Store.GetPremium(ctx, u.ID)
	if err != nil {
		return payments.Checkout{}, err
	}
	if p.live() || p.Status == Canceling {
		return payments.Checkout{}, ErrActive
	}
	if p.CheckoutSessionID != "" {
		c, err := s.d.Provider.GetCheckout(ctx, p.CheckoutSessionID)
		if err != nil {
			return payments.Checkout{}, err
		}
		open := c.Status == payments.CheckoutOpen
		unrecorded := c.Status == payments.CheckoutComplete && c.Subscription != nil && c.Subscription.ID != p.SubscriptionID
		if open || unrecorded {
			if c.URL == "" {
				c.URL = p.CheckoutURL
			}
			return c, nil
		}
	}
	c, err := s.d.Provider.StartCheckout(ctx, payments.SubscriptionCheckout{
		UserID: u.ID, Email: u.Email, Product: s.d.Plan.Product, AmountCents: s.d.Plan.AmountCents, Currency: s.d.Plan.Currency,
		SuccessURL: s.d.UpgradeURL + "?checkout=complete&session_id={CHECKOUT_SESSION_ID}", CancelURL: s.d.UpgradeURL + "?checkout=canceled",
		IdempotencyKey: "premium-checkout:" + u.ID + ":" + p.CheckoutSessionID,
	})
	if err != nil {
		return payments.Checkout{}, err
	}
	err = s.d.Store.PutCheckout(ctx, u.ID, p.CheckoutSessionID, c, s.d.Now())
	if errors.Is(err, ErrChanged) {
		// A concurrent call recorded its session first: it is this one
		// (the same idempotency key), or one the next call answers.
		return c, nil
	}
	return c, err
}

// Confirm makes the caller premium when their checkout session is
// complete and paid. Errors: payments.ErrMalformedCheckout (400),
// payments.ErrNoCheckout (404: also another user's session), ErrNotPaid,
// ErrExpired.
func (s *Service) Confirm(ctx context.Context, userID, sessionID string) (*Premium, error) {
	if s.d.Provider == nil {
		return nil, payments.ErrNotConfigured
	}
	c, err := s.d.Provider.GetCheckout(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if c.UserID != userID {
		return nil, payments.ErrNoCheckout
	}
	return s.complete(ctx, c)
}

// CheckoutCompleted is the provider's checkout.session.completed: the
// session is read again from the provider (with its subscription), so
// only what the provider holds counts.
func (s *Service) CheckoutCompleted(ctx context.Context, ev payments.Checkout) error {
	if s.d.Provider == nil {
		return payments.ErrNotConfigured
	}
	c, err := s.d.Provider.GetCheckout(ctx, ev.ID)
	if errors.Is(err, payments.ErrNoCheckout) || errors.Is(err, payments.ErrMalformedCheckout) {
		return nil // not ours: acknowledged, ignored
	}
	if err != nil {
		return err
	}
	if c.UserID == "" {
		return nil
	}
	_, err = s.complete(ctx, c)
	if errors.Is(err, ErrNotPaid) || errors.Is(err, ErrExpired) {
		return nil
	}
	return err
}

// complete records a completed and paid session's subscription, once.
// The tier moves from free to premium only: an account an operator made
// premium or bookstore while its checkout was open keeps its tier, and
// the subscription it paid for is recorded but stops renewing (the
// period paid is the one charge; docs/decisions.md, "A checkout completed
// over another tier").
func (s *Service) complete(ctx context.Context, c payments.Checkout) (*Premium, error) {
	switch {
	case c.Status == payments.CheckoutExpired:
		return nil, ErrExpired
	case c.Status != payments.CheckoutComplete || !c.Paid || c.Subscription == nil:
		return nil, ErrNotPaid
	}
	sub := *c.Subscription
	if sub.Status == "" {
		var err error
		if sub, err = s.d.Provider.GetSubscription(ctx, sub.ID); err != nil {
			return nil, err
		}
	}
	if !sub.Premium() {
		// An old checkout's subscription, ended (or lapsed) since (a late
		// confirm or a redelivered webhook): nothing to record, the
		// record is as it stands.
		return s.d.Store.GetPremium(ctx, c.UserID)
	}
	for attempt := 0; ; attempt++ {
		p, err := s.d.Store.GetPremium(ctx, c.UserID)
		if err != nil {
			return nil, err
		}
		if p.SubscriptionID == sub.ID {
			return p, nil // recorded already: a repeat, or the other path first
		}
		u, err := s.d.Users.GetUser(ctx, c.UserID)
		if err != nil {
			return nil, err
		}
		upgrade := u.Tier == users.TierFree
		if !upgrade && !sub.CancelAtPeriodEnd {
			// Before the record, so that a failure here is retried (the
			// webhook's redelivery, the client's confirm) while the
			// record does not hold the subscription yet; a repeat sets
			// it again.
			if sub, err = s.d.Provider.CancelAtPeriodEnd(ctx, sub.ID); err != nil {
				return nil, err
			}
		}
		err = s.d.Store.Activate(ctx, c.UserID, c.ID, sub, upgrade, s.d.Now())
		if errors.Is(err, ErrTierChanged) && attempt == 0 {
			continue // an operator set the tier since it was read: again, with the tier as it is
		}
		if err != nil && !errors.Is(err, ErrAlreadyActivated) {
			return nil, err
		}
		return s.d.Store.GetPremium(ctx, c.UserID)
	}
}

// Get reads the caller's record.
func (s *Service) Get(ctx context.Context, userID string) (*Premium, error) {
	return s.d.Store.GetPremium(ctx, userID)
}

// Cancel stops the caller's subscription renewing: premium to the end of
// the paid period. A subscription canceling already is answered as it
// is. Errors: ErrNoSubscription (none active).
func (s *Service) Cancel(ctx context.Context, userID string) (*Premium, error) {
	if s.d.Provider == nil {
		return nil, payments.ErrNotConfigured
	}
	p, err := s.d.Store.GetPremium(ctx, userID)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Status == Canceling:
		return p, nil
	case !p.live():
		return nil, ErrNoSubscription
	}
	sub, err := s.d.Provider.CancelAtPeriodEnd(ctx, p.SubscriptionID)
	if err != nil {
		return nil, err
	}
	if err := s.d.Store.Update(ctx, userID, sub, s.d.Now()); err != nil && !errors.Is(err, ErrChanged) {
		return nil, err
	}
	return s.d.Store.GetPremium(ctx, userID)
}

// Stopped is what StopRenewal did to a subscription.
type Stopped struct {
	// SubscriptionID is the subscription stopped, "" when the account
	// had none billing it.
	SubscriptionID string
	// AtOnce: it was past_due (its period unpaid, the provider retrying
	// the invoice) and was cancelled at once, rather than at the end of
	// a period paid.
	AtOnce bool
}

// Renewal says what StopRenewal would stop for userID now (the zero
// Stopped when no subscription renews), so that the audit entry of the
// tier change that precedes the stop can name it.
func (s *Service) Renewal(ctx context.Context, userID string) (Stopped, error) {
	p, err := s.d.Store.GetPremium(ctx, userID)
	if err != nil || !p.live() {
		return Stopped{}, err
	}
	return Stopped{SubscriptionID: p.SubscriptionID, AtOnce: p.Status == PastDue}, nil
}

// StopRenewal is the back office's: once an operator set the tier of an
// account whose subscription still bills it, the subscription is stopped
// through the provider, so nothing more is charged: an active
// one at the end of its paid period (the record says canceling), a
// past_due one at once (its current period is unpaid and the provider
// would keep retrying its invoice; the record says ended, and the tier
// is the operator's to set). Either way the subscription no longer
// holds the tier (LeavesTier, also for one canceling already): its end
// leaves the tier the operator set, even premium set again later. A
// past_due one is ended here without a downgrade; the provider's
// deletion event that follows finds it ended. Idempotent: a repeat
// finds nothing renewing.
func (s *Service) StopRenewal(ctx context.Context, userID string) (Stopped, error) {
	p, err := s.d.Store.GetPremium(ctx, userID)
	if err != nil {
		return Stopped{}, err
	}
	switch {
	case p.Status == Canceling && !p.LeavesTier:
		return Stopped{}, s.release(ctx, userID, p.SubscriptionID)
	case !p.live():
		return Stopped{}, nil
	case s.d.Provider == nil:
		return Stopped{}, payments.ErrNotConfigured
	case p.Status == PastDue:
		sub, err := s.d.Provider.Cancel(ctx, p.SubscriptionID)
		if err != nil {
			return Stopped{}, err
		}
		if err := s.d.Store.End(ctx, userID, sub.ID, false, s.d.Now()); err != nil && !errors.Is(err, ErrChanged) {
			return Stopped{}, err
		}
		return Stopped{SubscriptionID: sub.ID, AtOnce: true}, nil
	}
	sub, err := s.d.Provider.CancelAtPeriodEnd(ctx, p.SubscriptionID)
	if err != nil {
		return Stopped{}, err
	}
	if err := s.d.Store.Update(ctx, userID, sub, s.d.Now()); err != nil && !errors.Is(err, ErrChanged) {
		return Stopped{}, err
	}
	if !p.LeavesTier {
		if err := s.release(ctx, userID, sub.ID); err != nil {
			return Stopped{}, err
		}
	}
	return Stopped{SubscriptionID: sub.ID}, nil
}

func (s *Service) release(ctx context.Context, userID, subscriptionID string) error {
	err := s.d.Store.Release(ctx, userID, subscriptionID, s.d.Now())
	if errors.Is(err, ErrChanged) {
		return nil // ended meanwhile, or replaced: nothing left to release
	}
	return err
}

// SubscriptionChanged is the provider's customer.subscription.updated or
// .deleted: a new period, a cancellation or a failed renewal (past_due:
// premium while the provider retries) is recorded; a subscription no
// longer premium returns its user to free (if premium, and the
// subscription made them so: not LeavesTier). One unpaid (the retries
// failed), paused or incomplete is first read again from the provider
// (the event may be stale: paid since, it is recorded as it stands) and
// then cancelled at the provider, so that it charges nothing more and
// cannot turn active again behind a free account. Events of no user's
// current subscription are ignored.
func (s *Service) SubscriptionChanged(ctx context.Context, sub payments.Subscription) error {
	if sub.UserID == "" {
		return nil
	}
	if sub.Premium() {
		return s.update(ctx, sub)
	}
	userID := sub.UserID
	if !sub.Ended() {
		p, err := s.d.Store.GetPremium(ctx, userID)
		if err != nil {
			return err
		}
		if p.SubscriptionID != sub.ID || p.Status == Ended {
			return nil
		}
		if s.d.Provider == nil {
			return payments.ErrNotConfigured
		}
		// A failure answers the webhook 5xx: the provider redelivers it.
		if sub, err = s.d.Provider.GetSubscription(ctx, sub.ID); err != nil {
			return err
		}
		switch {
		case sub.Premium():
			sub.UserID = userID
			return s.update(ctx, sub) // paid since the event
		case !sub.Ended():
			if _, err := s.d.Provider.Cancel(ctx, sub.ID); err != nil {
				return err
			}
		}
	}
	for attempt := 0; ; attempt++ {
		p, err := s.d.Store.GetPremium(ctx, userID)
		if err != nil {
			return err
		}
		if p.SubscriptionID != sub.ID || p.Status == Ended {
			return nil // replayed, or not the user's subscription
		}
		u, err := s.d.Users.GetUser(ctx, userID)
		if errors.Is(err, users.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		err = s.d.Store.End(ctx, userID, sub.ID, u.Tier == users.TierPremium && !p.LeavesTier, s.d.Now())
		switch {
		case errors.Is(err, ErrTierChanged) && attempt == 0:
			continue // an operator set the tier since it was read, or a replay ended it: again, as they are
		case errors.Is(err, ErrChanged):
			return nil // replayed, or not the user's subscription
		}
		return err
	}
}

// update records a premium subscription's period and cancellation.
func (s *Service) update(ctx context.Context, sub payments.Subscription) error {
	err := s.d.Store.Update(ctx, sub.UserID, sub, s.d.Now())
	if errors.Is(err, ErrChanged) {
		return nil
	}
	return err
}
