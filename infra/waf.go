package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscertificatemanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfrontorigins"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awswafv2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
)

// The optional WAF (context waf=true; docs/decisions.md, "WAF").
//
// API Gateway HTTP APIs cannot carry a web ACL (only REST APIs,
// CloudFront, load balancers and a few others can), so with the flag on
// the API gets a CloudFront front door that does: the stack's ApiUrl
// becomes the front door's, and the functions refuse a request that did
// not come through it. CloudFront proves a request came through it with a
// secret header (app.OriginVerifyHeader) that only it and the functions know,
// and tells the client's address in X-Forwarded-For, which the functions
// then trust (shared/app, frontDoor) so that every per-address rate limit
// still counts the client rather than a CloudFront edge.
//
// The web ACL has CloudFront's scope, which exists in us-east-1 only: the
// stack makes it when it is deployed there, otherwise context webAclArn
// names one made there (with the rules below, or stricter ones).

// webACL returns the ARN of the web ACL of the CDN and the API's front
// door: the one context webAclArn names, or a new one.
func webACL(stack awscdk.Stack, ops OpsProps) (*string, error) {
	if ops.WebACLArn != "" {
		return jsii.String(ops.WebACLArn), nil
	}
	region := ""
	if r := stack.Region(); !*awscdk.Token_IsUnresolved(r) {
		region = *r
	}
	if err := checkWAFRegion(ops, region); err != nil {
		return nil, err
	}
	managed := func(priority int, name string) *awswafv2.CfnWebACL_RuleProperty {
		return &awswafv2.CfnWebACL_RuleProperty{
			Name:           jsii.String(name),
			Priority:       jsii.Number(priority),
			OverrideAction: &awswafv2.CfnWebACL_OverrideActionProperty{None: map[string]any{}},
			Statement: &awswafv2.CfnWebACL_StatementProperty{
				ManagedRuleGroupStatement: &awswafv2.CfnWebACL_ManagedRuleGroupStatementProperty{
					VendorName: jsii.String("AWS"), Name: jsii.String(name),
				},
			},
			VisibilityConfig: visibility(name),
		}
	}
	common := managed(0, commonRuleSet)
	// The common rule set's body-size rule only counts: it blocks any body
	// over 8 KB, which the multipart uploads (up to 5 MB) are and a legal
	// JSON body may be (a note of 10,000 characters is up to 40 KB of
	// UTF-8). Every function refuses a body over its own limit with the
	// API's 413, so the ACL adds no body limit of its own.
	common.Statement.(*awswafv2.CfnWebACL_StatementProperty).ManagedRuleGroupStatement.(*awswafv2.CfnWebACL_ManagedRuleGroupStatementProperty).RuleActionOverrides = &[]any{
		&awswafv2.CfnWebACL_RuleActionOverrideProperty{
			Name:        jsii.String(bodySizeRule),
			ActionToUse: &awswafv2.CfnWebACL_RuleActionProperty{Count: map[string]any{}},
		},
	}
	acl := awswafv2.NewCfnWebACL(stack, jsii.String("WebAcl"), &awswafv2.CfnWebACLProps{
		Scope:            jsii.String("CLOUDFRONT"),
		Description:      jsii.String("bookplatform: AWS managed common rules with body size counted, known bad inputs, a per-address rate limit"),
		DefaultAction:    &awswafv2.CfnWebACL_DefaultActionProperty{Allow: map[string]any{}},
		VisibilityConfig: visibility("bookplatform"),
		Rules: &[]any{
			common,
			managed(1, "AWSManagedRulesKnownBadInputsRuleSet"),
			&awswafv2.CfnWebACL_RuleProperty{
				Name:     jsii.String("RatePerAddress"),
				Priority: jsii.Number(2),
				Action:   &awswafv2.CfnWebACL_RuleActionProperty{Block: map[string]any{}},
				Statement: &awswafv2.CfnWebACL_StatementProperty{
					RateBasedStatement: &awswafv2.CfnWebACL_RateBasedStatementProperty{
						Limit:            jsii.Number(ops.wafRequestsPer5Min()),
						AggregateKeyType: jsii.String("IP"),
					},
				},
				VisibilityConfig: visibility("RatePerAddress"),
			},
		},
	})
	return acl.AttrArn(), nil
}

// The common rule set and its rule that blocks a body over 8 KB (AWS's
// documentation of the rule group).
const (
	commonRuleSet = "AWSManagedRulesCommonRuleSet"
	bodySizeRule  = "SizeRestrictions_BODY"
)

// checkWAFRegion refuses WAF on a stack outside us-east-1 (region "" is
// an environment-agnostic one) unless a web ACL is named.
func checkWAFRegion(ops OpsProps, region string) error {
	if !ops.WAF || ops.WebACLArn != "" || region == "us-east-1" {
		return nil
	}
	where := "an environment-agnostic stack (no CDK_DEFAULT_REGION)"
	if region != "" {
		where = "region " + region
	}
	return fmt.Errorf("%s=true: CloudFront's web ACLs live in us-east-1, and this is %s; deploy the stack to us-east-1, or make the ACL there and pass -c %s=<its ARN>", CtxWAF, where, CtxWebACLArn)
}

func visibility(name string) *awswafv2.CfnWebACL_VisibilityConfigProperty {
	return &awswafv2.CfnWebACL_VisibilityConfigProperty{
		CloudWatchMetricsEnabled: jsii.Bool(true),
		MetricName:               jsii.String(name),
		SampledRequestsEnabled:   jsii.Bool(true),
	}
}

// newOriginSecret is the secret CloudFront shows the functions. CloudFront
// gets it by dynamic reference at deploy time (an origin's custom header
// cannot name a secret); the HTTP functions read it from Secrets Manager
// (readOriginSecret grants that), so it is not in their configuration.
// A new value is put by hand and then reaches CloudFront with the next
// deploy: the functions admit the current and previous values meanwhile
// (shared/app), and nag.go says why it does not rotate on a schedule.
func newOriginSecret(scope constructs.Construct) awssecretsmanager.Secret {
	return awssecretsmanager.NewSecret(scope, jsii.String("OriginVerifySecret"), &awssecretsmanager.SecretProps{
		Description: jsii.String("Header value CloudFront adds to the API's requests (" + config.EnvOriginVerifySecret + ")"),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength:     jsii.Number(48),
			ExcludePunctuation: jsii.Bool(true),
		},
	})
}

// newAPIFrontDoor is the CloudFront distribution in front of the API:
// nothing cached, every method, every viewer header but Host (API
// Gateway routes on its own host name), the origin secret added, HTTPS
// only on both sides, the web ACL on it, its standard logs in the
// access-log bucket, and the API's own domain when configured.
func newAPIFrontDoor(scope constructs.Construct, api awsapigatewayv2.HttpApi, acl *string, secret awssecretsmanager.Secret, logs awss3.IBucket, ops OpsProps) awscloudfront.Distribution {
	host := awscdk.Fn_Select(jsii.Number(2), awscdk.Fn_Split(jsii.String("/"), api.ApiEndpoint(), nil))
	props := &awscloudfront.DistributionProps{
		Comment: jsii.String("bookplatform API front door (WAF)"),
		DefaultBehavior: &awscloudfront.BehaviorOptions{
			Origin: awscloudfrontorigins.NewHttpOrigin(host, &awscloudfrontorigins.HttpOriginProps{
				ProtocolPolicy:     awscloudfront.OriginProtocolPolicy_HTTPS_ONLY,
				OriginSslProtocols: &[]awscloudfront.OriginSslPolicy{awscloudfront.OriginSslPolicy_TLS_V1_2},
				CustomHeaders:      &map[string]*string{app.OriginVerifyHeader: secret.SecretValue().UnsafeUnwrap()},
			}),
			ViewerProtocolPolicy: awscloudfront.ViewerProtocolPolicy_HTTPS_ONLY,
			AllowedMethods:       awscloudfront.AllowedMethods_ALLOW_ALL(),
			CachePolicy:          awscloudfront.CachePolicy_CACHING_DISABLED(),
			OriginRequestPolicy:  awscloudfront.OriginRequestPolicy_ALL_VIEWER_EXCEPT_HOST_HEADER(),
		},
		HttpVersion:   awscloudfront.HttpVersion_HTTP2_AND_3,
		WebAclId:      acl,
		EnableLogging: jsii.Bool(true),
		LogBucket:     logs,
		LogFilePrefix: jsii.String(accessLogPrefixCloudFront + "api/"),
	}
	if ops.APIDomainName != "" {
		props.DomainNames = jsii.Strings(ops.APIDomainName)
		props.Certificate = awscertificatemanager.Certificate_FromCertificateArn(scope, jsii.String("ApiCertificate"), jsii.String(ops.APICertificateArn))
		props.MinimumProtocolVersion = awscloudfront.SecurityPolicyProtocol_TLS_V1_2_2021
		props.SslSupportMethod = awscloudfront.SSLMethod_SNI
	}
	return awscloudfront.NewDistribution(scope, jsii.String("ApiFrontDoor"), props)
}

// readOriginSecret lets fn read the origin secret, and nothing else of it.
func readOriginSecret(fn awslambda.Function, secret awssecretsmanager.Secret) {
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ReadOriginSecret"),
		Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
		Resources: jsii.Strings(*secret.SecretArn()),
	}))
}
