package kmsseal_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/extpos/kmsseal"
)

// fakeKMS wraps data keys under a fixed "master key" by XOR, checking the
// encryption context: what the sealer must send KMS, not KMS's crypto.
type fakeKMS struct {
	generated, decrypted int
}

var master = bytes.Repeat([]byte{0x5a}, 32)

func xor(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[i] = b[i] ^ master[i%len(master)]
	}
	return out
}

func (f *fakeKMS) GenerateDataKey(_ context.Context, in *kms.GenerateDataKeyInput, _ ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error) {
	f.generated++
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	blob := append([]byte(in.EncryptionContext["store"]+"|"), xor(key)...)
	return &kms.GenerateDataKeyOutput{Plaintext: key, CiphertextBlob: blob, KeyId: in.KeyId}, nil
}

func (f *fakeKMS) Decrypt(_ context.Context, in *kms.DecryptInput, _ ...func(*kms.Options)) (*kms.DecryptOutput, error) {
	f.decrypted++
	prefix := []byte(in.EncryptionContext["store"] + "|")
	if !bytes.HasPrefix(in.CiphertextBlob, prefix) || !maps.Equal(in.EncryptionContext, map[string]string{"purpose": "extpos-tokens", "store": in.EncryptionContext["store"]}) {
		return nil, errors.New("InvalidCiphertextException")
	}
	return &kms.DecryptOutput{Plaintext: xor(in.CiphertextBlob[len(prefix):])}, nil
}

var keyA = []byte("state-key-a-at-least-thirty-two-bytes!")

func TestKMSSealer_envelope(t *testing.T) {
	f := &fakeKMS{}
	s := kmsseal.KMSSealer{Client: f, KeyID: "alias/extpos"}
	ctx := context.Background()
	sealed, err := s.Seal(ctx, []byte("refresh-me"), "store-1")
	if err != nil || bytes.Contains(sealed, []byte("refresh-me")) {
		t.Fatalf("%q %v", sealed, err)
	}
	out, err := s.Open(ctx, sealed, "store-1")
	if err != nil || string(out) != "refresh-me" || f.generated != 1 || f.decrypted != 1 {
		t.Fatalf("open %q %v (%d, %d calls)", out, err, f.generated, f.decrypted)
	}
	if _, err := s.Open(ctx, sealed, "store-2"); err == nil {
		t.Fatal("another store's context opened it")
	}
	local := extpos.LocalSealer{Keys: func() [][]byte { return [][]byte{keyA} }}
	if _, err := local.Open(ctx, sealed, "store-1"); !errors.Is(err, extpos.ErrUnsealable) {
		t.Fatalf("the local sealer opened a KMS value: %v", err)
	}
}
