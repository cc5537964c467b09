// Package auth issues and verifies access tokens (signed JWTs), generates
// and hashes refresh tokens, and hashes passwords. It knows nothing of HTTP
// or storage.
package auth

// Claims are the verified contents of an access token. Tier is carried for
// clients' convenience only; the server reads the tier from stored data.
type Claims struct {
	UserID    string
	IsGuest   bool
	Tier      string
	SessionID string // refresh-token family the token was issued with
}
