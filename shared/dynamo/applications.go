package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
)

// Bookstore applications (shared/applications). Keys (docs/data-model.md):
//
//   - ApplicationKey: one item per application, read by id, queued on
//     GSI1 by status (applicationQueue): the pending ones by creation,
//     oldest first; the decided ones by decision, newest first.
//   - ApplicationOfKey: in the account's partition, a copy of the
//     account's latest application. It is the one-open-application
//     claim (a new application is put only if it is absent or not
//     pending, in the application's transaction) and the applicant's
//     read in one GetItem.
const (
	applicationPrefix  = "BOOKAPP#"
	applicationQueuePK = "BOOKAPPS#"
	typeApplication    = "BookstoreApplication"
	typeApplicationOf  = "BookstoreApplicationOf"
)

// ApplicationKey is the item of one application.
func ApplicationKey(id string) Key { return Key{applicationPrefix + id, "BOOKAPP"} }

// ApplicationOfKey is the account's latest application (its copy).
func ApplicationOfKey(userID string) Key { return Key{UserKey(userID).PK, "BOOKAPP"} }

// applicationQueue lists the applications of a status: pending oldest
// first, decided newest first.
func applicationQueue(s applications.Status) list {
	return list{index: GSI1, pk: applicationQueuePK + string(s), desc: s != applications.Pending}
}

// applicationQueueKey is where an application is in its status's queue:
// by creation while pending, by decision once decided.
func applicationQueueKey(a *applications.Application) (pk, sk string) {
	at := a.CreatedAt
	if a.DecidedAt != nil {
		at = *a.DecidedAt
	}
	return applicationQueuePK + string(a.Status), timeIDKey(at, a.ID)
}

// Applications stores bookstore applications.
type Applications struct{ t *table }

var _ applications.Storer = (*Applications)(nil)

// NewApplications is the applications' storage.
func NewApplications(h Handle) *Applications { return &Applications{h.table()} }

// applicationItem is an application as stored, both as its own item and
// as the account's latest copy (without the queue's keys).
type applicationItem struct {
	PK           string     `dynamo:"PK"`
	SK           string     `dynamo:"SK"`
	Type         string     `dynamo:"type"`
	GSI1PK       string     `dynamo:"GSI1PK,omitempty"`
	GSI1SK       string     `dynamo:"GSI1SK,omitempty"`
	ID           string     `dynamo:"id"`
	UserID       string     `dynamo:"userId"`
	Username     string     `dynamo:"username"`
	Email        string     `dynamo:"email"`
	StoreName    string     `dynamo:"storeName"`
	AddressLine1 string     `dynamo:"addressLine1"`
	AddressLine2 string     `dynamo:"addressLine2,omitempty"`
	City         string     `dynamo:"city"`
	State        string     `dynamo:"state,omitempty"`
	PostalCode   string     `dynamo:"postalCode"`
	Country      string     `dynamo:"country"`
	Website      string     `dynamo:"website,omitempty"`
	Note         string     `dynamo:"note,omitempty"`
	Status       string     `dynamo:"status"`
	Reason       string     `dynamo:"reason,omitempty"`
	DecidedBy    string     `dynamo:"decidedBy,omitempty"`
	DecidedAt    *time.Time `dynamo:"decidedAt,omitempty"`
	CreatedAt    time.Time  `dynamo:"createdAt"`
}

func newApplicationItem(a *applications.Application) applicationItem {
	k := ApplicationKey(a.ID)
	it := applicationItem{PK: k.PK, SK: k.SK, Type: typeApplication,
		ID: a.ID, UserID: a.UserID, Username: a.Username, Email: a.Email, StoreName: a.StoreName,
		AddressLine1: a.Address.AddressLine1, AddressLine2: a.Address.AddressLine2, City: a.Address.City,
		State: a.Address.State, PostalCode: a.Address.PostalCode, Country: a.Address.Country,
		Website: a.Website, Note: a.Note, Status: string(a.Status), Reason: a.Reason, DecidedBy: a.DecidedBy,
		CreatedAt: a.CreatedAt.UTC()}
	it.GSI1PK, it.GSI1SK = applicationQueueKey(a)
	if a.DecidedAt != nil {
		at := a.DecidedAt.UTC()
		it.DecidedAt = &at
	}
	return it
}

// latestCopy is the item as the account's latest application.
func (it applicationItem) latestCopy() applicationItem {
	k := ApplicationOfKey(it.UserID)
	it.PK, it.SK, it.Type, it.GSI1PK, it.GSI1SK = k.PK, k.SK, typeApplicationOf, "", ""
	return it
}

func (it applicationItem) toApplication() *applications.Application {
	return &applications.Application{ID: it.ID, UserID: it.UserID, Username: it.Username, Email: it.Email,
		StoreName: it.StoreName, Address: stores.Address{AddressLine1: it.AddressLine1, AddressLine2: it.AddressLine2,
			City: it.City, State: it.State, PostalCode: it.PostalCode, Country: it.Country},
		Website: it.Website, Note: it.Note, Status: applications.Status(it.Status), Reason: it.Reason,
		DecidedBy: it.DecidedBy, DecidedAt: it.DecidedAt, CreatedAt: it.CreatedAt}
}

// errApplicationIDTaken is a new application's id colliding with a
// stored one: a UUID collision or a bug.
var errApplicationIDTaken = errors.New("bookstore application id already exists")

// Create puts the application and the account's latest copy in one
// TransactWriteItems, the copy only if the account has none or its
// latest is not pending: one open application per account, exact under
// concurrent applications. Errors: applications.ErrOpen.
func (s *Applications) Create(ctx context.Context, a *applications.Application) error {
	it := newApplicationItem(a)
	err := s.t.tx().
		put(s.t.put(it.latestCopy()).If("attribute_not_exists(PK) OR $ <> ?", "status", string(applications.Pending)), applications.ErrOpen).
		put(s.t.put(it).If("attribute_not_exists(PK)"), errApplicationIDTaken).
		run(ctx)
	if err != nil {
		return fmt.Errorf("create bookstore application of %s: %w", a.UserID, err)
	}
	return nil
}

// Get reads an application (strongly consistent). Errors:
// applications.ErrNotFound.
func (s *Applications) Get(ctx context.Context, id string) (*applications.Application, error) {
	return getOne(ctx, s.t, ApplicationKey(id), applicationItem.toApplication, applications.ErrNotFound, "bookstore application "+id)
}

// Latest reads the account's latest application: one GetItem of its
// copy. Errors: applications.ErrNone.
func (s *Applications) Latest(ctx context.Context, userID string) (*applications.Application, error) {
	return getOne(ctx, s.t, ApplicationOfKey(userID), applicationItem.toApplication, applications.ErrNone, "bookstore application of "+userID)
}

// List pages the applications of a status from GSI1 (one Query).
func (s *Applications) List(ctx context.Context, status applications.Status, c page.Cursor) (page.Page[*applications.Application], error) {
	return queryMapped(ctx, s.t, applicationQueue(status), c, applicationItem.toApplication)
}

// Decide writes d's decision in one TransactWriteItems: the application
// (moved to its status's queue) and the account's latest copy, each
// only if still pending; for an approval the account's tier, set to
// bookstore only if the account exists with the tier its caller read
// (from: a premium checkout completed since, whose subscription the
// back office stops first, is never overwritten unseen); the event's
// outbox item; and the operator's audit entry, which tx.run adds from
// ctx. Errors: applications.ErrDecided, users.ErrChanged.
func (s *Applications) Decide(ctx context.Context, d *applications.Application, from users.Tier, ev events.Event) error {
	if d.DecidedAt == nil || d.Status == applications.Pending {
		return fmt.Errorf("decide bookstore application %s: no decision", d.ID)
	}
	it := newApplicationItem(d)
	x := s.t.tx()
	for _, part := range []struct {
		k     Key
		queue bool
	}{{ApplicationKey(d.ID), true}, {ApplicationOfKey(d.UserID), false}} {
		u := s.t.update(part.k).Set("status", it.Status).Set("decidedBy", it.DecidedBy).Set("decidedAt", *it.DecidedAt).
			If("$ = ? AND id = ?", "status", string(applications.Pending), d.ID)
		if it.Reason != "" {
			u = u.Set("reason", it.Reason)
		}
		if part.queue {
			u = u.Set("GSI1PK", it.GSI1PK).Set("GSI1SK", it.GSI1SK)
		}
		x.update(u, applications.ErrDecided)
	}
	if d.Status == applications.Approved {
		c, args := tierCondition(from)
		x.update(s.t.update(UserKey(d.UserID)).Set("tier", string(users.TierBookstore)).Set("updatedAt", it.DecidedAt.UTC()).
			If("attribute_exists(PK) AND "+c, args...), users.ErrChanged)
	}
	if err := x.emit(ev).run(ctx); err != nil {
		return fmt.Errorf("decide bookstore application %s: %w", d.ID, err)
	}
	return nil
}
