// Package optimistic is the control flow of optimistic writes, once:
// read, decide, write conditional on what was read, and read again when
// the condition failed because a concurrent change won (Retry), and the
// delete in two steps that every parent with children uses (Delete).
// Each caller names its own limit: how many lost races it tolerates
// depends on how contended its item is (a club's visibility, 3; one
// account's monthly quota under ten concurrent posts, 12).
package optimistic

import (
	"context"
	"errors"
	"fmt"

	"github.com/bookplatform/backend/shared/apperr"
)

// Retry calls attempt with n = 1, 2, ... limit, again only while it
// returns an error that is one of lost (errors.Is): a write whose
// condition failed because another change got there first. It returns
// nil, the first error that is not lost, or, when all limit attempts
// lost, apperr.ErrContention (503 with Retry-After), which callers wrap
// with what they were doing.
func Retry(limit int, attempt func(n int) error, lost ...error) error {
	err := RetryLast(limit, attempt, lost...)
	if isAny(err, lost) {
		return fmt.Errorf("%d attempts lost to concurrent changes: %w", limit, apperr.ErrContention)
	}
	return err
}

// RetryLast is Retry for a caller whose last lost attempt answers for
// itself (its error is the right answer when the race keeps being lost,
// a 409 or a 404): it returns that error instead of ErrContention.
func RetryLast(limit int, attempt func(n int) error, lost ...error) error {
	var err error
	for n := 1; n <= limit; n++ {
		if err = attempt(n); !isAny(err, lost) {
			return err
		}
	}
	return err
}

func isAny(err error, targets []error) bool {
	if err == nil {
		return false
	}
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// Delete is a parent removed in two steps: the parent itself with what
// must change with it (its counters, directory entries) in one
// transaction, then its children in bounded batches. A failure between
// the steps leaves children of a parent that no longer exists, which no
// endpoint shows, and a repeated DELETE (404 by then) removes them
// before answering 404 (docs/decisions.md, "Delete in two steps").
type Delete[T any] struct {
	// What names the parent ("line"), Children its children ("replies
	// and likes"), for errors.
	What, Children string
	// Get reads the parent; NotFound is the error it returns for none.
	Get      func(ctx context.Context, id string) (T, error)
	NotFound error
	// Allow decides whether the caller may delete the parent read (the
	// author, owner or host): its error is the answer.
	Allow func(T) error
	// Remove is the first step; a Remove that may lose a race returns
	// Changed (then the parent is read again, up to Attempts times, and
	// after that the answer is apperr.ErrContention). A nil Changed is a
	// Remove that does not lose races (Attempts is then 1).
	Remove   func(ctx context.Context, parent T) error
	Changed  error
	Attempts int
	// Purge is the second step: it removes every child of the parent id,
	// and nothing left is not an error.
	Purge func(ctx context.Context, id string) error
}

// Run deletes the parent id in two steps, or finishes a delete that
// stopped between them and answers NotFound.
func (d Delete[T]) Run(ctx context.Context, id string) error {
	limit, lost := 1, []error(nil)
	if d.Changed != nil {
		limit, lost = d.Attempts, []error{d.Changed}
	}
	gone := false
	err := Retry(limit, func(int) error {
		p, err := d.Get(ctx, id)
		if errors.Is(err, d.NotFound) {
			gone = true
			return nil
		}
		if err != nil {
			return fmt.Errorf("delete %s %s: %w", d.What, id, err)
		}
		if err := d.Allow(p); err != nil {
			return err
		}
		if err := d.Remove(ctx, p); err != nil {
			if d.Changed != nil && errors.Is(err, d.Changed) {
				return err
			}
			return fmt.Errorf("delete %s %s: %w", d.What, id, err)
		}
		return nil
	}, lost...)
	switch {
	case err != nil:
		return err
	case gone:
		// Finish a delete that stopped after its first step.
		if err := d.Purge(ctx, id); err != nil {
			return fmt.Errorf("delete leftovers of %s %s: %w", d.What, id, err)
		}
		return d.NotFound
	}
	if err := d.Purge(ctx, id); err != nil {
		return fmt.Errorf("delete %s of %s %s: %w", d.Children, d.What, id, err)
	}
	return nil
}
