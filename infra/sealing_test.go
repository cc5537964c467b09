package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/payments"
)

// The point-of-sale tokens are sealed with KMS in AWS: a key exists,
// rotates and stays when the stack goes; the functions whose group
// declares KMS actions are told the key and may call exactly those
// actions on it alone; no other function may touch it or is told it.
func TestSealingKey(t *testing.T) {
	// GIVEN the synthesized stack
	keys := *template.FindResources(jsii.String("AWS::KMS::Key"), nil)
	for id := range keys {
		if !strings.HasPrefix(id, "SealingKey") {
			delete(keys, id) // the alarms' topic key
		}
	}
	// THEN there is one sealing key, rotating, retained
	if len(keys) != 1 {
		t.Fatalf("%d sealing keys, want 1", len(keys))
	}
	var keyID string
	for id, k := range keys {
		keyID = id
		if (*k)["Properties"].(obj)["EnableKeyRotation"] != true {
			t.Errorf("the sealing key does not rotate")
		}
		if (*k)["DeletionPolicy"] != "Retain" {
			t.Errorf("the sealing key's DeletionPolicy is %v, want Retain: sealed tokens outlive the stack", (*k)["DeletionPolicy"])
		}
	}
	keyArn := fmt.Sprint(obj{"Fn::GetAtt": []any{keyID, "Arn"}})
	sealers := 0
	for _, f := range functions {
		var granted obj
		for _, st := range roleStatements(t, f.Name) {
			if st["Sid"] == "SealingKey" {
				granted = st
			}
			for _, a := range strs(st["Action"]) {
				if strings.HasPrefix(a, "kms:") && st["Sid"] != "SealingKey" {
					t.Errorf("%s: %s granted outside the sealing key's statement", f.Name, a)
				}
			}
		}
		_, fn := function(t, f.Name)
		told, set := fn["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)[extpos.EnvKMSKeyID]
		if len(f.SealActions) == 0 {
			// AND a function that declares none may not touch the key
			if granted != nil || set {
				t.Errorf("%s declares no KMS actions but is granted the key (%v) or told it (%v)", f.Name, granted != nil, set)
			}
			continue
		}
		sealers++
		// AND a function that declares some is told the key, and granted exactly them on it
		if fmt.Sprint(told) != keyArn {
			t.Errorf("%s: %s = %v, want the sealing key's ARN", f.Name, extpos.EnvKMSKeyID, told)
		}
		if granted == nil {
			t.Errorf("%s declares KMS actions %v but is not granted them", f.Name, f.SealActions)
			continue
		}
		got := strs(granted["Action"])
		slices.Sort(got)
		if want := slices.Sorted(slices.Values(f.SealActions)); !slices.Equal(got, want) {
			t.Errorf("%s: KMS actions %v, want %v", f.Name, got, want)
		}
		if res := fmt.Sprint(granted["Resource"]); res != keyArn {
			t.Errorf("%s: KMS resource %s, want the sealing key alone", f.Name, res)
		}
	}
	if sealers == 0 {
		t.Error("no function seals: the point-of-sale groups should declare their KMS actions")
	}
}

// The secrets other services issue (Square's client secret, Stripe's API
// key and webhook secret) are Secrets Manager secrets read at run time:
// the functions whose group reads the secret's ARN variable are told its
// ARN and may read that secret alone (GetSecretValue); no function holds
// a value, and no other function is told the ARN or may read the secret.
func TestIssuedSecrets(t *testing.T) {
	wantReaders := map[string][]string{
		extpos.EnvClientSecretARN:          {"extpos", "possync"},
		payments.EnvStripeAPIKeySecretARN:  {"admin", "billing", "orders", "payments"},
		payments.EnvStripeWebhookSecretARN: {"payments"},
	}
	values := []string{extpos.EnvClientSecret, payments.EnvStripeAPIKey, payments.EnvStripeWebhookSecret}
	for _, is := range issuedSecrets(&BackendStackProps{}) {
		t.Run(is.ID, func(t *testing.T) {
			var secret string
			for id := range *template.FindResources(jsii.String("AWS::SecretsManager::Secret"), nil) {
				if strings.HasPrefix(id, is.ID) {
					secret = id
				}
			}
			if secret == "" {
				t.Fatalf("no secret %s", is.ID)
			}
			arn := fmt.Sprint(obj{"Ref": secret})
			var readers []string
			for _, f := range functions {
				_, fn := function(t, f.Name)
				vars, _ := fn["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)
				for _, v := range values {
					if val, has := vars[v]; has {
						t.Errorf("%s: %s holds a value: %v", f.Name, v, val)
					}
				}
				told, has := vars[is.EnvARN]
				reads := slices.Contains(f.Settings, is.EnvARN)
				if has != reads || (has && fmt.Sprint(told) != arn) {
					t.Errorf("%s: %s = %v, want the secret's ARN on the functions that read it only", f.Name, is.EnvARN, told)
				}
				var on []string
				for _, st := range roleStatements(t, f.Name) {
					if strings.Contains(fmt.Sprint(st["Resource"]), secret) {
						on = append(on, fmt.Sprint(st["Action"]))
						if fmt.Sprint(st["Resource"]) != arn {
							t.Errorf("%s: a statement on the secret and more: %v", f.Name, st["Resource"])
						}
					}
				}
				var want []string
				if reads {
					want = []string{"secretsmanager:GetSecretValue"}
					readers = append(readers, f.Name)
				}
				if !slices.Equal(on, want) {
					t.Errorf("%s: actions on the secret %v, want %v", f.Name, on, want)
				}
			}
			slices.Sort(readers)
			if !slices.Equal(readers, wantReaders[is.EnvARN]) {
				t.Errorf("the functions reading %s: %v, want %v", is.ID, readers, wantReaders[is.EnvARN])
			}
		})
	}
}
