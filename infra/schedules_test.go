package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/groups"
)

func poolJob(t *testing.T) groups.Function {
	t.Helper()
	for _, f := range functions {
		if f.Name == "poolpayouts" {
			return f
		}
	}
	t.Fatal("no poolpayouts function in groups.Functions()")
	panic("unreachable")
}

// The monthly pool: a schedule on the 1st of each month at 02:00 UTC
// invokes the job's alias, whose role may read and write the table with
// the pool run's calls alone, and no route reaches it.
func TestPoolSchedule(t *testing.T) {
	f := poolJob(t)
	alias := aliasOf(t, template, f.Name)
	table := logicalID(t, "Table")

	// THEN one schedule per scheduled job; the pool's, monthly at 02:00 UTC on the 1st, targets the job's alias with an empty event and retries
	schedules := *template.FindResources(jsii.String("AWS::Scheduler::Schedule"), nil)
	jobs := 0
	for _, f := range functions {
		if f.Schedule != "" {
			jobs++
		}
	}
	if len(schedules) != jobs {
		t.Fatalf("%d schedules, want one for each of the %d scheduled jobs", len(schedules), jobs)
	}
	var roleID string
	found := 0
	for _, s := range schedules {
		props := (*s)["Properties"].(obj)
		if !strings.Contains(fmt.Sprint(props["Target"].(obj)["Arn"]), alias) {
			continue // another job's
		}
		found++
		if got := props["ScheduleExpression"]; got != "cron(0 2 1 * ? *)" || got != any(earnings.PoolSchedule) {
			t.Errorf("schedule expression %v, want monthly on the 1st at 02:00", got)
		}
		if got := props["ScheduleExpressionTimezone"]; got != "Etc/UTC" {
			t.Errorf("schedule time zone %v, want UTC", got)
		}
		if props["State"] != nil && props["State"] != "ENABLED" {
			t.Errorf("schedule state %v", props["State"])
		}
		target := props["Target"].(obj)
		if arn := fmt.Sprint(target["Arn"]); !strings.Contains(arn, alias) {
			t.Errorf("the schedule invokes %s, want the pool job's alias %s", arn, alias)
		}
		if in := target["Input"]; in != "{}" {
			t.Errorf("the schedule's event is %v, want {} (the previous month)", in)
		}
		if rp, _ := target["RetryPolicy"].(obj); rp["MaximumRetryAttempts"] != float64(jobRetries) {
			t.Errorf("retry policy %v", rp)
		}
		roleID = fmt.Sprint(target["RoleArn"].(obj)["Fn::GetAtt"].([]any)[0])
	}
	if found != 1 {
		t.Fatalf("%d schedules invoke the pool job's alias, want 1", found)
	}

	// AND the schedule's role may invoke that function (its alias) and do nothing else
	for _, p := range *template.FindResources(jsii.String("AWS::IAM::Policy"), nil) {
		props := (*p)["Properties"].(obj)
		if !slices.ContainsFunc(props["Roles"].([]any), func(r any) bool { return fmt.Sprint(r.(obj)["Ref"]) == roleID }) {
			continue
		}
		for _, st := range statements(*p) {
			if a := strs(st["Action"]); !slices.Equal(a, []string{"lambda:InvokeFunction"}) {
				t.Errorf("the schedule's role is granted %v", a)
			}
			if res := fmt.Sprint(st["Resource"]); !strings.Contains(res, alias) && !strings.Contains(res, "poolpayouts") {
				t.Errorf("the schedule's role may invoke %v", res)
			}
		}
	}

	// AND the job's role has exactly the pool run's table actions, on the table alone (no index), and no other statement but its logs' and tracing's
	var tableActions []string
	for _, st := range roleStatements(t, f.Name) {
		actions := strs(st["Action"])
		if !slices.ContainsFunc(actions, func(a string) bool { return strings.HasPrefix(a, "dynamodb:") }) {
			for _, a := range actions {
				if !strings.HasPrefix(a, "logs:") && !strings.HasPrefix(a, "xray:") {
					t.Errorf("the pool job is granted %s", a)
				}
			}
			continue
		}
		if res := fmt.Sprint(st["Resource"]); !strings.Contains(res, table) || strings.Contains(res, "/index/") {
			t.Errorf("table actions %v on %v, want the table alone", actions, res)
		}
		tableActions = append(tableActions, actions...)
	}
	slices.Sort(tableActions)
	want := []string{"dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"}
	if !slices.Equal(tableActions, want) {
		t.Errorf("pool job table actions %v, want %v", tableActions, want)
	}

	// AND it is no HTTP function: no route, no signing key, a job's timeout
	_, fn := function(t, f.Name)
	fp := fn["Properties"].(obj)
	if timeout, _ := fp["Timeout"].(float64); timeout != jobTimeout {
		t.Errorf("pool job timeout = %v s, want %d", timeout, jobTimeout)
	}
	vars := fp["Environment"].(obj)["Variables"].(obj)
	if _, ok := vars["JWT_SECRET_ARN"]; ok {
		t.Errorf("the pool job is told the signing keys")
	}
	if len(f.Routes) > 0 || isHTTP(f) {
		t.Errorf("the pool job serves routes")
	}
}
