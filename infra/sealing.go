package main

import (
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/api/extposapi"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/groups"
)

// newSealingKey is the KMS key that seals the secrets the service keeps
// at rest (the point-of-sale OAuth tokens, shared/extpos/kmsseal), made
// only when a function declares KMS actions (groups.Function.SealActions):
// without it those functions would fall back to the key derived from the
// signing keys, which is for the local run. It rotates yearly, and it is
// retained when the stack goes, since the sealed tokens outlive a deploy
// gone wrong and nothing opens them without it.
func newSealingKey(scope constructs.Construct, functions []groups.Function) awskms.Key {
	for _, f := range functions {
		if len(f.SealActions) > 0 {
			return awskms.NewKey(scope, jsii.String("SealingKey"), &awskms.KeyProps{
				Description:       jsii.String("Seals the secrets the book platform keeps at rest (point-of-sale OAuth tokens)"),
				EnableKeyRotation: jsii.Bool(true),
				RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
			})
		}
	}
	return nil
}

// grantSealing lets fn call exactly its declared KMS actions on the
// sealing key.
func grantSealing(fn awslambda.Function, f groups.Function, key awskms.Key) {
	if len(f.SealActions) == 0 || key == nil {
		return
	}
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("SealingKey"),
		Actions:   jsii.Strings(f.SealActions...),
		Resources: jsii.Strings(*key.KeyArn()),
	}))
}

// extPosClientSecret is the Secrets Manager secret holding the
// point-of-sale application's client secret, made only when a function
// reads its ARN (groups.Function.Settings has EXTPOS_CLIENT_SECRET_ARN):
// the one the context's extposClientSecretArn names, or else one the
// stack creates with a random placeholder, into which the operator puts
// the application's secret (README, "Deploy"). Its value is in no
// template and no function's configuration; the functions read it at
// run time (extpos.ManagedSecret).
func extPosClientSecret(scope constructs.Construct, functions []groups.Function, props *BackendStackProps) awssecretsmanager.ISecret {
	for _, f := range functions {
		if !slices.Contains(f.Settings, extpos.EnvClientSecretARN) {
			continue
		}
		if props.ExtPosClientSecretARN != "" {
			return awssecretsmanager.Secret_FromSecretCompleteArn(scope, jsii.String("ExtPosClientSecret"), jsii.String(props.ExtPosClientSecretARN))
		}
		secret := awssecretsmanager.NewSecret(scope, jsii.String("ExtPosClientSecret"), &awssecretsmanager.SecretProps{
			Description: jsii.String("The point-of-sale OAuth application's client secret (" + extpos.EnvClientSecretARN + "): put the one Square issued"),
			GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
				PasswordLength:     jsii.Number(48),
				ExcludePunctuation: jsii.Bool(true),
			},
		})
		suppress(secret, "SMG4", "Square issues the application's client secret; it is replaced in Square's developer dashboard and then put here by hand, not rotated by a function (the functions read it again every 5 minutes: extpos.ManagedSecret)")
		return secret
	}
	return nil
}

// readExtPosClientSecret lets fn read the client secret, when its group
// reads the secret's ARN, and nothing else of Secrets Manager for it.
func readExtPosClientSecret(fn awslambda.Function, f groups.Function, secret awssecretsmanager.ISecret) {
	if secret == nil || !slices.Contains(f.Settings, extpos.EnvClientSecretARN) {
		return
	}
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ReadExtPosClientSecret"),
		Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
		Resources: jsii.Strings(*secret.SecretArn()),
	}))
}

// extPosEnv are the point-of-sale integration's settings the stack knows:
// the sealing key, the client secret's ARN (its value goes in no
// template: docs/decisions.md), and what the deployment's context gives
// (the Square-compatible service's base URL and the application's client
// id, the callback as registered with it, the app's URL the callback
// sends the browser back to).
func extPosEnv(key awskms.Key, secret awssecretsmanager.ISecret, props *BackendStackProps) map[string]*string {
	env := map[string]*string{}
	if key != nil {
		env[extpos.EnvKMSKeyID] = key.KeyArn()
	}
	if secret != nil {
		env[extpos.EnvClientSecretARN] = secret.SecretArn()
	}
	for name, v := range map[string]string{
		extpos.EnvBaseURL: props.ExtPosBaseURL, extpos.EnvClientID: props.ExtPosClientID,
		extpos.EnvRedirectURL: props.ExtPosRedirectURL, extposapi.EnvAppURL: props.AppURL,
	} {
		if v != "" {
			env[name] = jsii.String(v)
		}
	}
	return env
}
