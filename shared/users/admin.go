package users

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
)

// The back office's account actions (shared/api/adminapi). Each ends in
// one storage transaction, which carries the operator's audit entry from
// the context (shared/audit), so none of them returns without writing:
// a no-op still writes the account's updatedAt.

// MaxReasonLen bounds an operator's reason (suspension, tier, role).
const MaxReasonLen = 500

// ErrAlreadySuspended, ErrNotSuspended: a suspension or restore that
// would change nothing.
var (
	ErrAlreadySuspended = apperr.Conflict("The account is already suspended")
	ErrNotSuspended     = apperr.Conflict("The account is not suspended")
)

// ErrLastOperator, ErrLastOperatorSuspended: a revoke or a suspension
// that would leave the platform with no working operator (one who holds
// the role and is not suspended). Storage keeps their count in the same
// transaction as the change, so two operators revoking (or suspending)
// each other at once cannot both succeed.
var (
	ErrLastOperator          = apperr.Conflict("This is the platform's last working operator: grant the role to another account first")
	ErrLastOperatorSuspended = apperr.Conflict("This is the platform's last working operator and cannot be suspended: grant the role to another account first")
)

// CheckReason validates an operator's reason; required says whether an
// empty one is refused. It returns the trimmed reason.
func CheckReason(reason string, required bool) (string, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case required && reason == "":
		return "", apperr.Validation("reason is required", map[string]string{"reason": "is required"})
	case utf8.RuneCountInString(reason) > MaxReasonLen:
		return "", apperr.Validation("reason is too long", map[string]string{"reason": "must be at most 500 characters"})
	}
	return reason, nil
}

// FindByEmail and FindByUsername read the account that claimed the
// value (exact, case-insensitive: the claims are lower-cased). Errors:
// ErrNotFound.
func (s *Service) FindByEmail(ctx context.Context, email string) (*User, error) {
	email = NormalizeEmail(email)
	if email == "" || len(email) > MaxEmailLen {
		return nil, ErrNotFound
	}
	return s.d.Store.GetUserByEmail(ctx, email)
}

// FindByUsername: see FindByEmail.
func (s *Service) FindByUsername(ctx context.Context, username string) (*User, error) {
	username = strings.TrimSpace(username)
	if username == "" || len(username) > MaxUsernameLen {
		return nil, ErrNotFound
	}
	return s.d.Store.GetUserByUsername(ctx, username)
}

// SetOperator grants (on) or revokes the operator role of an account its
// caller has read (prev) and returns it as stored after, with no second
// read. Errors: ErrLastOperator (a revoke would leave no working
// operator), ErrChanged (the account's role or suspension moved since
// prev was read: the caller reads it again).
func (s *Service) SetOperator(ctx context.Context, prev *User, on bool) (*User, error) {
	now := s.d.Now().UTC()
	if err := s.d.Store.SetOperator(ctx, prev, on, now); err != nil {
		return nil, err
	}
	u := *prev
	u.Operator, u.UpdatedAt = on, now
	return &u, nil
}

// Suspend suspends an account: from the next request on the router
// refuses it on every route (ErrSuspended), sign-in and refresh refuse
// it, and its sessions are revoked right after the suspension is stored
// (the refusal does not wait for them: the router and Refresh read the
// stored account). Every access token issued before it stays dead after
// a restore (User.SessionsValidAfter). Its content is kept
// (docs/decisions.md, "Suspension keeps the content"). Errors:
// ValidationError (reason), ErrNotFound, ErrAlreadySuspended,
// ErrLastOperatorSuspended, ErrChanged.
func (s *Service) Suspend(ctx context.Context, userID, reason string) (*User, error) {
	reason, err := CheckReason(reason, true)
	if err != nil {
		return nil, err
	}
	u, err := s.d.Store.GetUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.Suspended() {
		return nil, ErrAlreadySuspended
	}
	now := s.d.Now().UTC()
	if err := s.d.Store.SetSuspension(ctx, u, &now, reason, now); err != nil {
		return nil, s.suspensionMoved(ctx, userID, err, ErrAlreadySuspended, true)
	}
	if s.d.Sessions != nil {
		if err := s.d.Sessions.RevokeAllSessions(ctx, userID, "", now); err != nil {
			return nil, err
		}
	}
	out := *u
	out.SuspendedAt, out.SuspendReason, out.UpdatedAt = &now, reason, now
	out.SessionsValidAfter = SessionCutoff(now)
	return &out, nil
}

// suspensionMoved explains a suspension's or restore's failed write: when
// the account's state moved since it was read (ErrChanged), it is read
// again, and a suspension state already as asked (suspended) is
// already, the answer of two operators acting at once; anything else is
// err as it was.
func (s *Service) suspensionMoved(ctx context.Context, userID string, err error, already error, suspended bool) error {
	if !errors.Is(err, ErrChanged) {
		return err
	}
	u, rerr := s.d.Store.GetUser(ctx, userID)
	switch {
	case rerr != nil:
		return rerr
	case u.Suspended() == suspended:
		return already
	}
	return err
}

// Restore lifts an account's suspension. Its sessions are revoked again
// first, while the account is still suspended: one left by a revocation
// that failed after the suspension, or by a sign-in that overlapped it,
// ends here, and a failure leaves the account suspended for the operator
// to retry. Its owner signs in again. Errors: ErrNotFound,
// ErrNotSuspended.
func (s *Service) Restore(ctx context.Context, userID string) (*User, error) {
	u, err := s.d.Store.GetUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !u.Suspended() {
		return nil, ErrNotSuspended
	}
	now := s.d.Now().UTC()
	if s.d.Sessions != nil {
		if err := s.d.Sessions.RevokeAllSessions(ctx, userID, "", now); err != nil {
			return nil, err
		}
	}
	if err := s.d.Store.SetSuspension(ctx, u, nil, "", now); err != nil {
		return nil, s.suspensionMoved(ctx, userID, err, ErrNotSuspended, false)
	}
	out := *u
	out.SuspendedAt, out.SuspendReason, out.UpdatedAt = nil, "", now
	out.SessionsValidAfter = SessionCutoff(now)
	return &out, nil
}
