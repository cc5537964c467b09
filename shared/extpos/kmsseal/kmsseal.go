// Package kmsseal seals the external point-of-sale tokens with KMS
// envelope encryption (extpos.Sealer), apart from shared/extpos so that
// only the functions that seal or open tokens (the extpos and possync
// groups) link the KMS client, not every function that links the table's
// stores.
package kmsseal

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/bookplatform/backend/shared/extpos"
)

// KMSAPI is the subset of the KMS client the sealer calls.
type KMSAPI interface {
	GenerateDataKey(ctx context.Context, in *kms.GenerateDataKeyInput, opts ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error)
	Decrypt(ctx context.Context, in *kms.DecryptInput, opts ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

// The KMS actions of sealing (Seal: GenerateDataKey) and of opening
// (Open: Decrypt), as IAM names them: a group declares those it calls
// (api.Group.Seals), and the stack grants them on its sealing key.
var (
	SealActions = []string{"kms:GenerateDataKey"}
	OpenActions = []string{"kms:Decrypt"}
)

// KMSSealer is envelope encryption with KMS: each Seal asks KMS for a
// fresh data key (GenerateDataKey, AES-256, under KeyID, with the context
// as encryption context), seals with it locally and stores the data key
// as KMS encrypted it beside the value; Open has KMS decrypt that data
// key (Decrypt), so the key material never leaves KMS unencrypted at
// rest and every open is in CloudTrail.
type KMSSealer struct {
	Client KMSAPI
	KeyID  string
}

func encryptionContext(context string) map[string]string {
	return map[string]string{"purpose": "extpos-tokens", "store": context}
}

// Seal implements Sealer.
func (s KMSSealer) Seal(ctx context.Context, plaintext []byte, context string) ([]byte, error) {
	dk, err := s.Client.GenerateDataKey(ctx, &kms.GenerateDataKeyInput{
		KeyId: aws.String(s.KeyID), KeySpec: kmstypes.DataKeySpecAes256, EncryptionContext: encryptionContext(context),
	})
	if err != nil {
		return nil, fmt.Errorf("kms generate data key: %w", err)
	}
	if len(dk.CiphertextBlob) > 0xffff {
		return nil, errors.New("kms data key too long")
	}
	prefix := binary.BigEndian.AppendUint16(nil, uint16(len(dk.CiphertextBlob)))
	prefix = append(prefix, dk.CiphertextBlob...)
	out, err := extpos.SealGCM(extpos.SealedKMS, dk.Plaintext, prefix, plaintext, context)
	clear(dk.Plaintext)
	return out, err
}

// Open implements Sealer.
func (s KMSSealer) Open(ctx context.Context, sealed []byte, context string) ([]byte, error) {
	if len(sealed) < 3 || sealed[0] != extpos.SealedKMS {
		return nil, extpos.ErrUnsealable
	}
	n := int(binary.BigEndian.Uint16(sealed[1:3]))
	if len(sealed) < 3+n {
		return nil, extpos.ErrUnsealable
	}
	dk, err := s.Client.Decrypt(ctx, &kms.DecryptInput{
		CiphertextBlob: sealed[3 : 3+n], KeyId: aws.String(s.KeyID), EncryptionContext: encryptionContext(context),
	})
	if err != nil {
		return nil, fmt.Errorf("kms decrypt data key: %w", err)
	}
	defer clear(dk.Plaintext)
	return extpos.OpenGCM(dk.Plaintext, sealed[3+n:], context)
}

// Choose is the sealer the settings choose: KMS under KMSKeyID when set
// (the client built from awsCfg), else the local key from keys.
func Choose(s extpos.Settings, awsCfg aws.Config, keys func() [][]byte) extpos.Sealer {
	if s.KMSKeyID != "" {
		return KMSSealer{Client: kms.NewFromConfig(awsCfg), KeyID: s.KMSKeyID}
	}
	return extpos.LocalSealer{Keys: keys}
}
