package extpos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/oauth2"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/stores"
)

// Books is what a sync reads of the catalog: books by ISBN-13 (import)
// and by id (export).
type Books interface {
	FindBooksByISBN(ctx context.Context, isbn13s []string) (map[string]*books.Book, error)
	GetBooks(ctx context.Context, ids []string) ([]*books.Book, error)
}

// Deps are what the service is built from.
type Deps struct {
	Square *Square
	States *States
	Sealer Sealer
	Store  Store
	// Stock and Books are the sync's (the possync worker's); the routes'
	// service leaves them nil.
	Stock    inventory.StockWriter
	Books    Books
	Currency string
	Now      func() time.Time
	// OwnerOf reads a store's owner (stores.ErrNotFound for none): the
	// callback checks again that the state's user still owns the store,
	// which may have changed hands while the owner was on the
	// authorisation page. The worker's service leaves it nil.
	OwnerOf func(ctx context.Context, storeID string) (string, error)
}

// Service is the integration: connecting a store, and syncing it.
type Service struct{ d Deps }

// NewService returns the service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// ConnectURL is the authorisation page for storeID's owner userID, with a
// fresh state, and the browser binding the callback must be given with
// that state (the connect route sets it as a cookie).
func (s *Service) ConnectURL(storeID, userID string) (authURL, binding string, err error) {
	state, binding, err := s.d.States.New(storeID, userID)
	if err != nil {
		return "", "", err
	}
	return s.d.Square.AuthCodeURL(state), binding, nil
}

// Reasons of a failed callback beside the state's (ErrState*), for the
// redirect back to the app.
const (
	ReasonDenied   = "access_denied"   // the seller declined, or the page reported an error
	ReasonExchange = "exchange_failed" // the code did not turn into tokens
	ReasonNotOwner = "not_owner"       // the state's user no longer owns the store (or it is gone)
)

// CallbackError is a callback that did not connect: Reason goes to the
// app in the redirect.
type CallbackError struct {
	Reason string
	Err    error
}

func (e *CallbackError) Error() string { return e.Reason + ": " + e.Err.Error() }
func (e *CallbackError) Unwrap() error { return e.Err }

// Callback finishes a connect: it checks state (signed, unexpired, come
// back to the browser that started it, whose binding cookie is binding,
// used once) and that its user still owns the store, exchanges code for
// tokens, finds the merchant's main location and stores the connection
// with the tokens sealed. A refusal is a *CallbackError naming the
// reason; oauthErr is the error parameter the authorisation page sent
// back instead of a code.
func (s *Service) Callback(ctx context.Context, code, state, binding, oauthErr string) (string, error) {
	c, err := s.d.States.Open(ctx, state, binding)
	switch {
	case errors.Is(err, ErrStateForged), errors.Is(err, ErrStateExpired), errors.Is(err, ErrStateReused), errors.Is(err, ErrStateBrowser):
		return "", &CallbackError{Reason: err.Error(), Err: err}
	case err != nil:
		return "", err
	}
	if oauthErr != "" || code == "" {
		return c.StoreID, &CallbackError{Reason: ReasonDenied, Err: fmt.Errorf("the authorisation page answered %q", oauthErr)}
	}
	if s.d.OwnerOf == nil {
		return c.StoreID, errors.New("extpos: the callback needs Deps.OwnerOf")
	}
	owner, err := s.d.OwnerOf(ctx, c.StoreID)
	if errors.Is(err, stores.ErrNotFound) || (err == nil && owner != c.UserID) {
		return c.StoreID, &CallbackError{Reason: ReasonNotOwner, Err: fmt.Errorf("user %s does not own store %s (any more)", c.UserID, c.StoreID)}
	}
	if err != nil {
		return c.StoreID, err
	}
	g, err := s.d.Square.Exchange(ctx, code)
	if err != nil {
		return c.StoreID, &CallbackError{Reason: ReasonExchange, Err: err}
	}
	loc, err := s.d.Square.Session(ctx, g.Token, nil).MainLocation(ctx)
	if err != nil {
		return c.StoreID, &CallbackError{Reason: ReasonExchange, Err: err}
	}
	sealed, err := s.seal(ctx, c.StoreID, g.Token)
	if err != nil {
		return c.StoreID, err
	}
	now := s.d.Now()
	return c.StoreID, s.d.Store.PutConnection(ctx, &Connection{
		StoreID: c.StoreID, MerchantID: g.MerchantID, LocationID: loc.ID, Tokens: sealed, ConnectedBy: c.UserID,
		ConnectedAt: now, UpdatedAt: now,
	})
}

func (s *Service) seal(ctx context.Context, storeID string, tok *oauth2.Token) ([]byte, error) {
	data, err := json.Marshal(tok)
	if err != nil {
		return nil, err
	}
	return s.d.Sealer.Seal(ctx, data, storeID)
}

// Connected reads storeID's connection: ErrNotConnected when none.
func (s *Service) Connected(ctx context.Context, storeID string) (*Connection, error) {
	return s.d.Store.GetConnection(ctx, storeID)
}

// RequestSync records a queued job for storeID (which must be
// connected: ErrNotConnected); the caller sends it to the pos-sync queue.
// The job takes the store's sync lock first: while another job of the
// store holds it (queued or running), no second one is recorded, a
// *RunningError naming that job (two syncs at once would both create the
// items missing outside).
func (s *Service) RequestSync(ctx context.Context, storeID, userID string, mode Mode) (*Job, error) {
	if _, err := s.d.Store.GetConnection(ctx, storeID); err != nil {
		return nil, err
	}
	now := s.d.Now()
	j := &Job{ID: ids.New(), StoreID: storeID, Mode: mode, UserID: userID, Status: JobQueued, CreatedAt: now, UpdatedAt: now}
	if err := s.d.Store.LockSync(ctx, storeID, j.ID, now, SyncLease); err != nil {
		return nil, err
	}
	if err := s.d.Store.CreateJob(ctx, j); err != nil {
		return nil, errors.Join(err, s.d.Store.UnlockSync(context.WithoutCancel(ctx), storeID, j.ID))
	}
	return j, nil
}

// Job reads a job.
func (s *Service) Job(ctx context.Context, storeID, id string) (*Job, error) {
	return s.d.Store.GetJob(ctx, storeID, id)
}

// Message is the pos-sync queue's message: one job.
type Message struct {
	StoreID string `json:"storeId"`
	JobID   string `json:"jobId"`
}

// RunJob is the worker's work for one message: it runs the job's sync
// and records its outcome. A job already finished is not run again (a
// redelivery after the worker's own record was lost); a sync that failed
// as a whole (the external system unreachable) returns its error, so the
// message is retried, and the last attempt's error is kept on the job.
func (s *Service) RunJob(ctx context.Context, m Message) error {
	j, err := s.d.Store.GetJob(ctx, m.StoreID, m.JobID)
	if errors.Is(err, ErrJobNotFound) {
		return nil // expired or never written: nothing to do
	}
	if err != nil {
		return err
	}
	if j.Status != JobQueued {
		return nil
	}
	// The store's sync lock, taken (or renewed) for this run: a job the
	// request could not lock for (its lease ended while it waited) runs
	// only once no other job of the store does; until then its message
	// is retried (a *RunningError).
	if err := s.d.Store.LockSync(ctx, j.StoreID, j.ID, s.d.Now(), SyncLease); err != nil {
		return err
	}
	res, err := s.Sync(ctx, j.StoreID, j.Mode, inventory.Cause{Kind: inventory.CauseSync, UserID: j.UserID, Ref: j.ID, Reason: "extpos " + string(j.Mode)})
	j.UpdatedAt = s.d.Now()
	if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrNotConnected) || errors.Is(err, ErrUnsealable) {
		// Retrying cannot help: the owner must connect again.
		j.Status, j.Error = JobFailed, err.Error()
		return s.finish(ctx, j)
	}
	if err != nil {
		return err // retried: the job keeps the lock (its lease) meanwhile
	}
	j.Status, j.Result = JobDone, res
	return s.finish(ctx, j)
}

// finish writes j's outcome and then frees the store's sync lock.
func (s *Service) finish(ctx context.Context, j *Job) error {
	if err := s.d.Store.FinishJob(ctx, j); err != nil {
		return err
	}
	return s.d.Store.UnlockSync(context.WithoutCancel(ctx), j.StoreID, j.ID)
}

// GiveUp finishes m's job failed for reason when no attempt will run it
// any more (its last receipt failed before the dead-letter queue, or it
// was never queued): without it the job would stay queued for ever for
// the owner polling it. A job no longer queued is left as it is.
func (s *Service) GiveUp(ctx context.Context, m Message, reason string) error {
	j, err := s.d.Store.GetJob(ctx, m.StoreID, m.JobID)
	if errors.Is(err, ErrJobNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if j.Status != JobQueued {
		return nil
	}
	j.Status, j.UpdatedAt = JobFailed, s.d.Now()
	j.Error = reason
	return s.finish(ctx, j)
}

// session opens storeID's tokens and returns the adapter acting with
// them; a refreshed token is sealed and stored before it is used.
func (s *Service) session(ctx context.Context, storeID string) (*Session, *Connection, error) {
	c, err := s.d.Store.GetConnection(ctx, storeID)
	if err != nil {
		return nil, nil, err
	}
	data, err := s.d.Sealer.Open(ctx, c.Tokens, storeID)
	if err != nil {
		return nil, nil, err
	}
	var tok oauth2.Token
	if err := json.Unmarshal(data, &tok); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrUnsealable, err)
	}
	save := func(ctx context.Context, t *oauth2.Token) error {
		sealed, err := s.seal(ctx, storeID, t)
		if err != nil {
			return err
		}
		return s.d.Store.SetTokens(ctx, storeID, sealed, s.d.Now())
	}
	return s.d.Square.Session(ctx, &tok, save), c, nil
}
