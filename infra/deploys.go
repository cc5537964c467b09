package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscodedeploy"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
)

// AliasName is the alias every caller of a function goes through (API
// Gateway, the authorizer binding, SQS, Secrets Manager): CodeDeploy
// moves it from the running version to the new one.
const AliasName = "live"

// newAlias publishes fn's current code and configuration as a version
// and points the alias at it. On a deploy that changes the function,
// CloudFormation publishes a new version and CodeDeploy, not
// CloudFormation, moves the alias to it (newDeployments).
func newAlias(fn awslambda.Function) awslambda.Alias {
	return awslambda.NewAlias(fn, jsii.String("Alias"), &awslambda.AliasProps{
		AliasName: jsii.String(AliasName),
		Version:   fn.CurrentVersion(),
	})
}

// newDeployments gives every function a CodeDeploy deployment group: a
// new version takes traffic as ops.Deployment says (canary by default:
// 10 % for five minutes, then all) and the deployment stops and moves
// the alias back when any of the function's rollback alarms fires
// (functionAlarms.rollback: its errors, throttles and server errors), or
// when the deployment itself fails.
//
// One service role serves every group. It carries AWS's managed policy
// for CodeDeploy on Lambda (AWSCodeDeployRoleForLambdaLimited), which
// only lets it read alarms and move aliases; nag.go says why that is
// kept.
func newDeployments(scope constructs.Construct, functions []groups.Function, aliases map[string]awslambda.Alias, alarms map[string]*functionAlarms, ops OpsProps) (awscodedeploy.LambdaApplication, awsiam.Role) {
	application := awscodedeploy.NewLambdaApplication(scope, jsii.String("Deployments"), &awscodedeploy.LambdaApplicationProps{})
	role := awsiam.NewRole(scope, jsii.String("DeploymentsRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("codedeploy.amazonaws.com"), nil),
		Description: jsii.String("CodeDeploy shifting the functions' aliases"),
		ManagedPolicies: &[]awsiam.IManagedPolicy{
			awsiam.ManagedPolicy_FromAwsManagedPolicyName(jsii.String("service-role/AWSCodeDeployRoleForLambdaLimited")),
		},
	})
	for _, f := range functions {
		var rollback []interfacesawscloudwatch.IAlarmRef
		for _, a := range alarms[f.Name].rollback() {
			rollback = append(rollback, a)
		}
		awscodedeploy.NewLambdaDeploymentGroup(scope, jsii.String(f.Name+"Deployment"), &awscodedeploy.LambdaDeploymentGroupProps{
			Application:      application,
			Alias:            aliases[f.Name],
			DeploymentConfig: ops.deploymentConfig(),
			Alarms:           &rollback,
			Role:             role,
			AutoRollback: &awscodedeploy.AutoRollbackConfig{
				FailedDeployment:  jsii.Bool(true),
				DeploymentInAlarm: jsii.Bool(true),
			},
		})
	}
	return application, role
}
