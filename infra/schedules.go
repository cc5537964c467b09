package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsscheduler"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsschedulertargets"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
)

// A scheduled job's invocation: EventBridge Scheduler invokes the
// function asynchronously and retries a failed invocation up to
// jobRetries times within jobMaxAge (a job is idempotent: the pool's run
// of a month writes once); a job that still fails raises the function's
// Errors alarm. Its timeout allows a long run (a month's pool writes one
// small transaction per store).
const (
	jobTimeout = 300 // seconds
	jobRetries = 3
	jobMaxAge  = 6 // hours
)

// scheduleJob makes the EventBridge Scheduler schedule of a scheduled
// job (groups.Function.Schedule), in UTC, invoking its alias with an
// empty event ({}: the job's default, the previous month for the pool).
// The target's role, which CDK makes, may invoke that function alone.
func scheduleJob(scope constructs.Construct, alias awslambda.Alias, f groups.Function) awsscheduler.Schedule {
	return awsscheduler.NewSchedule(scope, jsii.String(f.Name+"Schedule"), &awsscheduler.ScheduleProps{
		Description: jsii.String("Runs " + f.Name + " (" + f.Schedule + ", UTC)"),
		Schedule:    awsscheduler.ScheduleExpression_Expression(jsii.String(f.Schedule), awscdk.TimeZone_ETC_UTC()),
		Target: awsschedulertargets.NewLambdaInvoke(alias, &awsschedulertargets.ScheduleTargetBaseProps{
			Input:         awsscheduler.ScheduleTargetInput_FromObject(map[string]any{}),
			RetryAttempts: jsii.Number(jobRetries),
			MaxEventAge:   awscdk.Duration_Hours(jsii.Number(jobMaxAge)),
		}),
	})
}
