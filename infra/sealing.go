package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
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

// extPosEnv are the point-of-sale integration's settings the stack knows:
// the sealing key, and what the deployment's context gives (the
// Square-compatible service's base URL and the application's client id,
// the callback as registered with it, the app's URL the callback sends
// the browser back to). The client's secret is not among them: a secret
// goes in no template (docs/decisions.md).
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
