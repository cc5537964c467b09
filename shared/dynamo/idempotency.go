package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/guregu/dynamo/v2"
)

// Idempotency keeps the answers of requests sent with an Idempotency-Key
// (idempotency.Store), one item per key, gone by TTL.
type Idempotency struct{ t *table }

var _ idempotency.Store = (*Idempotency)(nil)

// idempotencyItem is one key's record (IdempotencyKey). It holds no
// client secret in clear: fingerprint is a keyed hash, answer is sealed
// (idempotency.Sealer).
type idempotencyItem struct {
	PK          string `dynamo:"PK"`
	SK          string `dynamo:"SK"`
	Type        string `dynamo:"type"`
	Fingerprint string `dynamo:"fingerprint"`
	Owner       string `dynamo:"owner"`
	Done        bool   `dynamo:"done"`
	LockedUntil int64  `dynamo:"lockedUntil"` // epoch ms
	Answer      []byte `dynamo:"answer,omitempty"`
	ExpiresAt   int64  `dynamo:"expiresAt"`
}

func (it idempotencyItem) record() *idempotency.Record {
	return &idempotency.Record{
		Fingerprint: it.Fingerprint, Owner: it.Owner, Done: it.Done, LockedUntil: time.UnixMilli(it.LockedUntil), Answer: it.Answer,
	}
}

// Begin puts the key's record unless one exists that is done or still
// locked (one conditional PutItem); when the condition fails it reads the
// record that won (one consistent GetItem) and returns it. An expired
// record that TTL has not deleted yet counts as absent.
func (s *Idempotency) Begin(ctx context.Context, key string, rec idempotency.Record, now, expires time.Time) (*idempotency.Record, error) {
	k := IdempotencyKey(key)
	it := idempotencyItem{
		PK: k.PK, SK: k.SK, Type: typeIdempotency, Fingerprint: rec.Fingerprint, Owner: rec.Owner,
		LockedUntil: rec.LockedUntil.UnixMilli(), ExpiresAt: expires.Unix(),
	}
	err := s.t.put(it).
		If("attribute_not_exists(PK) OR $ < ? OR (done = ? AND lockedUntil < ?)", AttrTTL, now.Unix(), false, now.UnixMilli()).
		Run(ctx)
	if err == nil {
		return nil, nil
	}
	if !dynamo.IsCondCheckFailed(err) {
		return nil, fmt.Errorf("begin idempotency key: %w", err)
	}
	var held idempotencyItem
	err = s.t.get(k).Consistent(true).One(ctx, &held)
	if errors.Is(err, dynamo.ErrNotFound) {
		// Released between the put and the read: take it now.
		return s.Begin(ctx, key, rec, now, expires)
	}
	if err != nil {
		return nil, fmt.Errorf("read idempotency key: %w", err)
	}
	return held.record(), nil
}

// Complete writes the answer over the record, if rec.Owner still holds it.
func (s *Idempotency) Complete(ctx context.Context, key string, rec idempotency.Record, expires time.Time) error {
	k := IdempotencyKey(key)
	err := s.t.put(idempotencyItem{
		PK: k.PK, SK: k.SK, Type: typeIdempotency, Fingerprint: rec.Fingerprint, Owner: rec.Owner, Done: true,
		Answer: rec.Answer, ExpiresAt: expires.Unix(),
	}).If("$ = ? AND done = ?", "owner", rec.Owner, false).Run(ctx)
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	return nil
}

// Release deletes the record of a request that changed nothing, if owner
// still holds it and it is not done.
func (s *Idempotency) Release(ctx context.Context, key, owner string) error {
	err := s.t.del(IdempotencyKey(key)).If("$ = ? AND done = ?", "owner", owner, false).Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}
