package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/text"
)

// Store is the storage the owner's routes need (shared/dynamo's
// Webhooks).
type Store interface {
	// Create stores a new endpoint and counts it, refusing it when the
	// store already has max. Errors: ErrLimit.
	Create(ctx context.Context, e *Endpoint, max int) error
	// Endpoints lists a store's endpoints (any order).
	Endpoints(ctx context.Context, storeID string) ([]*Endpoint, error)
	// Endpoint reads one. Errors: ErrEndpointNotFound.
	Endpoint(ctx context.Context, storeID, id string) (*Endpoint, error)
	// Replace writes e (its Version already increased) if the stored
	// one is still at e.Version-1. Errors: ErrEndpointNotFound,
	// ErrChanged.
	Replace(ctx context.Context, e *Endpoint) error
	// Delete removes an endpoint and uncounts it. Errors:
	// ErrEndpointNotFound.
	Delete(ctx context.Context, storeID, id string) error
	// RecordTest records ev in the outbox if the endpoint still exists
	// and is active. Errors: ErrEndpointNotFound, ErrDisabled.
	RecordTest(ctx context.Context, e *Endpoint, ev events.Event) error
	// Deliveries lists an endpoint's deliveries newest first, only those
	// of status when it is not empty.
	Deliveries(ctx context.Context, endpointID string, status DeliveryStatus, c page.Cursor) (page.Page[*Delivery], error)
	// Delivery reads one. Errors: ErrDeliveryNotFound.
	Delivery(ctx context.Context, endpointID, id string) (*Delivery, error)
	// MarkRedelivery makes d (as read) pending for a manual attempt at
	// now, if it is still as read; Unmark puts it back as it was when
	// the attempt could not be queued. Errors: ErrChanged.
	MarkRedelivery(ctx context.Context, d *Delivery, now time.Time) (*Delivery, error)
	UnmarkRedelivery(ctx context.Context, before, marked *Delivery) error
}

// AttemptQueue sends one attempt to the webhooks queue (key:
// m.MessageKey()).
type AttemptQueue func(ctx context.Context, m Message) error

// Errors of the owner's routes.
var (
	// ErrLimit is a store at its limit of endpoints (Settings'
	// MaxEndpoints): the service answers it with the limit.
	ErrLimit = apperr.Validation("The store has as many webhook endpoints as it may", nil)
	// ErrChanged is an endpoint or delivery changed by another request
	// (or the worker) between its read and its write: the routes answer
	// 409, the worker reads it again and decides again.
	ErrChanged = apperr.Conflict("The webhook endpoint or delivery changed meanwhile; retry")
	// ErrDisabled is a test event for a disabled endpoint, which
	// receives nothing.
	ErrDisabled = apperr.Validation("The endpoint is disabled: enable it first (PUT with enabled: true)", map[string]string{"enabled": "the endpoint is disabled"})
	// ErrStillPending is a redelivery of a delivery that is still being
	// tried (an attempt is queued or scheduled).
	ErrStillPending = apperr.Conflict("The delivery is still pending: its next attempt is scheduled; redeliver it once it has succeeded or failed")
)

// Limits of an endpoint's fields.
const (
	MaxURLLength         = 2048
	MaxDescriptionLength = 200
)

// DisabledByOwner is the reason of an endpoint its owner disabled.
const DisabledByOwner = "disabled by the owner"

// Service is the owner's management of a store's endpoints and their
// deliveries. It imports no AWS package: storage and the queue are
// given.
type Service struct {
	store    Store
	queue    AttemptQueue
	settings Settings
	now      func() time.Time
}

// NewService is the service over store and queue with settings.
func NewService(store Store, queue AttemptQueue, s Settings, now func() time.Time) *Service {
	return &Service{store: store, queue: queue, settings: s, now: now}
}

// Settings are the service's settings.
func (s *Service) Settings() Settings { return s.settings }

// NewEndpoint is a registration as the owner asks for it.
type NewEndpoint struct {
	URL         string
	Events      []string
	Description string
}

// Create registers an endpoint for storeID with a new secret (returned
// in the endpoint: the only time beside a rotation the owner sees it).
// Errors: a validation error naming each bad field; ErrLimit's answer
// with the limit in its details.
func (s *Service) Create(ctx context.Context, storeID string, in NewEndpoint) (*Endpoint, error) {
	var f apperr.Fields
	u, msg := s.CheckURL(in.URL)
	f.Add("url", msg)
	evs, msg := CheckEvents(in.Events)
	f.Add("events", msg)
	desc, msg := text.Prose(in.Description, MaxDescriptionLength)
	f.Add("description", msg)
	if err := f.Err(); err != nil {
		return nil, err
	}
	now := s.now().UTC()
	e := &Endpoint{ID: ids.New(), StoreID: storeID, URL: u, Description: desc, Events: evs, Status: Active,
		Secret: NewSecret(), CreatedAt: now, UpdatedAt: now, Version: 1}
	if err := s.store.Create(ctx, e, s.settings.MaxEndpoints); err != nil {
		if errors.Is(err, ErrLimit) {
			return nil, &limitError{n: s.settings.MaxEndpoints}
		}
		return nil, err
	}
	return e, nil
}

// limitError is ErrLimit with the limit: it matches ErrLimit
// (errors.Is) and answers the limit in details.limit.
type limitError struct{ n int }

func (e *limitError) Error() string {
	return fmt.Sprintf("webhook endpoints: the limit of %d is reached", e.n)
}

// Is makes errors.Is(err, ErrLimit) hold.
func (e *limitError) Is(target error) bool { return target == ErrLimit }

// Unwrap is the 400 the owner gets.
func (e *limitError) Unwrap() error {
	return &apperr.Error{Code: apperr.CodeValidation,
		Message: fmt.Sprintf("A store may have at most %d webhook endpoints: delete one first", e.n),
		Details: map[string]any{"limit": e.n}}
}

// List is a store's endpoints, newest first.
func (s *Service) List(ctx context.Context, storeID string) ([]*Endpoint, error) {
	list, err := s.store.Endpoints(ctx, storeID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(list, func(a, b *Endpoint) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return list, nil
}

// Get is one endpoint of a store. An id that is not a UUID names none.
// Errors: ErrEndpointNotFound.
func (s *Service) Get(ctx context.Context, storeID, id string) (*Endpoint, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrEndpointNotFound
	}
	return s.store.Endpoint(ctx, storeID, id)
}

// Change is a partial update: nil fields stay as they are.
type Change struct {
	URL         *string
	Events      *[]string
	Description *string
	Enabled     *bool
}

// Update applies c to an endpoint. Disabling records DisabledByOwner;
// enabling clears the reason and the failures counted against it (the
// owner says the receiver is fixed). Errors: ErrEndpointNotFound, a
// validation error, ErrChanged when other changes kept winning.
func (s *Service) Update(ctx context.Context, storeID, id string, c Change) (*Endpoint, error) {
	var f apperr.Fields
	var u, desc string
	var evs []events.Type
	var msg string
	if c.URL != nil {
		u, msg = s.CheckURL(*c.URL)
		f.Add("url", msg)
	}
	if c.Events != nil {
		evs, msg = CheckEvents(*c.Events)
		f.Add("events", msg)
	}
	if c.Description != nil {
		desc, msg = text.Prose(*c.Description, MaxDescriptionLength)
		f.Add("description", msg)
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	return s.change(ctx, storeID, id, func(e *Endpoint, now time.Time) {
		if c.URL != nil {
			e.URL = u
		}
		if c.Events != nil {
			e.Events = evs
		}
		if c.Description != nil {
			e.Description = desc
		}
		if c.Enabled != nil {
			switch {
			case *c.Enabled && e.Status != Active:
				e.Status, e.DisabledReason, e.DisabledAt, e.ConsecutiveFailures = Active, "", nil, 0
			case !*c.Enabled && e.Status == Active:
				e.Status, e.DisabledReason, e.DisabledAt = Disabled, DisabledByOwner, &now
			}
		}
	})
}

// RotateSecret gives an endpoint a new secret; the one it had keeps
// signing beside it for the settings' SecretGrace (a secret rotated out
// before, still in its grace, stops at once: two secrets at most).
// Errors: ErrEndpointNotFound, ErrChanged.
func (s *Service) RotateSecret(ctx context.Context, storeID, id string) (*Endpoint, error) {
	return s.change(ctx, storeID, id, func(e *Endpoint, now time.Time) {
		until := now.Add(s.settings.SecretGrace)
		e.PreviousSecret, e.PreviousSecretExpiresAt, e.Secret = e.Secret, &until, NewSecret()
	})
}

// changeTries is how often a change is read and written again when
// another change (the delivery worker counting a failure) came between.
const changeTries = 3

// change reads an endpoint, applies edit and writes it if nothing
// changed it meanwhile, trying again from a fresh read a few times.
func (s *Service) change(ctx context.Context, storeID, id string, edit func(e *Endpoint, now time.Time)) (*Endpoint, error) {
	for range changeTries {
		e, err := s.Get(ctx, storeID, id)
		if err != nil {
			return nil, err
		}
		now := s.now().UTC()
		edit(e, now)
		e.UpdatedAt = now
		e.Version++
		err = s.store.Replace(ctx, e)
		if !errors.Is(err, ErrChanged) {
			if err != nil {
				return nil, err
			}
			return e, nil
		}
	}
	return nil, ErrChanged
}

// Delete removes an endpoint; its deliveries age out (DeliveryKeep in
// storage). Errors: ErrEndpointNotFound.
func (s *Service) Delete(ctx context.Context, storeID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrEndpointNotFound
	}
	return s.store.Delete(ctx, storeID, id)
}

// TestSent is what sending a test event answers: the event, and the id
// its delivery to the endpoint will have.
type TestSent struct {
	EventID    string
	DeliveryID string
}

// TestMessage is the text of a test event's data.
const TestMessage = "A test event sent by the store's owner: if you can read this, the endpoint receives and can verify deliveries."

// SendTest records a webhook.test event for one active endpoint in the
// outbox: the fan-out sends it to that endpoint alone, as every other
// event is sent. Errors: ErrEndpointNotFound, ErrDisabled.
func (s *Service) SendTest(ctx context.Context, storeID, id string) (TestSent, error) {
	e, err := s.Get(ctx, storeID, id)
	if err != nil {
		return TestSent{}, err
	}
	if e.Status != Active {
		return TestSent{}, ErrDisabled
	}
	now := s.now().UTC()
	ev, err := TestEvent.New(now, TestData{StoreID: storeID, EndpointID: e.ID, Message: TestMessage, SentAt: now})
	if err != nil {
		return TestSent{}, err
	}
	if err := s.store.RecordTest(ctx, e, ev); err != nil {
		return TestSent{}, err
	}
	return TestSent{EventID: ev.ID, DeliveryID: DeliveryID(ev.ID, e.ID, ev.Time)}, nil
}

// Deliveries lists an endpoint's deliveries newest first, of one status
// when status is not empty. The store is the caller's, known once the
// route's role check has read it (storeOf waits for it): the
// deliveries, keyed by the endpoint alone, are read meanwhile, and the
// endpoint is read once the store is known, so the list costs two
// round trips one after the other, not three; a page of an endpoint
// that is not the store's is never shown. Errors: ErrEndpointNotFound,
// a validation error for an unknown status.
func (s *Service) Deliveries(ctx context.Context, storeOf func() string, id, status string, c page.Cursor) (page.Page[*Delivery], error) {
	st, err := CheckStatus(status)
	if err != nil {
		return page.Page[*Delivery]{}, err
	}
	id, ok := ids.Parse(id)
	if !ok {
		return page.Page[*Delivery]{}, ErrEndpointNotFound
	}
	type result struct {
		p   page.Page[*Delivery]
		err error
	}
	got := make(chan result, 1)
	go func() {
		p, err := s.store.Deliveries(ctx, id, st, c)
		got <- result{p, err}
	}()
	_, eerr := s.store.Endpoint(ctx, storeOf(), id)
	res := <-got
	if eerr != nil {
		return page.Page[*Delivery]{}, eerr
	}
	return res.p, res.err
}

// Delivery is one delivery to an endpoint of the store, read beside the
// endpoint as Deliveries reads a page. Errors: ErrEndpointNotFound,
// ErrDeliveryNotFound.
func (s *Service) Delivery(ctx context.Context, storeOf func() string, id, deliveryID string) (*Delivery, error) {
	_, d, err := s.endpointDelivery(ctx, storeOf, id, deliveryID)
	return d, err
}

// endpointDelivery reads an endpoint of the store and one of its
// deliveries side by side: the delivery is keyed by the endpoint alone,
// and its read starts before the store is known.
func (s *Service) endpointDelivery(ctx context.Context, storeOf func() string, id, deliveryID string) (*Endpoint, *Delivery, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, nil, ErrEndpointNotFound
	}
	deliveryID, ok = ids.Parse(deliveryID)
	if !ok {
		// The endpoint's own 404 comes first.
		if _, err := s.store.Endpoint(ctx, storeOf(), id); err != nil {
			return nil, nil, err
		}
		return nil, nil, ErrDeliveryNotFound
	}
	type result struct {
		d   *Delivery
		err error
	}
	got := make(chan result, 1)
	go func() {
		d, err := s.store.Delivery(ctx, id, deliveryID)
		got <- result{d, err}
	}()
	storeID := storeOf()
	e, eerr := s.store.Endpoint(ctx, storeID, id)
	res := <-got
	switch {
	case eerr != nil:
		return nil, nil, eerr
	case res.err != nil:
		return nil, nil, res.err
	case res.d.StoreID != storeID:
		return nil, nil, ErrDeliveryNotFound
	}
	return e, res.d, nil
}

// Redeliver makes one manual attempt of a delivery that succeeded or
// failed: it is marked pending, then its attempt is queued (no automatic
// retries follow a manual attempt). A delivery still pending is
// refused (its attempts are under way), and so is one to a disabled
// endpoint (which receives nothing). When the attempt cannot be queued
// the mark is taken back, so the delivery is never left pending with
// nothing to try it. Errors: ErrEndpointNotFound, ErrDeliveryNotFound,
// ErrDisabled, ErrStillPending, ErrChanged, the queue's failure.
func (s *Service) Redeliver(ctx context.Context, storeOf func() string, id, deliveryID string) (*Delivery, error) {
	e, d, err := s.endpointDelivery(ctx, storeOf, id, deliveryID)
	if err != nil {
		return nil, err
	}
	if e.Status != Active {
		return nil, ErrDisabled
	}
	if d.Status == Pending {
		return nil, ErrStillPending
	}
	marked, err := s.store.MarkRedelivery(ctx, d, s.now().UTC())
	if err != nil {
		return nil, err
	}
	m := Message{DeliveryID: d.ID, EndpointID: e.ID, Attempt: d.Attempts + 1, Manual: true}
	if err := s.queue(ctx, m); err != nil {
		if uerr := s.store.UnmarkRedelivery(context.WithoutCancel(ctx), d, marked); uerr != nil {
			err = errors.Join(err, uerr)
		}
		return nil, fmt.Errorf("queue redelivery of %s: %w", d.ID, err)
	}
	return marked, nil
}

// CheckURL checks an endpoint's URL: absolute, https (http too when
// private targets are allowed: the local run), no user name or password,
// no fragment, at most MaxURLLength characters, and a host that is not
// a literal address a delivery may not connect to, nor localhost
// (unless private targets are allowed). A name that resolves to such an
// address is refused when a delivery connects (the client checks the
// address it connects to), not here: names resolve differently later.
// It returns the URL as given, or a message for the field.
func (s *Service) CheckURL(raw string) (string, string) {
	allow := s.settings.AllowPrivateTargets
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "is required"
	}
	if len(raw) > MaxURLLength {
		return "", fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "", "must be an absolute URL such as https://example.com/hooks"
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allow {
			return "", "must use https"
		}
	default:
		return "", "must use https"
	}
	if u.User != nil {
		return "", "must not contain a user name or password"
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "", "must not contain a fragment (#...)"
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return "", "must name a host"
	}
	if allow {
		return raw, ""
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "", "must not name localhost"
	}
	if ip, err := netip.ParseAddr(host); err == nil && ForbiddenIP(ip) {
		return "", "must not be a private, loopback, link-local or reserved address"
	}
	return raw, ""
}

// CheckEvents checks the event types of a registration: each one of
// Types, duplicates dropped, in the order given; none (nil or empty)
// means every type. It returns the list, or a message naming the first
// unknown type.
func CheckEvents(in []string) ([]events.Type, string) {
	out := []events.Type{}
	for _, s := range in {
		t := events.Type(s)
		if !slices.Contains(Types, t) {
			names := make([]string, len(Types))
			for i, x := range Types {
				names[i] = string(x)
			}
			return nil, fmt.Sprintf("unknown event type %q; the types are %s", s, strings.Join(names, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, ""
}

// CheckStatus reads a delivery status filter ("" for every status).
func CheckStatus(s string) (DeliveryStatus, error) {
	switch st := DeliveryStatus(s); st {
	case "", Pending, Succeeded, Failed:
		return st, nil
	}
	return "", apperr.Validation("status must be pending, succeeded or failed", map[string]string{"status": "must be pending, succeeded or failed"})
}
