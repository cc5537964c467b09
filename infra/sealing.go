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
	"github.com/bookplatform/backend/shared/payments"
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

// issuedSecret is a secret another service issues (Square's application
// client secret, Stripe's API key and webhook signing secret), held in
// Secrets Manager and read by the functions at run time
// (secretsmgr.Managed): its value is in no template and no function's
// configuration, only its ARN, and only on the functions whose group
// reads that ARN's variable (groups.Function.Settings), which alone may
// read it (GetSecretValue).
type issuedSecret struct {
	// ID is the secret's construct id (and, made by the stack, its name's
	// start).
	ID string
	// EnvARN is the variable naming the secret's ARN.
	EnvARN string
	// ExistingARN is an existing secret the deployment's context names;
	// "" makes one with a random placeholder the operator replaces.
	ExistingARN string
	// What says what the operator puts into it, and where it comes from.
	What string
}

// issuedSecrets are the stack's secrets issued by other services.
func issuedSecrets(props *BackendStackProps) []issuedSecret {
	return []issuedSecret{
		{ID: "ExtPosClientSecret", EnvARN: extpos.EnvClientSecretARN, ExistingARN: props.ExtPosClientSecretARN,
			What: "The point-of-sale OAuth application's client secret (" + extpos.EnvClientSecretARN + "): put the one Square issued"},
		{ID: "StripeApiKey", EnvARN: payments.EnvStripeAPIKeySecretARN, ExistingARN: props.StripeAPIKeySecretARN,
			What: "Stripe's secret API key (" + payments.EnvStripeAPIKeySecretARN + "): put the sk_live_ or sk_test_ key from Stripe's dashboard"},
		{ID: "StripeWebhookSecret", EnvARN: payments.EnvStripeWebhookSecretARN, ExistingARN: props.StripeWebhookSecretARN,
			What: "Stripe's webhook signing secret (" + payments.EnvStripeWebhookSecretARN + "): put the whsec_ secret of the endpoint registered in Stripe's dashboard"},
	}
}

// newIssuedSecrets makes (or imports) each issued secret some function
// reads, by its ARN variable; one nobody reads is not made.
func newIssuedSecrets(scope constructs.Construct, functions []groups.Function, props *BackendStackProps) map[string]awssecretsmanager.ISecret {
	out := map[string]awssecretsmanager.ISecret{}
	for _, is := range issuedSecrets(props) {
		read := slices.ContainsFunc(functions, func(f groups.Function) bool { return slices.Contains(f.Settings, is.EnvARN) })
		switch {
		case !read:
		case is.ExistingARN != "":
			out[is.EnvARN] = awssecretsmanager.Secret_FromSecretCompleteArn(scope, jsii.String(is.ID), jsii.String(is.ExistingARN))
		default:
			secret := awssecretsmanager.NewSecret(scope, jsii.String(is.ID), &awssecretsmanager.SecretProps{
				Description: jsii.String(is.What),
				GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
					PasswordLength:     jsii.Number(48),
					ExcludePunctuation: jsii.Bool(true),
				},
			})
			suppress(secret, "SMG4", "Another service issues this secret; it is replaced at its issuer (Square's or Stripe's dashboard) and then put here by hand, not rotated by a function (the functions read it again every 5 minutes: secretsmgr.Managed)")
			out[is.EnvARN] = secret
		}
	}
	return out
}

// readIssuedSecrets lets fn read the issued secrets its group reads the
// ARN of, each alone, and tells it their ARNs.
func readIssuedSecrets(fn awslambda.Function, f groups.Function, secrets map[string]awssecretsmanager.ISecret) {
	for _, is := range issuedSecrets(&BackendStackProps{}) {
		secret := secrets[is.EnvARN]
		if secret == nil || !slices.Contains(f.Settings, is.EnvARN) {
			continue
		}
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("Read" + is.ID),
			Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
			Resources: jsii.Strings(*secret.SecretArn()),
		}))
		fn.AddEnvironment(jsii.String(is.EnvARN), secret.SecretArn(), nil)
	}
}

// extPosEnv are the point-of-sale integration's settings the stack knows:
// the sealing key, the client secret's ARN (its value goes in no
// template: docs/decisions.md), and what the deployment's context gives
// (the Square-compatible service's base URL and the application's client
// id, the callback as registered with it, the app's URL the callback
// sends the browser back to).
func extPosEnv(key awskms.Key, props *BackendStackProps) map[string]*string {
	env := map[string]*string{}
	if key != nil {
		env[extpos.EnvKMSKeyID] = key.KeyArn()
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
