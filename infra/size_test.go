package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
)

// maxStackResources is the most resources a synthesized stack, nested
// ones included, may have: CloudFormation refuses a template over 500,
// and the 100 between are a margin the next groups' author sees coming
// (README, "Resources per stack").
const maxStackResources = 400

// maxTemplateParameters and maxTemplateOutputs are the most parameters
// and outputs a template may have: CloudFormation refuses over 200 of
// either, and CDK makes one of each for every value a nested stack and
// its parent read from each other (the Operations stack's outputs are the
// deployment groups' rollback alarms, two or three per function).
const (
	maxTemplateParameters = 180
	maxTemplateOutputs    = 180
)

// stackTemplates returns the synthesized template of s and of every
// stack nested in it, by construct path.
func stackTemplates(t *testing.T, s awscdk.Stack) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	out[*s.Node().Path()] = assembly.GetStackByName(s.StackName()).Template().(map[string]any)
	for _, c := range *s.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		if !*awscdk.NestedStack_IsNestedStack(c) {
			continue
		}
		ns := c.(awscdk.NestedStack)
		b, err := os.ReadFile(filepath.Join(*assembly.Directory(), *ns.TemplateFile()))
		if err != nil {
			t.Fatal(err)
		}
		var tmpl map[string]any
		if err := json.Unmarshal(b, &tmpl); err != nil {
			t.Fatal(err)
		}
		out[*ns.Node().Path()] = tmpl
	}
	return out
}

// TestStackSize fails when any stack, nested ones included, has more
// than maxStackResources resources, or more than maxTemplateParameters
// parameters or maxTemplateOutputs outputs, and logs every stack's counts
// (go test -v -run TestStackSize ./infra prints the README's table).
func TestStackSize(t *testing.T) {
	for _, s := range []awscdk.Stack{deployedStack, stack, hardenedStack} {
		templates := stackTemplates(t, s)
		paths := slices.Sorted(func(yield func(string) bool) {
			for p := range templates {
				if !yield(p) {
					return
				}
			}
		})
		total := 0
		for _, p := range paths {
			n := len(templates[p]["Resources"].(map[string]any))
			params, _ := templates[p]["Parameters"].(map[string]any)
			outputs, _ := templates[p]["Outputs"].(map[string]any)
			total += n
			t.Logf("%-60s %4d resources %4d parameters %4d outputs", p, n, len(params), len(outputs))
			if n > maxStackResources {
				t.Errorf("%s has %d resources, over the %d this project allows (CloudFormation refuses 500)", p, n, maxStackResources)
			}
			if len(params) > maxTemplateParameters || len(outputs) > maxTemplateOutputs {
				t.Errorf("%s has %d parameters and %d outputs, over the %d and %d this project allows (CloudFormation refuses 200 of either)",
					p, len(params), len(outputs), maxTemplateParameters, maxTemplateOutputs)
			}
		}
		t.Logf("%-60s %4d resources in %d stacks", *s.StackName()+" (all)", total, len(paths))
	}
}
