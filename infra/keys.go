package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// keyRotationDays is how often Secrets Manager rotates the signing keys.
// A rotation only promotes the next key (shared/secretsmgr), so it may
// happen at any time; it must stay longer than the refresh token's
// 7 days only if one wanted sessions to outlive two rotations, which
// they need not: refresh tokens are opaque, not signed.
const keyRotationDays = 30

// newSigningKeys creates the secret holding the access-token keys
// (shared/secretsmgr.Value): generated with the current key only; the
// rotation schedule's first rotation, which Secrets Manager runs as soon
// as the schedule exists, adds the next one.
//
// Functions read it with the Secrets Manager API at start and every
// JWT_KEYS_REFRESH (readKeys grants that), not through a dynamic
// reference into their environment: a rotation then reaches running
// functions without a deploy, and no key is readable in a function's
// configuration.
func newSigningKeys(scope constructs.Construct) awssecretsmanager.Secret {
	return awssecretsmanager.NewSecret(scope, jsii.String("SigningKeys"), &awssecretsmanager.SecretProps{
		Description: jsii.String(`HMAC keys of the API's access tokens, cursors and idempotency records: {"current", "previous", "next"} (JWT_SECRET_ARN)`),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			SecretStringTemplate: jsii.String("{}"),
			GenerateStringKey:    jsii.String("current"),
			PasswordLength:       jsii.Number(64),
			ExcludePunctuation:   jsii.Bool(true), // env-var and shell safe; 64 alphanumerics are ~380 bits
		},
	})
}

// readKeys lets fn read the signing keys, and nothing else of Secrets
// Manager.
func readKeys(fn awslambda.Function, secret awssecretsmanager.Secret) {
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ReadSigningKeys"),
		Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
		Resources: jsii.Strings(*secret.SecretArn()),
	}))
}

// rotateKeys makes the rotation function (through its alias, so the
// deployed version runs) rotate the secret every keyRotationDays, with
// exactly the four calls of a rotation on that one secret. CDK's
// Secret.AddRotationSchedule would also grant
// secretsmanager:GetRandomPassword on every resource, which the function
// does not call (it draws keys from crypto/rand).
func rotateKeys(scope constructs.Construct, secret awssecretsmanager.Secret, fn awslambda.Function, alias awslambda.Alias) {
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("RotateSigningKeys"),
		Actions: jsii.Strings("secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue",
			"secretsmanager:PutSecretValue", "secretsmanager:UpdateSecretVersionStage"),
		Resources: jsii.Strings(*secret.SecretArn()),
	}))
	permission := awslambda.NewCfnPermission(scope, jsii.String("SigningKeysRotationPermission"), &awslambda.CfnPermissionProps{
		Action:        jsii.String("lambda:InvokeFunction"),
		FunctionName:  alias.FunctionArn(),
		Principal:     jsii.String("secretsmanager.amazonaws.com"),
		SourceAccount: awscdk.Stack_Of(scope).Account(),
	})
	schedule := awssecretsmanager.NewCfnRotationSchedule(scope, jsii.String("SigningKeysRotation"), &awssecretsmanager.CfnRotationScheduleProps{
		SecretId:          secret.SecretArn(),
		RotationLambdaArn: alias.FunctionArn(),
		RotationRules: &awssecretsmanager.CfnRotationSchedule_RotationRulesProperty{
			ScheduleExpression: jsii.String(fmt.Sprintf("rate(%d days)", keyRotationDays)),
		},
	})
	schedule.Node().AddDependency(permission)
	// The first rotation runs when the schedule is created: the function
	// must be able to read and write the secret by then.
	schedule.Node().AddDependency(fn.Role())
}
