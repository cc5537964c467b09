package applications

import (
	"context"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
)

// Service applies, lists and decides bookstore applications.
type Service struct {
	store Storer
	now   func() time.Time
}

// NewService is the service over store; now nil is the wall clock.
func NewService(store Storer, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now}
}

// Address is an application's address as a client sends it: a store's
// address fields (stores.Profile), nil when left out.
type Address struct {
	AddressLine1, AddressLine2, City, State, PostalCode, Country *string
}

// Input is an application as a client sends it.
type Input struct {
	StoreName *string
	Address   Address
	Website   *string
	Note      *string
}

// Apply records caller's application. The store's name, address and
// website are checked as a store's creation checks them (named here
// storeName, address.<field> and website); the note is free text.
// Errors: a validation error naming each bad field; ErrGuest;
// ErrAlreadyBookstore; ErrOpen.
func (s *Service) Apply(ctx context.Context, caller *users.User, in Input) (*Application, error) {
	var f apperr.Fields
	st, err := stores.CheckProspect(stores.Profile{Name: in.StoreName, AddressLine1: in.Address.AddressLine1,
		AddressLine2: in.Address.AddressLine2, City: in.Address.City, State: in.Address.State,
		PostalCode: in.Address.PostalCode, Country: in.Address.Country, Website: in.Website})
	if e, ok := apperr.As(err); ok {
		fields, _ := e.Details["fields"].(map[string]string)
		for field, msg := range fields {
			switch field {
			case "name":
				f.Add("storeName", msg)
			case "website":
				f.Add("website", msg)
			default:
				f.Add("address."+field, msg)
			}
		}
	} else if err != nil {
		return nil, err
	}
	note := ""
	if in.Note != nil {
		var msg string
		note, msg = text.Prose(*in.Note, MaxNoteLen)
		f.Add("note", msg)
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	switch {
	case caller.IsGuest:
		return nil, ErrGuest
	case caller.Tier == users.TierBookstore:
		return nil, ErrAlreadyBookstore
	}
	a := &Application{ID: ids.New(), UserID: caller.ID, Username: caller.Username, Email: caller.Email,
		StoreName: st.Name, Address: st.Address, Website: st.Website, Note: note, Status: Pending,
		CreatedAt: s.now().UTC()}
	if err := s.store.Create(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// Latest is the account's latest application. Errors: ErrNone.
func (s *Service) Latest(ctx context.Context, userID string) (*Application, error) {
	return s.store.Latest(ctx, userID)
}

// Get reads an application. Errors: ErrNotFound.
func (s *Service) Get(ctx context.Context, id string) (*Application, error) {
	return s.store.Get(ctx, id)
}

// ParseStatus reads a status filter: "" is Pending (the queue).
// Errors: a validation error naming status.
func ParseStatus(v string) (Status, error) {
	if v == "" {
		return Pending, nil
	}
	if st := Status(v); st.Valid() {
		return st, nil
	}
	return "", apperr.Validation("status must be pending, approved or declined", map[string]string{"status": "must be pending, approved or declined"})
}

// List pages the applications of status (Storer.List's orders).
func (s *Service) List(ctx context.Context, status Status, c page.Cursor) (page.Page[*Application], error) {
	return s.store.List(ctx, status, c)
}

// Approve gives a's applicant the bookstore tier, by operatorID, with an
// optional reason. a is the application as read (Get), from the
// applicant's tier as read; the decision is recorded only if the
// application is still pending and the tier still from. Errors: a
// validation error naming reason; ErrDecided; users.ErrChanged.
func (s *Service) Approve(ctx context.Context, a *Application, from users.Tier, operatorID, reason string) (*Application, error) {
	return s.decide(ctx, a, Approved, from, operatorID, reason, false)
}

// Decline declines a, by operatorID, with a reason (required: the
// applicant is told it). Errors: as Approve's.
func (s *Service) Decline(ctx context.Context, a *Application, operatorID, reason string) (*Application, error) {
	return s.decide(ctx, a, Declined, "", operatorID, reason, true)
}

// CheckReason checks a decision's reason: required for a decline.
func CheckReason(reason string, required bool) (string, error) {
	var r, msg string
	if required {
		r, msg = text.Body(reason, MaxReasonLen)
	} else {
		r, msg = text.Prose(reason, MaxReasonLen)
	}
	if msg != "" {
		return "", apperr.Validation("Invalid reason", map[string]string{"reason": msg})
	}
	return strings.TrimSpace(r), nil
}

func (s *Service) decide(ctx context.Context, a *Application, to Status, from users.Tier, operatorID, reason string, required bool) (*Application, error) {
	reason, err := CheckReason(reason, required)
	if err != nil {
		return nil, err
	}
	if a.Status != Pending {
		return nil, ErrDecided
	}
	d := *a
	at := s.now().UTC()
	d.Status, d.Reason, d.DecidedBy, d.DecidedAt = to, reason, operatorID, &at
	ev, err := decided(&d)
	if err != nil {
		return nil, err
	}
	if err := s.store.Decide(ctx, &d, from, ev); err != nil {
		return nil, err
	}
	return &d, nil
}
