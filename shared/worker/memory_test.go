package worker_test

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/idempotency"
)

// memoryStore is idempotency.Store in memory, with the contract of
// dynamo.Idempotency: Begin takes a key that is absent, expired, or held
// by an attempt whose lock has passed; Complete and Release act only for
// the attempt (Owner) holding a record not done.
type memoryStore struct {
	mu      sync.Mutex
	records map[string]memoryRecord
	// failBegin makes Begin fail for this key, as a throttled table would.
	failBegin string
}

type memoryRecord struct {
	idempotency.Record
	expires time.Time
}

var _ idempotency.Store = (*memoryStore)(nil)

func newMemoryStore() *memoryStore { return &memoryStore{records: map[string]memoryRecord{}} }

var errThrottled = errors.New("throttled")

func (s *memoryStore) Begin(_ context.Context, key string, rec idempotency.Record, now, expires time.Time) (*idempotency.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key == s.failBegin {
		return nil, errThrottled
	}
	held, ok := s.records[key]
	if ok && !held.expires.Before(now) && (held.Done || !held.LockedUntil.Before(now)) {
		out := held.Record
		return &out, nil
	}
	rec.Done = false
	s.records[key] = memoryRecord{Record: rec, expires: expires}
	return nil, nil
}

func (s *memoryStore) Complete(_ context.Context, key string, rec idempotency.Record, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	held, ok := s.records[key]
	if !ok || held.Done || held.Owner != rec.Owner {
		return errors.New("complete idempotency key: not held by this request")
	}
	rec.Done = true
	s.records[key] = memoryRecord{Record: rec, expires: expires}
	return nil
}

func (s *memoryStore) Release(_ context.Context, key, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if held, ok := s.records[key]; ok && !held.Done && held.Owner == owner {
		delete(s.records, key)
	}
	return nil
}
