package idempotency

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// Answer is what a retry is given: the first request's status, headers
// and body.
type Answer struct {
	Status int
	Header map[string]string
	Body   []byte
	// TooLarge marks an answer too large to keep: the record says only
	// that the request was answered, and a retry is refused rather than
	// run again (docs/decisions.md, "Idempotency keys").
	TooLarge bool
}

// ErrUnreadable is an answer that does not open under the server's key
// for its record: altered, moved from another record, or sealed under
// another secret.
var ErrUnreadable = errors.New("idempotency: the kept answer does not open under this record's key")

// Sealer protects records with server keys, both derived from one secret
// (app derives that from the JWT signing key): the fingerprint of a
// request is an HMAC-SHA256, so a reader of the table cannot test guesses
// at a body (a sign-up's password) against it; an answer is sealed with
// AES-256-GCM, the record's key as additional data, so the tokens a
// sign-up answered are not in the table in clear and a sealed answer
// moved to another key does not open there.
//
// A sealer may hold several secrets, the signing key's first: it
// fingerprints and seals under the first and recognises and opens under
// any, so a record kept before a key rotation still serves its retries.
type Sealer struct {
	keys []sealKey // the first seals
}

type sealKey struct {
	mac  []byte
	aead cipher.AEAD
}

// NewSealer derives the sealer's keys from secrets (each 32 bytes or
// more, the sealing one first; none gives fixed keys, which only tests of
// the router use).
func NewSealer(secrets ...[]byte) *Sealer {
	if len(secrets) == 0 {
		secrets = [][]byte{nil}
	}
	s := &Sealer{}
	for _, secret := range secrets {
		block, err := aes.NewCipher(derive(secret, "answer"))
		if err != nil {
			panic("idempotency: answer key: " + err.Error())
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			panic("idempotency: answer cipher: " + err.Error())
		}
		s.keys = append(s.keys, sealKey{mac: derive(secret, "fingerprint"), aead: aead})
	}
	return s
}

// derive is a 32-byte key for one use of secret.
func derive(secret []byte, use string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("bookplatform idempotency " + use))
	return m.Sum(nil)
}

// Fingerprint is the keyed hash (hex) of a request's method, path and
// body, each length-prefixed so that no two requests share an input,
// under the sealing secret.
func (s *Sealer) Fingerprint(method, path string, body []byte) string {
	return fingerprint(s.keys[0].mac, method, path, body)
}

// Matches reports whether fp is the fingerprint of the request under any
// of the sealer's secrets: a record taken before a rotation still
// recognises its retry.
func (s *Sealer) Matches(fp, method, path string, body []byte) bool {
	for _, k := range s.keys {
		if hmac.Equal([]byte(fp), []byte(fingerprint(k.mac, method, path, body))) {
			return true
		}
	}
	return false
}

func fingerprint(mac []byte, method, path string, body []byte) string {
	m := hmac.New(sha256.New, mac)
	for _, part := range [][]byte{[]byte(method), []byte(path), body} {
		m.Write(binary.AppendUvarint(nil, uint64(len(part))))
		m.Write(part)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// answerMeta is the sealed answer's head; the body follows it as is (a
// kept body may be 300 KB: JSON would grow it by a third).
type answerMeta struct {
	Status   int               `json:"s"`
	Header   map[string]string `json:"h,omitempty"`
	TooLarge bool              `json:"t,omitempty"`
}

// sealVersion leads every sealed answer, so the layout can change.
const sealVersion = 1

// Seal encrypts a for the record key: nonce, then the AES-GCM sealing of
// version, head length, head (JSON) and body.
func (s *Sealer) Seal(key string, a Answer) ([]byte, error) {
	head, err := json.Marshal(answerMeta{Status: a.Status, Header: a.Header, TooLarge: a.TooLarge})
	if err != nil {
		return nil, fmt.Errorf("seal answer: %w", err)
	}
	plain := append([]byte{sealVersion}, binary.AppendUvarint(nil, uint64(len(head)))...)
	plain = append(append(plain, head...), a.Body...)
	aead := s.keys[0].aead
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal answer: %w", err)
	}
	return aead.Seal(nonce, nonce, plain, []byte(key)), nil
}

// Open decrypts an answer Seal made for the same record key, under any
// of the sealer's secrets. Errors: ErrUnreadable.
func (s *Sealer) Open(key string, sealed []byte) (Answer, error) {
	for _, k := range s.keys {
		if a, err := open(k.aead, key, sealed); err == nil {
			return a, nil
		}
	}
	return Answer{}, ErrUnreadable
}

func open(aead cipher.AEAD, key string, sealed []byte) (Answer, error) {
	n := aead.NonceSize()
	if len(sealed) < n+aead.Overhead() {
		return Answer{}, ErrUnreadable
	}
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], []byte(key))
	if err != nil || len(plain) == 0 || plain[0] != sealVersion {
		return Answer{}, ErrUnreadable
	}
	size, w := binary.Uvarint(plain[1:])
	rest := plain[1:]
	if w <= 0 || size > uint64(len(rest)-w) {
		return Answer{}, ErrUnreadable
	}
	var head answerMeta
	if err := json.Unmarshal(rest[w:w+int(size)], &head); err != nil {
		return Answer{}, ErrUnreadable
	}
	a := Answer{Status: head.Status, Header: head.Header, TooLarge: head.TooLarge}
	if body := rest[w+int(size):]; len(body) > 0 {
		a.Body = body
	}
	return a, nil
}
