package users

import (
	"context"
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
// read. Errors: ErrNotFound.
func (s *Service) SetOperator(ctx context.Context, prev *User, on bool) (*User, error) {
	now := s.d.Now().UTC()
	if err := s.d.Store.SetOperator(ctx, prev.ID, on, now); err != nil {
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
// stored account). Its content is kept (docs/decisions.md, "Suspension
// keeps the content"). Errors: ValidationError (reason), ErrNotFound,
// ErrAlreadySuspended.
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
	if err := s.d.Store.SetSuspension(ctx, userID, &now, reason, now); err != nil {
		return nil, err
	}
	if s.d.Sessions != nil {
		if err := s.d.Sessions.RevokeAllSessions(ctx, userID, ""); err != nil {
			return nil, err
		}
	}
	out := *u
	out.SuspendedAt, out.SuspendReason, out.UpdatedAt = &now, reason, now
	return &out, nil
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
	if s.d.Sessions != nil {
		if err := s.d.Sessions.RevokeAllSessions(ctx, userID, ""); err != nil {
			return nil, err
		}
	}
	now := s.d.Now().UTC()
	if err := s.d.Store.SetSuspension(ctx, userID, nil, "", now); err != nil {
		return nil, err
	}
	out := *u
	out.SuspendedAt, out.SuspendReason, out.UpdatedAt = nil, "", now
	return &out, nil
}
