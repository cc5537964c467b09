package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
)

// nagMessages are the AwsSolutions findings cdk-nag left on a stack at
// synthesis, as "level rule path: message".
func nagMessages(s awscdk.Stack) []string {
	var out []string
	for _, m := range *assembly.GetStackByName(s.StackName()).Messages() {
		data := fmt.Sprint(m.Entry.Data)
		if !strings.HasPrefix(data, "AwsSolutions-") {
			continue
		}
		rule, _, _ := strings.Cut(data, ":")
		out = append(out, fmt.Sprintf("%s %s %s", m.Level, rule, *m.Id))
	}
	slices.Sort(out)
	return out
}

// cdk-nag's AwsSolutions pack runs at every synthesis (checkCompliance):
// neither the default stack nor the hardened one keeps a finding that is
// not suppressed, error or warning.
func TestNag_NoUnsuppressedFinding(t *testing.T) {
	for _, s := range []awscdk.Stack{stack, hardenedStack} {
		for _, m := range nagMessages(s) {
			t.Errorf("%s: %s", *s.StackName(), m)
		}
	}
}

// Each suppression sits on the one resource it concerns, with a reason
// (cdk-nag refuses one under 10 characters). The list is printed with -v:
// it is the inventory of what the stack keeps on purpose.
func TestNag_Suppressions(t *testing.T) {
	for _, s := range []awscdk.Stack{stack, hardenedStack} {
		count := map[string]int{}
		// The nested stacks' resources too: cdk-nag checks them as part
		// of the root (checkCompliance), and its findings there are the
		// root's (TestNag_NoUnsuppressedFinding).
		for _, tmpl := range stackTemplates(t, s) {
			for id, r := range tmpl["Resources"].(map[string]any) {
				meta, _ := r.(map[string]any)["Metadata"].(map[string]any)
				nag, _ := meta["cdk_nag"].(map[string]any)
				rules, _ := nag["rules_to_suppress"].([]any)
				for _, rule := range rules {
					rr := rule.(map[string]any)
					reason, _ := rr["reason"].(string)
					if len(reason) < 40 {
						t.Errorf("%s %s: reason %q says too little", id, rr["id"], reason)
					}
					count[fmt.Sprint(rr["id"])]++
					t.Logf("%s %-22s %-60s %v", *s.StackName(), rr["id"], id, rr["applies_to"])
				}
			}
		}
		t.Logf("%s: %v", *s.StackName(), count)
		if count["AwsSolutions-IAM5"] == 0 || count["AwsSolutions-APIG4"] == 0 {
			t.Errorf("%s: expected the X-Ray and public-route suppressions, got %v", *s.StackName(), count)
		}
	}
	_ = cxapi.SynthesisMessageLevel_ERROR
}
