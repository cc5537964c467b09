package auth

import "strings"

// BearerToken reads an Authorization header of the form "Bearer <token>"
// (RFC 6750): the scheme in any case, spaces around the parts ignored,
// and a token of the b64token characters only (letters, digits and
// -._~+/, then any '='). Anything else is a malformed header, which the
// router and the authorizer both answer "Missing or invalid authorization
// header", as opposed to a well-formed token that does not verify.
func BearerToken(h string) (string, bool) {
	scheme, tok, found := strings.Cut(strings.TrimSpace(h), " ")
	tok = strings.TrimSpace(tok)
	if !found || !strings.EqualFold(scheme, "Bearer") || !isB64Token(tok) {
		return "", false
	}
	return tok, true
}

func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}
