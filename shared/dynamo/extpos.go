package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/extpos"
	"github.com/guregu/dynamo/v2"
)

// The external point-of-sale integration's items (docs/data-model.md):
// a store's connection, the OAuth states used once, and the sync jobs.
// Their key builders are here rather than in keys.go, beside the only
// store that reads them.
const (
	typeExtPosConnection = "ExtPosConnection"
	typeExtPosState      = "ExtPosState"
	typeExtPosSyncJob    = "ExtPosSyncJob"
	typeExtPosSyncLock   = "ExtPosSyncLock"
)

// ExtPosConnectionKey is a store's connection: in the store's partition.
func ExtPosConnectionKey(storeID string) Key { return Key{StoreKey(storeID).PK, "EXTPOS"} }

// ExtPosStateKey is the record of a used OAuth state, by its nonce.
func ExtPosStateKey(nonce string) Key { return Key{"EXTPOSSTATE#" + nonce, "STATE"} }

// ExtPosJobKey is one sync job of a store.
func ExtPosJobKey(storeID, jobID string) Key { return Key{StoreKey(storeID).PK, "EXTPOSSYNC#" + jobID} }

// ExtPosLockKey is a store's sync lock: in the store's partition.
func ExtPosLockKey(storeID string) Key { return Key{StoreKey(storeID).PK, "EXTPOSLOCK"} }

// extPosJobTTL is how long a sync job's record is kept: its answer is
// read within minutes; a month is the history an owner may ask about.
const extPosJobTTL = 30 * 24 * time.Hour

// ExtPos is the integration's store (extpos.Store).
type ExtPos struct{ t *table }

var _ extpos.Store = (*ExtPos)(nil)

// NewExtPos returns the integration's store.
func NewExtPos(h Handle) *ExtPos { return &ExtPos{h.table()} }

type extPosConnectionItem struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	Type        string    `dynamo:"type"`
	MerchantID  string    `dynamo:"merchantId"`
	LocationID  string    `dynamo:"locationId"`
	Tokens      []byte    `dynamo:"tokens"` // sealed (extpos.Sealer)
	ConnectedBy string    `dynamo:"connectedBy"`
	ConnectedAt time.Time `dynamo:"connectedAt"`
	UpdatedAt   time.Time `dynamo:"updatedAt"`
}

// PutConnection writes a store's connection over any earlier one (a
// reconnect replaces the tokens): one PutItem.
func (s *ExtPos) PutConnection(ctx context.Context, c *extpos.Connection) error {
	k := ExtPosConnectionKey(c.StoreID)
	err := s.t.put(extPosConnectionItem{PK: k.PK, SK: k.SK, Type: typeExtPosConnection, MerchantID: c.MerchantID, LocationID: c.LocationID,
		Tokens: c.Tokens, ConnectedBy: c.ConnectedBy, ConnectedAt: c.ConnectedAt, UpdatedAt: c.UpdatedAt}).Run(ctx)
	if err != nil {
		return fmt.Errorf("put extpos connection: %w", err)
	}
	return nil
}

// GetConnection reads a store's connection (one consistent GetItem: a
// sync right after the callback sees it). Errors: extpos.ErrNotConnected.
func (s *ExtPos) GetConnection(ctx context.Context, storeID string) (*extpos.Connection, error) {
	var it extPosConnectionItem
	err := s.t.get(ExtPosConnectionKey(storeID)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, extpos.ErrNotConnected
	}
	if err != nil {
		return nil, fmt.Errorf("get extpos connection: %w", err)
	}
	return &extpos.Connection{StoreID: storeID, MerchantID: it.MerchantID, LocationID: it.LocationID, Tokens: it.Tokens,
		ConnectedBy: it.ConnectedBy, ConnectedAt: it.ConnectedAt, UpdatedAt: it.UpdatedAt}, nil
}

// SetTokens replaces a connection's sealed tokens after a refresh (one
// UpdateItem, on an existing connection only).
func (s *ExtPos) SetTokens(ctx context.Context, storeID string, sealed []byte, at time.Time) error {
	err := s.t.update(ExtPosConnectionKey(storeID)).Set("tokens", sealed).Set("updatedAt", at).If("attribute_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return extpos.ErrNotConnected
	}
	if err != nil {
		return fmt.Errorf("set extpos tokens: %w", err)
	}
	return nil
}

type extPosStateItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	Type      string `dynamo:"type"`
	ExpiresAt int64  `dynamo:"expiresAt"`
}

// UseState records a state's nonce as used with one conditional PutItem,
// kept (TTL) until the state expires: the second use fails the
// condition (extpos.ErrStateReused), however many callbacks race.
func (s *ExtPos) UseState(ctx context.Context, nonce string, expires time.Time) error {
	k := ExtPosStateKey(nonce)
	err := s.t.put(extPosStateItem{PK: k.PK, SK: k.SK, Type: typeExtPosState, ExpiresAt: expires.Unix()}).If("attribute_not_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return extpos.ErrStateReused
	}
	if err != nil {
		return fmt.Errorf("use extpos state: %w", err)
	}
	return nil
}

type extPosJobItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	Mode      string    `dynamo:"mode"`
	UserID    string    `dynamo:"userId"`
	Status    string    `dynamo:"status"`
	Result    string    `dynamo:"result,omitempty"` // JSON of extpos.Result
	Error     string    `dynamo:"error,omitempty"`
	CreatedAt time.Time `dynamo:"createdAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
	ExpiresAt int64     `dynamo:"expiresAt"`
}

func (s *ExtPos) jobItem(j *extpos.Job) (extPosJobItem, error) {
	k := ExtPosJobKey(j.StoreID, j.ID)
	it := extPosJobItem{PK: k.PK, SK: k.SK, Type: typeExtPosSyncJob, Mode: string(j.Mode), UserID: j.UserID, Status: string(j.Status),
		Error: j.Error, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, ExpiresAt: j.CreatedAt.Add(extPosJobTTL).Unix()}
	if j.Status == extpos.JobDone {
		data, err := json.Marshal(j.Result)
		if err != nil {
			return it, err
		}
		it.Result = string(data)
	}
	return it, nil
}

// CreateJob puts a new job (one conditional PutItem).
func (s *ExtPos) CreateJob(ctx context.Context, j *extpos.Job) error {
	it, err := s.jobItem(j)
	if err != nil {
		return err
	}
	if err := s.t.put(it).If("attribute_not_exists(PK)").Run(ctx); err != nil {
		return fmt.Errorf("create extpos sync job: %w", err)
	}
	return nil
}

// FinishJob writes a job's outcome over its record (one PutItem, on an
// existing job only).
func (s *ExtPos) FinishJob(ctx context.Context, j *extpos.Job) error {
	it, err := s.jobItem(j)
	if err != nil {
		return err
	}
	err = s.t.put(it).If("attribute_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return extpos.ErrJobNotFound
	}
	if err != nil {
		return fmt.Errorf("finish extpos sync job: %w", err)
	}
	return nil
}

// GetJob reads a job (one consistent GetItem: the request waiting for
// its job polls it). Errors: extpos.ErrJobNotFound.
func (s *ExtPos) GetJob(ctx context.Context, storeID, id string) (*extpos.Job, error) {
	var it extPosJobItem
	err := s.t.get(ExtPosJobKey(storeID, id)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, extpos.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get extpos sync job: %w", err)
	}
	j := &extpos.Job{ID: id, StoreID: storeID, Mode: extpos.Mode(it.Mode), UserID: it.UserID, Status: extpos.JobStatus(it.Status),
		Error: it.Error, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
	if it.Result != "" {
		if err := json.Unmarshal([]byte(it.Result), &j.Result); err != nil {
			return nil, fmt.Errorf("decode extpos sync job: %w", err)
		}
	}
	return j, nil
}

type extPosLockItem struct {
	PK         string `dynamo:"PK"`
	SK         string `dynamo:"SK"`
	Type       string `dynamo:"type"`
	JobID      string `dynamo:"jobId"`
	LeaseUntil int64  `dynamo:"leaseUntil"` // Unix milliseconds
	ExpiresAt  int64  `dynamo:"expiresAt"`
}

// extPosLockTTL keeps a lock item a while after its lease (TTL removes
// it then; an ended lease is free whether or not it is still there).
const extPosLockTTL = 24 * time.Hour

// LockSync takes or renews a store's sync lock with one conditional
// PutItem (absent, already the job's, or its lease ended); when another
// job holds it, one consistent GetItem names that job.
func (s *ExtPos) LockSync(ctx context.Context, storeID, jobID string, now time.Time, lease time.Duration) error {
	k := ExtPosLockKey(storeID)
	until := now.Add(lease)
	err := s.t.put(extPosLockItem{PK: k.PK, SK: k.SK, Type: typeExtPosSyncLock, JobID: jobID, LeaseUntil: until.UnixMilli(),
		ExpiresAt: until.Add(extPosLockTTL).Unix()}).
		If("attribute_not_exists(PK) OR jobId = ? OR leaseUntil < ?", jobID, now.UnixMilli()).Run(ctx)
	if !dynamo.IsCondCheckFailed(err) {
		if err != nil {
			return fmt.Errorf("lock extpos sync: %w", err)
		}
		return nil
	}
	var held extPosLockItem
	if err := s.t.get(k).Consistent(true).One(ctx, &held); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return fmt.Errorf("read extpos sync lock: %w", err)
	}
	return &extpos.RunningError{JobID: held.JobID}
}

// UnlockSync ends the job's lease with one PutItem conditional on the
// job holding the lock (another's is left alone).
func (s *ExtPos) UnlockSync(ctx context.Context, storeID, jobID string) error {
	k := ExtPosLockKey(storeID)
	err := s.t.put(extPosLockItem{PK: k.PK, SK: k.SK, Type: typeExtPosSyncLock, ExpiresAt: time.Now().Add(extPosLockTTL).Unix()}).
		If("jobId = ?", jobID).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("unlock extpos sync: %w", err)
	}
	return nil
}
