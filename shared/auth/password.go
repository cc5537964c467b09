package auth

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// HashPassword hashes a password with bcrypt at the given cost.
func HashPassword(password string, cost int) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// CheckPassword reports whether password matches hash.
func CheckPassword(hash, password string) bool {
	if hash == "" {
		return false
	}
	err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password))
	return err == nil
}

// dummyHash is compared against when a login names an unknown email, so
// that unknown and known emails take the same time to refuse.
// It is made on first use, not at start, to keep cold starts short.
var dummyHash = sync.OnceValues(func() ([]byte, error) {
	return bcrypt.GenerateFromPassword([]byte("timing-equaliser"), bcrypt.DefaultCost)
})

// CheckNoUser spends the time a password check would, then returns false.
func CheckNoUser(password string) bool {
	if h, err := dummyHash(); err == nil {
		_ = bcrypt.CompareHashAndPassword(h, []byte(password))
	}
	return false
}

// ErrPasswordTooLong is bcrypt's 72-byte limit, checked before hashing.
var ErrPasswordTooLong = errors.New("password longer than 72 bytes")
