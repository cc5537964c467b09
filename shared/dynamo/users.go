package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// Users stores accounts and the claims that keep emails and usernames
// unique.
type Users struct{ t *table }

var _ users.Storer = (*Users)(nil)

// userItem is a user as stored (UserKey).
type userItem struct {
	PK            string   `dynamo:"PK"`
	SK            string   `dynamo:"SK"`
	Type          string   `dynamo:"type"`
	ID            string   `dynamo:"id"`
	Username      string   `dynamo:"username"`
	Email         string   `dynamo:"email"`
	PasswordHash  string   `dynamo:"passwordHash"`
	DisplayName   string   `dynamo:"displayName"`
	Bio           string   `dynamo:"bio"`
	AvatarURL     string   `dynamo:"avatarUrl"`
	Tier          string   `dynamo:"tier"`
	IsGuest       bool     `dynamo:"isGuest"`
	HomeStoreID   string   `dynamo:"homeStoreId"`
	StoreID       string   `dynamo:"storeId"`
	StaffStoreIDs []string `dynamo:"staffAt,set,omitempty"`
	// operator, suspendedAt and suspendReason are the back office's
	// (users.User.Operator, SuspendedAt): absent on most accounts, and,
	// like storeId and staffAt, never written by a profile update.
	Operator      bool       `dynamo:"operator,omitempty"`
	SuspendedAt   *time.Time `dynamo:"suspendedAt,omitempty"`
	SuspendReason string     `dynamo:"suspendReason,omitempty"`
	// sessionsValidAfter is users.User.SessionsValidAfter, whole
	// seconds: written by a suspension and a restore only.
	SessionsValidAfter *time.Time `dynamo:"sessionsValidAfter,omitempty"`
	FollowerCount      int        `dynamo:"followerCount"`
	FollowingCount     int        `dynamo:"followingCount"`
	WishlistCount      int        `dynamo:"wishlistCount"`
	QuotaMonth         string     `dynamo:"quotaMonth"`
	MonthlyPosts       int        `dynamo:"monthlyPosts"`
	MonthlyReviews     int        `dynamo:"monthlyReviews"`
	CreatedAt          time.Time  `dynamo:"createdAt"`
	UpdatedAt          time.Time  `dynamo:"updatedAt"`
}

// claimItem reserves a unique value (email, username) for a user.
type claimItem struct {
	PK     string `dynamo:"PK"`
	SK     string `dynamo:"SK"`
	Type   string `dynamo:"type"`
	UserID string `dynamo:"userId"`
}

func newClaim(k Key, typ, userID string) claimItem {
	return claimItem{PK: k.PK, SK: k.SK, Type: typ, UserID: userID}
}

func toUserItem(u *users.User) userItem {
	k := UserKey(u.ID)
	return userItem{
		PK: k.PK, SK: k.SK, Type: typeUser,
		ID: u.ID, Username: u.Username, Email: u.Email, PasswordHash: u.PasswordHash,
		DisplayName: u.DisplayName, Bio: u.Bio, AvatarURL: u.AvatarURL, Tier: string(u.Tier),
		IsGuest: u.IsGuest, HomeStoreID: u.HomeStoreID,
		FollowerCount: u.FollowerCount, FollowingCount: u.FollowingCount, WishlistCount: u.WishlistCount,
		CreatedAt: u.CreatedAt.UTC(), UpdatedAt: u.UpdatedAt.UTC(),
	}
}

func (it userItem) toUser() *users.User {
	var validAfter time.Time
	if it.SessionsValidAfter != nil {
		validAfter = *it.SessionsValidAfter
	}
	return &users.User{
		ID: it.ID, Username: it.Username, Email: it.Email, PasswordHash: it.PasswordHash,
		DisplayName: it.DisplayName, Bio: it.Bio, AvatarURL: it.AvatarURL, Tier: users.Tier(it.Tier),
		IsGuest: it.IsGuest, HomeStoreID: it.HomeStoreID, StoreID: it.StoreID, StaffStoreIDs: it.StaffStoreIDs,
		FollowerCount: it.FollowerCount, FollowingCount: it.FollowingCount, WishlistCount: it.WishlistCount,
		QuotaMonth: it.QuotaMonth, MonthlyPosts: it.MonthlyPosts, MonthlyReviews: it.MonthlyReviews,
		Operator: it.Operator, SuspendedAt: it.SuspendedAt, SuspendReason: it.SuspendReason, SessionsValidAfter: validAfter,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

// errUserIDTaken is a new user's id colliding with a stored one: a UUID
// collision or a bug, never a client's doing.
var errUserIDTaken = errors.New("user id already exists")

// CreateUser writes the user and its email and username claims in one
// transaction, each put conditional on the key being new: uniqueness holds
// under concurrent sign-ups without a read first. Errors:
// users.ErrEmailTaken, users.ErrUsernameTaken.
func (s *Users) CreateUser(ctx context.Context, u *users.User) error {
	x := s.t.tx()
	if u.Email != "" {
		x.put(s.t.put(newClaim(EmailClaimKey(u.Email), typeEmailClaim, u.ID)).If("attribute_not_exists(PK)"), users.ErrEmailTaken)
	}
	err := x.put(s.t.put(newClaim(UsernameClaimKey(u.Username), typeUsernameClaim, u.ID)).If("attribute_not_exists(PK)"), users.ErrUsernameTaken).
		put(s.t.put(toUserItem(u)).If("attribute_not_exists(PK)"), errUserIDTaken).
		run(ctx)
	if err != nil {
		return fmt.Errorf("create user %s: %w", u.ID, err)
	}
	return nil
}

// GetUser reads a user by id (strongly consistent). Errors: users.ErrNotFound.
func (s *Users) GetUser(ctx context.Context, id string) (*users.User, error) {
	return getOne(ctx, s.t, UserKey(id), userItem.toUser, users.ErrNotFound, "user "+id)
}

// GetUserEventually reads a user by id eventually consistently, at half
// the read units: for the router's read of the caller on a public read
// (httpapi.Route.ReadsCallerEventually), where a record a moment old
// decides what the stored one would. Errors: users.ErrNotFound.
func (s *Users) GetUserEventually(ctx context.Context, id string) (*users.User, error) {
	return getOneAs(ctx, s.t, UserKey(id), false, userItem.toUser, users.ErrNotFound, "user "+id)
}

// GetUserByEmail resolves the email claim, then reads the user.
func (s *Users) GetUserByEmail(ctx context.Context, email string) (*users.User, error) {
	id, err := s.claimedUserID(ctx, EmailClaimKey(email), true)
	if err != nil {
		return nil, err
	}
	return s.GetUser(ctx, id)
}

// GetUserByUsername resolves the username claim, then reads the user.
func (s *Users) GetUserByUsername(ctx context.Context, username string) (*users.User, error) {
	return s.getUserByUsername(ctx, username, true)
}

// GetUserByUsernameEventually resolves the username claim, then reads the
// user, both eventually consistent (users.Service.Profile says where).
func (s *Users) GetUserByUsernameEventually(ctx context.Context, username string) (*users.User, error) {
	return s.getUserByUsername(ctx, username, false)
}

func (s *Users) getUserByUsername(ctx context.Context, username string, consistent bool) (*users.User, error) {
	id, err := s.claimedUserID(ctx, UsernameClaimKey(username), consistent)
	if err != nil {
		return nil, err
	}
	return getOneAs(ctx, s.t, UserKey(id), consistent, userItem.toUser, users.ErrNotFound, "user "+id)
}

// UserIDByUsername reads the username claim, which holds the account id:
// one GetItem, where GetUserByUsername needs two, for lists that only need
// the id to start. Errors: users.ErrNotFound.
func (s *Users) UserIDByUsername(ctx context.Context, username string) (string, error) {
	return s.claimedUserID(ctx, UsernameClaimKey(username), false)
}

// claimedUserID reads a uniqueness claim (email, username) and returns the
// account it belongs to. Errors: users.ErrNotFound.
func (s *Users) claimedUserID(ctx context.Context, k Key, consistent bool) (string, error) {
	var c claimItem
	err := s.t.get(k).Consistent(consistent).One(ctx, &c)
	if errors.Is(err, dynamo.ErrNotFound) {
		return "", fmt.Errorf("claim %s: %w", k.PK, users.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("get claim %s: %w", k.PK, err)
	}
	return c.UserID, nil
}

// UpdateUser writes the fields of u that differ from prev, in one
// transaction with the claims the change needs: a new username is claimed
// and prev's freed; a new email likewise (a guest becoming a full account).
// Only changed attributes are written, so a concurrent change to another
// field (or a follower counter) is never overwritten. A change of
// username, email or guest state is conditional on prev's username and
// guest state, so two concurrent renames or migrations cannot both win;
// a new password on prev's password hash, so that the password the
// caller proved is still the one replaced; a new tier on prev's tier,
// so that a tier another write set since the read (a premium checkout
// completed, whose subscription the back office stops before a tier
// change) is never overwritten unseen. Any other change (a bio, an
// avatar) only needs the account to exist: a concurrent rename does not
// refuse it. Errors: users.ErrUsernameTaken, users.ErrEmailTaken,
// users.ErrChanged.
func (s *Users) UpdateUser(ctx context.Context, prev, u *users.User) error {
	upd := s.t.update(UserKey(u.ID)).Set("updatedAt", u.UpdatedAt.UTC())
	cond, args := "attribute_exists(PK)", []any{}
	switch {
	case prev.Username != u.Username || prev.Email != u.Email || prev.IsGuest != u.IsGuest:
		cond, args = cond+" AND username = ? AND isGuest = ?", append(args, prev.Username, prev.IsGuest)
	case prev.PasswordHash != u.PasswordHash:
		cond, args = cond+" AND passwordHash = ?", append(args, prev.PasswordHash)
	}
	if prev.Tier != u.Tier {
		c, a := tierCondition(prev.Tier)
		cond, args = cond+" AND "+c, append(args, a...)
	}
	upd = upd.If(cond, args...)
	for _, f := range []struct {
		attr       string
		old, value string
	}{
		{"username", prev.Username, u.Username},
		{"email", prev.Email, u.Email},
		{"passwordHash", prev.PasswordHash, u.PasswordHash},
		{"displayName", prev.DisplayName, u.DisplayName},
		{"bio", prev.Bio, u.Bio},
		{"avatarUrl", prev.AvatarURL, u.AvatarURL},
		{"tier", string(prev.Tier), string(u.Tier)},
		{"homeStoreId", prev.HomeStoreID, u.HomeStoreID},
	} {
		if f.old != f.value {
			upd = setOrRemove(upd, f.attr, f.value)
		}
	}
	if prev.IsGuest != u.IsGuest {
		upd = upd.Set("isGuest", u.IsGuest)
	}

	x := s.t.tx()
	if !strings.EqualFold(prev.Username, u.Username) {
		x.put(s.t.put(newClaim(UsernameClaimKey(u.Username), typeUsernameClaim, u.ID)).If("attribute_not_exists(PK)"), users.ErrUsernameTaken).
			delete(s.t.del(UsernameClaimKey(prev.Username)).If("userId = ?", u.ID), users.ErrChanged)
	}
	// A change of case only keeps the (lower-cased) claim.
	if u.Email != "" && !strings.EqualFold(prev.Email, u.Email) {
		x.put(s.t.put(newClaim(EmailClaimKey(u.Email), typeEmailClaim, u.ID)).If("attribute_not_exists(PK)"), users.ErrEmailTaken)
		if prev.Email != "" {
			x.delete(s.t.del(EmailClaimKey(prev.Email)).If("userId = ?", u.ID), users.ErrChanged)
		}
	}
	if err := x.update(upd, users.ErrChanged).run(ctx); err != nil {
		return fmt.Errorf("update user %s: %w", u.ID, err)
	}
	return nil
}

// tierCondition is the condition that an account's tier is t (an
// account stored without one holds "").
func tierCondition(t users.Tier) (string, []any) {
	if t == "" {
		return "attribute_not_exists(tier)", nil
	}
	return "tier = ?", []any{string(t)}
}

func setOrRemove(u *dynamo.Update, attr, v string) *dynamo.Update {
	if v == "" {
		return u.Remove(attr)
	}
	return u.Set(attr, v)
}

// The platform's working operators (operator and not suspended) are
// counted in one item (OperatorCountKey), changed by one in every
// transaction that makes or unmakes one: a grant or revoke of the role
// (SetOperator) and a suspension or restore of an operator
// (SetSuspension). A change that would take the count below one is
// refused, so the platform always keeps an operator who can act, even
// when two operators revoke (or suspend) each other at once: both
// transactions change the one item, and DynamoDB serializes them. Each
// change is conditional on the account's operator and suspension state
// as its caller read it (prev), which is what its delta was computed
// from; a state that moved since is users.ErrChanged, and the count is
// never moved twice for one change. Every change of the count needs the
// item: on a table from before the count, the first change finds none,
// counts the accounts (RecountOperators) and runs again (runCounted), so
// no table needs a step by hand and the count starts right.

// operatorCountItem is the count of working operators (OperatorCountKey).
type operatorCountItem struct {
	Count int `dynamo:"count"`
}

// workingOperator reports whether an account counts among the working
// operators: it holds the role and is not suspended.
func workingOperator(operator, suspended bool) bool { return operator && !suspended }

// stateCondition is the condition that the account exists and holds the
// role and the suspension state of prev, with its arguments ("operator"
// is a reserved word: a placeholder).
func stateCondition(prev *users.User) (string, []any) {
	c, args := "attribute_exists(PK)", []any{}
	if prev.Operator {
		c += " AND $ = ?"
		args = append(args, "operator", true)
	} else {
		c += " AND (attribute_not_exists($) OR $ = ?)"
		args = append(args, "operator", "operator", false)
	}
	if prev.Suspended() {
		c += " AND attribute_exists(suspendedAt)"
	} else {
		c += " AND attribute_not_exists(suspendedAt)"
	}
	return c, args
}

// addOperatorDelta adds to x the change of the working operators' count
// that turns an account from working operator (was) to is: nothing when
// they are the same, one more if the count exists (errNoOperatorCount
// otherwise), or one fewer on the condition that one is left (lastErr
// otherwise, also when the count does not exist: runCounted tells them
// apart). A count is never created by a change: an ADD on no item would
// start it at one whatever the accounts hold.
func (s *Users) addOperatorDelta(x *tx, was, is bool, lastErr error) {
	k := OperatorCountKey()
	switch {
	case is && !was:
		x.update(s.t.update(k).Add("count", 1).If("attribute_exists(PK)"), errNoOperatorCount)
	case was && !is:
		x.update(s.t.update(k).Add("count", -1).If("attribute_exists(PK) AND $ > ?", "count", 1), lastErr)
	}
}

// errNoOperatorCount is a change of the count on a table that has none.
var errNoOperatorCount = errors.New("the operator count was never written")

// runCounted runs the transaction build makes (a change of the working
// operators' count among its parts); when it fails on a count the table
// does not hold (errNoOperatorCount, or lastErr, which a missing count
// also answers), the accounts are counted, as they stand before the
// change, and the transaction runs once more. The second run answers
// for itself whoever wrote the count (this recount or a concurrent one):
// with the count present, a lastErr is the refusal it says, at the cost
// of one more transaction on that rare path.
func (s *Users) runCounted(ctx context.Context, lastErr error, build func() *tx) error {
	err := build().run(ctx)
	if !errors.Is(err, errNoOperatorCount) && (lastErr == nil || !errors.Is(err, lastErr)) {
		return err
	}
	if _, err := s.RecountOperators(ctx); err != nil {
		return err
	}
	return build().run(ctx)
}

// OperatorCount reads the number of working operators (0 when the count
// was never written).
func (s *Users) OperatorCount(ctx context.Context) (int, error) {
	var it operatorCountItem
	err := s.t.get(OperatorCountKey()).Consistent(true).One(ctx, &it)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return 0, fmt.Errorf("get operator count: %w", err)
	}
	return it.Count, nil
}

// RecountOperators writes the working operators' count of a table from
// before the count, if it has none: a Scan of the accounts (a local data
// directory's few; the local start-up runs it, like Reindex; a change
// of the count on a table without one runs it too). It returns the count
// it wrote, or -1 when the table had one already (also when another
// wrote it between the read and this write).
func (s *Users) RecountOperators(ctx context.Context) (int, error) {
	err := s.t.get(OperatorCountKey()).Consistent(true).One(ctx, &operatorCountItem{})
	switch {
	case err == nil:
		return -1, nil
	case !errors.Is(err, dynamo.ErrNotFound):
		return 0, fmt.Errorf("get operator count: %w", err)
	}
	var items []userItem
	err = s.t.table.Scan().Filter("$ = ? AND $ = ? AND attribute_not_exists(suspendedAt)", "type", typeUser, "operator", true).
		Consistent(true).Project("id").All(ctx, &items)
	if err != nil {
		return 0, fmt.Errorf("count operators: %w", err)
	}
	k := OperatorCountKey()
	err = s.t.update(k).Set("count", len(items)).Set("type", typeOperatorCount).If("attribute_not_exists(PK)").Run(ctx)
	switch {
	case isConditionFailed(err):
		return -1, nil
	case err != nil:
		return 0, fmt.Errorf("put operator count: %w", err)
	}
	return len(items), nil
}

// SetOperator grants (on) or revokes the operator role of a user its
// caller read (prev), in one transaction (so the back office's audit
// entry rides it) with the working operators' count: a revoke that
// would leave no working operator is users.ErrLastOperator. Conditional
// on prev's role and suspension state: users.ErrChanged when they moved
// (or the account is gone) since the read.
func (s *Users) SetOperator(ctx context.Context, prev *users.User, on bool, at time.Time) error {
	cond, args := stateCondition(prev)
	upd := s.t.update(UserKey(prev.ID)).Set("updatedAt", at.UTC()).If(cond, args...)
	if on {
		upd = upd.Set("operator", true)
	} else {
		upd = upd.Remove("operator")
	}
	err := s.runCounted(ctx, users.ErrLastOperator, func() *tx {
		x := s.t.tx().update(upd, users.ErrChanged)
		s.addOperatorDelta(x, workingOperator(prev.Operator, prev.Suspended()), workingOperator(on, prev.Suspended()), users.ErrLastOperator)
		return x
	})
	if err != nil {
		return fmt.Errorf("set operator %s: %w", prev.ID, err)
	}
	return nil
}

// SetSuspension suspends (at non-nil, with reason) or restores (at nil)
// a user its caller read (prev), in one transaction (the audit entry
// rides it). Both set sessionsValidAfter to the second of now
// (users.SessionCutoff), which ends every access token issued before.
// A suspended operator is no working operator: the suspension of the
// last is users.ErrLastOperatorSuspended, and the count moves with the
// suspension and the restore of an operator. Conditional on prev's
// suspension and role: of two operators suspending (or restoring) at
// once, one commits and the other is refused, with no second audit
// entry. Errors: users.ErrChanged (the state moved since the read).
func (s *Users) SetSuspension(ctx context.Context, prev *users.User, at *time.Time, reason string, now time.Time) error {
	cond, args := stateCondition(prev)
	upd := s.t.update(UserKey(prev.ID)).Set("updatedAt", now.UTC()).Set("sessionsValidAfter", users.SessionCutoff(now)).
		If(cond, args...)
	lastErr := error(nil)
	if at != nil {
		upd = upd.Set("suspendedAt", at.UTC()).Set("suspendReason", reason)
		lastErr = users.ErrLastOperatorSuspended
	} else {
		upd = upd.Remove("suspendedAt", "suspendReason")
	}
	err := s.runCounted(ctx, lastErr, func() *tx {
		x := s.t.tx().update(upd, users.ErrChanged)
		s.addOperatorDelta(x, workingOperator(prev.Operator, prev.Suspended()), workingOperator(prev.Operator, at != nil), lastErr)
		return x
	})
	if err != nil {
		return fmt.Errorf("set suspension of %s: %w", prev.ID, err)
	}
	return nil
}
