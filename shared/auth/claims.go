// Package auth issues and verifies access tokens (signed JWTs), generates
// and hashes refresh tokens, and hashes passwords. It knows nothing of HTTP
// or storage.
package auth

import "time"

// Claims are the verified contents of an access token. Tier is carried for
// clients' convenience only; the server reads the tier from stored data.
type Claims struct {
	UserID    string
	IsGuest   bool
	Tier      string
	SessionID string // refresh-token family the token was issued with
	// IssuedAt is the token's iat, in whole seconds as a JWT carries it;
	// zero when the token has none. The router refuses a token issued
	// before its account's users.User.SessionsValidAfter (a suspension
	// ends every session issued before it).
	IssuedAt time.Time
}
