package main

import (
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// checkCompliance runs cdk-nag's AwsSolutions rules on the stack at
// synthesis: a finding is an error annotation, which fails `cdk synth`
// and `cdk deploy`, and the infra tests fail on any error or warning left
// (nag_test.go). What the stack keeps on purpose is suppressed below, on
// the one resource concerned, with the reason; everything else is fixed.
func checkCompliance(stack awscdk.Stack) {
	awscdk.Aspects_Of(stack).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
}

// nagSubjects are the resources a suppression concerns.
type nagSubjects struct {
	api       awsapigatewayv2.HttpApi
	routes    []awsapigatewayv2.HttpRoute
	functions []groups.Function
	lambdas   map[string]awslambda.Function
	mediaCDN  awscloudfront.Distribution
	frontDoor awscloudfront.Distribution // nil without WAF
	// storeDomains is the multi-tenant distribution of stores' custom
	// domains.
	storeDomains awscloudfront.CfnDistribution
	originKey    awssecretsmanager.Secret // nil without WAF
	deployments  awsiam.Role
	relayDLQ     awssqs.Queue // nil without a relay function
	ops          OpsProps
}

func suppress(c constructs.IConstruct, id, reason string, appliesTo ...any) {
	s := &cdknag.NagPackSuppression{Id: jsii.String("AwsSolutions-" + id), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		s.AppliesTo = &appliesTo
	}
	cdknag.NagSuppressions_AddResourceSuppressions(c, &[]*cdknag.NagPackSuppression{s}, jsii.Bool(true))
}

// suppressKept records every finding the stack keeps, and why.
func suppressKept(s nagSubjects) {
	// APIG4: the spec's public routes take no token by design (sign-up,
	// log-in, public profiles, the catalog's reference); its Optional
	// routes serve callers without one; the Bearer routes outside the
	// back office have their function verify the token and read the
	// caller on every request, the Lambda authorizer being kept on the
	// operator routes alone (groups.AuthorizerInvoked); $default answers
	// unknown paths with the envelope's 404/405 and runs no other group's
	// handler.
	for _, route := range routesOf(s.routes, s.functions, func(r gatewayRoute) bool { return r.Auth == httpapi.AuthNone }) {
		suppress(route, "APIG4", "A public route of the API specification ("+*route.Node().Id()+"): it takes no token by design")
	}
	for _, route := range routesOf(s.routes, s.functions, func(r gatewayRoute) bool { return r.Auth == httpapi.AuthOptional }) {
		suppress(route, "APIG4", "An Optional route of the API specification ("+*route.Node().Id()+"): it serves callers without a token, and its function verifies a token it is sent as a Bearer route's does")
	}
	for _, route := range routesOf(s.routes, s.functions, func(r gatewayRoute) bool { return r.Auth == httpapi.AuthBearer && !r.Authorizer }) {
		suppress(route, "APIG4", "A Bearer route of the API specification ("+*route.Node().Id()+"): its function verifies the token and reads the caller on every request, answering the specification's 401 to a missing, forged or expired token; the Lambda authorizer, a first line of defence only, is kept on the back office's operator routes")
	}
	if def := s.api.Node().TryFindChild(jsii.String("DefaultRoute")); def != nil {
		suppress(def, "APIG4", "API Gateway's $default route: the health function answers any unrouted request with the error envelope's 404 or 405 and runs no other group's handler")
	}

	// IAM5: X-Ray's PutTraceSegments takes no resource (AWS documents
	// "*" for it); a traced function sends the traces it keeps with it
	// (shared/tracing). Media objects are keyed by user and store ids made
	// at run time, under the one bucket.
	for _, f := range s.functions {
		role := s.lambdas[f.Name].Role()
		star := "The function sends the traces it keeps (shared/tracing): xray:PutTraceSegments supports no resource-level permission"
		if f.Relay {
			star += "; nor does dynamodb:ListStreams, which the stream event source needs (its other stream actions name the table's stream)"
		}
		if slices.ContainsFunc(f.MailActions, func(a string) bool { return slices.Contains(accountLevelMail, a) }) {
			star += "; nor does ses:GetSuppressedDestination, which reads the account's suppression list (sending is granted on the one identity and configuration set)"
		}
		if len(f.CDNActions) > 0 {
			star += "; nor does acm:RequestCertificate, and the CloudFront-managed certificates of store domains get ARNs at run time"
			suppress(role, "IAM5", "Distribution tenants are created at run time, one per store domain: their ids are not known when the stack is made (the statement names the one distribution)",
				&cdknag.RegexAppliesTo{Regex: jsii.String(`/^Resource::arn:.*:distribution-tenant\/\*$/g`)})
		}
		suppress(role, "IAM5", star, "Resource::*")
		if len(f.MediaActions) > 0 {
			suppress(role, "IAM5", "The function's S3 actions apply to objects of the media bucket only, whose keys (avatars/<userId>/..., stores/<id>/...) are made at run time",
				&cdknag.RegexAppliesTo{Regex: jsii.String(`/^Resource::<MediaBucket[A-Za-z0-9]+\.Arn>\/\*$/g`)})
		}
	}

	// SQS3: the relay's dead-letter queue is the on-failure destination
	// of its stream event source, not a redrive target, so nag does not
	// see it is a dead-letter queue.
	if s.relayDLQ != nil {
		suppress(s.relayDLQ, "SQS3", "The relay's dead-letter queue (the on-failure destination of its DynamoDB stream event source): a dead-letter queue has none of its own")
	}

	// IAM4: CodeDeploy's service role for Lambda; AWS's managed policy is
	// the documented one and only reads alarms and moves aliases.
	if s.deployments != nil {
		suppress(s.deployments, "IAM4", "CodeDeploy's documented service-role policy for Lambda deployments (AWSCodeDeployRoleForLambdaLimited): it reads alarms and moves aliases, nothing else",
			"Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited")
	}

	// CloudFront.
	for _, d := range []awscloudfront.Distribution{s.mediaCDN, s.frontDoor} {
		if d == nil {
			continue
		}
		suppress(d, "CFR1", "Readers and bookstores anywhere are served; no country is refused")
	}
	if s.storeDomains != nil {
		suppress(s.storeDomains, "CFR1", "Readers anywhere visit stores' sites; no country is refused")
		suppress(s.storeDomains, "CFR4", "A tenant-only distribution serves no viewer on a name of its own: each store domain is a tenant with its own CloudFront-managed certificate")
		if !s.ops.WAF {
			suppress(s.storeDomains, "CFR2", "WAF is optional (context waf=true puts the web ACL on this distribution too)")
		}
	}
	if !s.ops.WAF {
		suppress(s.mediaCDN, "CFR2", "WAF is optional (context waf=true puts a web ACL on this distribution and the API's front door); public images behind Origin Access Control need none to be safe")
	}
	if s.ops.MediaDomainName == "" {
		suppress(s.mediaCDN, "CFR4", "Served on its *.cloudfront.net name, whose certificate CloudFront pins to the TLSv1 policy; set context mediaDomainName and mediaCertificateArn to require TLS 1.2 (TLSv1.2_2021)")
	}
	if s.frontDoor != nil && s.ops.APIDomainName == "" {
		suppress(s.frontDoor, "CFR4", "Served on its *.cloudfront.net name, whose certificate CloudFront pins to the TLSv1 policy; set context apiDomainName and apiCertificateArn to require TLS 1.2 (TLSv1.2_2021)")
	}
	if s.originKey != nil {
		suppress(s.originKey, "SMG4", "Given to CloudFront's origin configuration by a deploy-time reference, which only a stack deploy updates: a scheduled rotation would change it under CloudFront. A value put by hand is followed by a deploy; meanwhile the functions admit the current and previous values and read them again every 5 minutes (shared/app, secretsmgr.Versions)")
	}
}

// routesOf are the API Gateway routes that which picks among the
// gateway routes (a GET entry's GET and HEAD alike).
func routesOf(routes []awsapigatewayv2.HttpRoute, functions []groups.Function, which func(gatewayRoute) bool) []constructs.IConstruct {
	keys, err := gatewayRoutes(functions)
	if err != nil {
		panic("infra: " + err.Error())
	}
	chosen := map[string]bool{}
	for _, r := range keys {
		if which(r) {
			chosen[r.Key()] = true
		}
	}
	var out []constructs.IConstruct
	for _, route := range routes {
		cfn, ok := route.Node().DefaultChild().(awsapigatewayv2.CfnRoute)
		if ok && cfn.RouteKey() != nil && chosen[*cfn.RouteKey()] {
			out = append(out, route)
		}
	}
	return out
}
