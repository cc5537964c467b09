package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

// operationsID is the construct ID of the nested stack of the alarms and
// the dashboard.
const operationsID = "Operations"

// newOperationsStack is the nested stack "Operations", which holds the
// alarms and the dashboard. They were a third of the root stack's
// resources and grow with every function (up to five alarms each), yet
// nothing in the root reads them but the deployment groups (their
// rollback alarms' names, nested-stack outputs) and the dashboard's name
// (an output); they read the root's functions, queues, API and table by
// name (nested-stack parameters). Out of the root they leave it room for
// the groups to come, and one `cdk deploy` still deploys them with it:
// docs/decisions.md, "Alarms and the dashboard in a nested stack".
//
// Two things stay in the root on purpose. The alarm topic (newAlarmTopic):
// moved, it would be a new topic, and every subscription made to the old
// one by hand would be lost without a sound. The deployment groups
// (newDeployments): each alias's update policy names its group, and CDK
// does not turn a reference in an update policy into a nested-stack
// output (it writes a Ref to a resource the root does not have), so
// nested groups would need names written by hand into every alias.
func newOperationsStack(stack awscdk.Stack) awscdk.NestedStack {
	return awscdk.NewNestedStack(stack, jsii.String(operationsID), &awscdk.NestedStackProps{
		Description: jsii.String("bookplatform: the alarms and the dashboard"),
	})
}
