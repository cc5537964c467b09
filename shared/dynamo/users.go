package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

var _ users.Storer = (*Store)(nil)

// userItem is a user as stored: PK USER#<id>, SK PROFILE.
type userItem struct {
	PK             string    `dynamo:"PK"`
	SK             string    `dynamo:"SK"`
	Type           string    `dynamo:"type"`
	ID             string    `dynamo:"id"`
	Username       string    `dynamo:"username"`
	Email          string    `dynamo:"email"`
	PasswordHash   string    `dynamo:"passwordHash"`
	DisplayName    string    `dynamo:"displayName"`
	Bio            string    `dynamo:"bio"`
	AvatarURL      string    `dynamo:"avatarUrl"`
	Tier           string    `dynamo:"tier"`
	IsGuest        bool      `dynamo:"isGuest"`
	HomeStoreID    string    `dynamo:"homeStoreId"`
	FollowerCount  int       `dynamo:"followerCount"`
	FollowingCount int       `dynamo:"followingCount"`
	QuotaMonth     string    `dynamo:"quotaMonth"`
	MonthlyPosts   int       `dynamo:"monthlyPosts"`
	MonthlyReviews int       `dynamo:"monthlyReviews"`
	CreatedAt      time.Time `dynamo:"createdAt"`
	UpdatedAt      time.Time `dynamo:"updatedAt"`
}

// claimItem reserves a unique value (email, username) for a user.
type claimItem struct {
	PK     string `dynamo:"PK"`
	SK     string `dynamo:"SK"`
	Type   string `dynamo:"type"`
	UserID string `dynamo:"userId"`
}

func toUserItem(u *users.User) userItem {
	return userItem{
		PK: userPK(u.ID), SK: profileSK, Type: "User",
		ID: u.ID, Username: u.Username, Email: u.Email, PasswordHash: u.PasswordHash,
		DisplayName: u.DisplayName, Bio: u.Bio, AvatarURL: u.AvatarURL, Tier: string(u.Tier),
		IsGuest: u.IsGuest, HomeStoreID: u.HomeStoreID,
		FollowerCount: u.FollowerCount, FollowingCount: u.FollowingCount,
		CreatedAt: u.CreatedAt.UTC(), UpdatedAt: u.UpdatedAt.UTC(),
	}
}

func (it userItem) toUser() *users.User {
	return &users.User{
		ID: it.ID, Username: it.Username, Email: it.Email, PasswordHash: it.PasswordHash,
		DisplayName: it.DisplayName, Bio: it.Bio, AvatarURL: it.AvatarURL, Tier: users.Tier(it.Tier),
		IsGuest: it.IsGuest, HomeStoreID: it.HomeStoreID,
		FollowerCount: it.FollowerCount, FollowingCount: it.FollowingCount,
		QuotaMonth: it.QuotaMonth, MonthlyPosts: it.MonthlyPosts, MonthlyReviews: it.MonthlyReviews,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

// CreateUser writes the user and its email and username claims in one
// transaction, each put conditional on the key being new: uniqueness holds
// under concurrent sign-ups without a read first.
func (s *Store) CreateUser(ctx context.Context, u *users.User) error {
	tx := s.db.WriteTx().
		Put(s.table.Put(toUserItem(u)).If("attribute_not_exists(PK)")).
		Put(s.table.Put(claimItem{PK: usernamePK(u.Username), SK: usernameSK, Type: "UsernameClaim", UserID: u.ID}).If("attribute_not_exists(PK)"))
	if u.Email != "" {
		tx = tx.Put(s.table.Put(claimItem{PK: emailPK(u.Email), SK: emailSK, Type: "EmailClaim", UserID: u.ID}).If("attribute_not_exists(PK)"))
	}
	err := tx.Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case failedCondition(codes, 2):
			return apperr.Conflict("Email already registered")
		case failedCondition(codes, 1):
			return apperr.Conflict("Username already taken")
		case failedCondition(codes, 0):
			return apperr.Conflict("User id already exists")
		}
	}
	if err != nil {
		return fmt.Errorf("create user %s: %w", u.ID, err)
	}
	return nil
}

// GetUser reads a user by id (strongly consistent).
func (s *Store) GetUser(ctx context.Context, id string) (*users.User, error) {
	var it userItem
	err := s.table.Get(AttrPK, userPK(id)).Range(AttrSK, dynamo.Equal, profileSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, apperr.NotFound("User not found")
	}
	if err != nil {
		return nil, fmt.Errorf("get user %s: %w", id, err)
	}
	return it.toUser(), nil
}

// GetUserByEmail resolves the email claim, then reads the user.
func (s *Store) GetUserByEmail(ctx context.Context, email string) (*users.User, error) {
	return s.getByClaim(ctx, emailPK(email), emailSK)
}

// GetUserByUsername resolves the username claim, then reads the user.
func (s *Store) GetUserByUsername(ctx context.Context, username string) (*users.User, error) {
	return s.getByClaim(ctx, usernamePK(username), usernameSK)
}

func (s *Store) getByClaim(ctx context.Context, pk, sk string) (*users.User, error) {
	id, err := s.claimedUserID(ctx, pk, sk, true)
	if err != nil {
		return nil, err
	}
	return s.GetUser(ctx, id)
}

// UserIDByUsername reads the username claim, which holds the account id:
// one GetItem, where GetUserByUsername needs two, for lists that only need
// the id to start.
func (s *Store) UserIDByUsername(ctx context.Context, username string) (string, error) {
	return s.claimedUserID(ctx, usernamePK(username), usernameSK, false)
}

// claimedUserID reads a uniqueness claim (email, username) and returns the
// account it belongs to. Errors: NotFound.
func (s *Store) claimedUserID(ctx context.Context, pk, sk string, consistent bool) (string, error) {
	var c claimItem
	err := s.table.Get(AttrPK, pk).Range(AttrSK, dynamo.Equal, sk).Consistent(consistent).One(ctx, &c)
	if errors.Is(err, dynamo.ErrNotFound) {
		return "", apperr.NotFound("User not found")
	}
	if err != nil {
		return "", fmt.Errorf("get claim %s: %w", pk, err)
	}
	return c.UserID, nil
}

// UpdateUser writes the fields of u that differ from prev, in one
// transaction with the claims the change needs: a new username is claimed
// and prev's freed; a new email likewise (a guest becoming a full account).
// Only changed attributes are written, so a concurrent change to another
// field (or a follower counter) is never overwritten; the update is
// conditional on prev's username and guest state, so two concurrent
// renames or migrations cannot both win.
func (s *Store) UpdateUser(ctx context.Context, prev, u *users.User) error {
	upd := s.table.Update(AttrPK, userPK(u.ID)).Range(AttrSK, profileSK).
		Set("updatedAt", u.UpdatedAt.UTC()).
		If("attribute_exists(PK) AND username = ? AND isGuest = ?", prev.Username, prev.IsGuest)
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

	tx := s.db.WriteTx().Update(upd)
	usernameAt, emailAt := -1, -1
	n := 1
	if !strings.EqualFold(prev.Username, u.Username) {
		tx = tx.Put(s.table.Put(claimItem{PK: usernamePK(u.Username), SK: usernameSK, Type: "UsernameClaim", UserID: u.ID}).If("attribute_not_exists(PK)")).
			Delete(s.table.Delete(AttrPK, usernamePK(prev.Username)).Range(AttrSK, usernameSK).If("userId = ?", u.ID))
		usernameAt = n
		n += 2
	}
	// A change of case only keeps the (lower-cased) claim.
	if u.Email != "" && !strings.EqualFold(prev.Email, u.Email) {
		tx = tx.Put(s.table.Put(claimItem{PK: emailPK(u.Email), SK: emailSK, Type: "EmailClaim", UserID: u.ID}).If("attribute_not_exists(PK)"))
		emailAt = n
		if prev.Email != "" {
			tx = tx.Delete(s.table.Delete(AttrPK, emailPK(prev.Email)).Range(AttrSK, emailSK).If("userId = ?", u.ID))
		}
	}
	err := tx.Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case usernameAt >= 0 && failedCondition(codes, usernameAt):
			return apperr.Conflict("Username already taken")
		case emailAt >= 0 && failedCondition(codes, emailAt):
			return apperr.Conflict("Email already registered")
		case failedCondition(codes, 0):
			return apperr.Conflict("Account changed by another request; retry")
		}
	}
	if err != nil {
		return fmt.Errorf("update user %s: %w", u.ID, err)
	}
	return nil
}

func setOrRemove(u *dynamo.Update, attr, v string) *dynamo.Update {
	if v == "" {
		return u.Remove(attr)
	}
	return u.Set(attr, v)
}
