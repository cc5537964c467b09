package main

import (
	"encoding/json"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
)

// Where the access logs go. CloudWatch Logs keep the API's access log and
// every function's log (LogRetentionDays); the access-log bucket keeps
// the media bucket's server access logs (under s3/) and CloudFront's
// standard logs (under cloudfront/) for as many days.
const (
	accessLogPrefixS3         = "s3/media/"
	accessLogPrefixCloudFront = "cloudfront/"
)

// newAccessLogBucket is the bucket of the S3 and CloudFront access logs:
// private, encrypted with S3-managed keys (CloudFront's log delivery
// cannot use KMS keys), TLS only, objects expiring after the retention
// period, kept when the stack goes. CloudFront's standard logs are
// written with ACLs, hence object ownership "bucket owner preferred"
// rather than ACLs disabled.
func newAccessLogBucket(scope constructs.Construct, ops OpsProps) awss3.Bucket {
	return awss3.NewBucket(scope, jsii.String("AccessLogs"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_PREFERRED,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Expiration: awscdk.Duration_Days(jsii.Number(ops.retentionInDays())),
		}},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
}

// logAPIAccess turns on the access log of the API's default stage, to a
// log group kept for the retention period.
func logAPIAccess(scope constructs.Construct, api awsapigatewayv2.HttpApi, ops OpsProps) awslogs.LogGroup {
	logs := awslogs.NewLogGroup(scope, jsii.String("ApiAccessLogs"), &awslogs.LogGroupProps{
		Retention:     ops.retention(),
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
		// Read when following a request, never filtered or turned into
		// metrics: the class at half the ingestion price will do.
		LogGroupClass: awslogs.LogGroupClass(groups.Observability.AccessLogClass),
	})
	format, err := json.Marshal(httpapi.GatewayAccessLogFormat)
	if err != nil {
		panic(err)
	}
	stage, ok := api.DefaultStage().Node().DefaultChild().(awsapigatewayv2.CfnStage)
	if !ok {
		panic("infra: the HTTP API's default stage has no CloudFormation resource")
	}
	stage.SetAccessLogSettings(&awsapigatewayv2.CfnStage_AccessLogSettingsProperty{
		DestinationArn: logs.LogGroupArn(),
		Format:         jsii.String(string(format)),
	})
	return logs
}
